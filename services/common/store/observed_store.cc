#include "services/common/store/observed_store.h"

#include <array>

namespace gnomon::store {
namespace {

struct CallInfo {
  std::string_view name;
  bool write;
};

// In StoreCall's order.
constexpr std::array<CallInfo, static_cast<size_t>(StoreCall::kCount)> kCalls = {{
    {"CreateGroup", true},
    {"GetGroup", false},
    {"GetGroupByApp", false},
    {"ListGroups", false},
    {"UpdateGroup", true},
    {"DeleteGroup", true},
    {"CreateJob", true},
    {"CreateJobs", true},
    {"GetJob", false},
    {"GetJobsNamed", false},
    {"LastRuns", false},
    {"GetJobs", false},
    {"ListJobs", false},
    {"UpdateJob", true},
    {"DeleteJob", true},
    {"SetJobState", true},
    {"ListDueJobs", false},
    {"AdvanceJobs", true},
    {"CountJobs", false},
    {"CountGroupJobs", false},
    {"ListScriptVersions", false},
    {"GetScriptVersion", false},
    {"InsertRuns", true},
    {"RecordDispatches", true},
    {"ApplyReports", true},
    {"GetRun", false},
    {"ListRuns", false},
    {"ReadRunLog", false},
    {"ListActiveRunsOn", false},
    {"ListPendingFollowups", false},
    {"CompleteFollowups", true},
    {"DeferFollowups", true},
    {"ListDueDeadlines", false},
    {"CompleteDeadlines", true},
    {"FailRuns", true},
    {"RecordAlarmStatus", true},
    {"GetStats", false},
    {"DeleteRunsEndedBefore", true},
    {"TrimRunsPerJob", true},
    {"AppendAudit", true},
    {"ListAudit", false},
    {"DeleteAuditBefore", true},
    {"UpsertExecutor", true},
    {"RemoveExecutor", true},
    {"ListExecutors", false},
    {"PruneExecutors", true},
    {"HasAdminTokens", false},
    {"CreateAdminToken", true},
    {"FindAdminToken", false},
    {"ListAdminTokens", false},
    {"RevokeAdminToken", true},
    {"CreateUser", true},
    {"GetUser", false},
    {"ListUsers", false},
    {"UpdateUser", true},
    {"DeleteUser", true},
    {"DeleteEndedSessions", true},
    {"AcquireLeases", true},
    {"ReleaseLeases", true},
    {"DeleteExpiredLeases", true},
    {"ListLeases", false},
    {"Ping", false},
    {"CreateWorkflow", true},
    {"GetWorkflow", false},
    {"ListWorkflows", false},
    {"UpdateWorkflow", true},
    {"DeleteWorkflow", true},
    {"CreateWorkflowRun", true},
    {"GetWorkflowRun", false},
    {"UpdateWorkflowRun", true},
    {"ListWorkflowRuns", false},
    {"ListDueWorkflows", false},
    {"AdvanceWorkflow", true},
    {"ListRunningWorkflowRuns", false},
    {"RecordJobEnd", true},
    {"PauseJob", true},
    {"CreateCalendar", true},
    {"GetCalendar", false},
    {"ListCalendars", false},
    {"UpdateCalendar", true},
    {"DeleteCalendar", true},
    {"ListCalendarUsers", false},
    {"GetCalendarsVersion", false},
    {"CreateAlarmChannel", true},
    {"GetAlarmChannel", false},
    {"ListAlarmChannels", false},
    {"UpdateAlarmChannel", true},
    {"DeleteAlarmChannel", true},
    {"GetAlarmChannelsVersion", false},
    {"CreatePool", true},
    {"GetPool", false},
    {"ListPools", false},
    {"UpdatePool", true},
    {"DeletePool", true},
    {"ListPoolQueue", false},
    {"ListQueuedPools", false},
    {"GrantPoolSlots", true},
}};

// A StoreCall added without its entry leaves the last ones unnamed.
constexpr bool EveryCallNamed() {
  for (const CallInfo& call : kCalls) {
    if (call.name.empty()) return false;
  }
  return true;
}
static_assert(EveryCallNamed(), "kCalls must list every StoreCall, in order");

}  // namespace

std::string_view StoreCallName(StoreCall call) { return kCalls[static_cast<size_t>(call)].name; }
bool IsWrite(StoreCall call) { return kCalls[static_cast<size_t>(call)].write; }

absl::StatusOr<v1::Group> ObservedStore::CreateGroup(const v1::Group& group, int64_t now_ms) {
  return Observed(StoreCall::kCreateGroup, [&] { return inner_->CreateGroup(group, now_ms); });
}
absl::StatusOr<v1::Group> ObservedStore::GetGroup(int64_t group_id) {
  return Observed(StoreCall::kGetGroup, [&] { return inner_->GetGroup(group_id); });
}
absl::StatusOr<v1::Group> ObservedStore::GetGroupByApp(std::string_view app_name) {
  return Observed(StoreCall::kGetGroupByApp, [&] { return inner_->GetGroupByApp(app_name); });
}
absl::StatusOr<std::vector<v1::Group>> ObservedStore::ListGroups() {
  return Observed(StoreCall::kListGroups, [&] { return inner_->ListGroups(); });
}
absl::StatusOr<v1::Group> ObservedStore::UpdateGroup(const v1::Group& group, int64_t now_ms) {
  return Observed(StoreCall::kUpdateGroup, [&] { return inner_->UpdateGroup(group, now_ms); });
}
absl::Status ObservedStore::DeleteGroup(int64_t group_id) {
  return Observed(StoreCall::kDeleteGroup, [&] { return inner_->DeleteGroup(group_id); });
}
absl::StatusOr<v1::Job> ObservedStore::CreateJob(const v1::Job& job, v1::JobState state,
                                                 int64_t next_fire_ms, int64_t now_ms,
                                                 std::string_view author) {
  return Observed(StoreCall::kCreateJob,
                  [&] { return inner_->CreateJob(job, state, next_fire_ms, now_ms, author); });
}
absl::StatusOr<std::vector<v1::Job>> ObservedStore::CreateJobs(const std::vector<NewJob>& jobs,
                                                               int64_t now_ms,
                                                               std::string_view author) {
  return Observed(StoreCall::kCreateJobs, [&] { return inner_->CreateJobs(jobs, now_ms, author); });
}
absl::StatusOr<v1::Job> ObservedStore::GetJob(int64_t job_id) {
  return Observed(StoreCall::kGetJob, [&] { return inner_->GetJob(job_id); });
}
absl::StatusOr<std::vector<v1::Job>> ObservedStore::GetJobsNamed(
    std::string_view name, const std::vector<int64_t>& group_ids) {
  return Observed(StoreCall::kGetJobsNamed, [&] { return inner_->GetJobsNamed(name, group_ids); });
}
absl::StatusOr<std::vector<v1::Run>> ObservedStore::LastRuns(const std::vector<int64_t>& job_ids) {
  return Observed(StoreCall::kLastRuns, [&] { return inner_->LastRuns(job_ids); });
}
absl::StatusOr<std::vector<v1::Job>> ObservedStore::GetJobs(const std::vector<int64_t>& job_ids) {
  return Observed(StoreCall::kGetJobs, [&] { return inner_->GetJobs(job_ids); });
}
absl::StatusOr<std::vector<v1::Job>> ObservedStore::ListJobs(const std::vector<int64_t>& group_ids,
                                                             int64_t after_id, int limit) {
  return Observed(StoreCall::kListJobs,
                  [&] { return inner_->ListJobs(group_ids, after_id, limit); });
}
absl::StatusOr<v1::Job> ObservedStore::UpdateJob(const v1::Job& job,
                                                 std::optional<int64_t> next_fire_ms,
                                                 int64_t now_ms, std::string_view author) {
  return Observed(StoreCall::kUpdateJob,
                  [&] { return inner_->UpdateJob(job, next_fire_ms, now_ms, author); });
}
absl::StatusOr<std::vector<v1::ScriptVersion>> ObservedStore::ListScriptVersions(
    int64_t job_id, int64_t before_version, int limit) {
  return Observed(StoreCall::kListScriptVersions,
                  [&] { return inner_->ListScriptVersions(job_id, before_version, limit); });
}
absl::StatusOr<v1::ScriptVersion> ObservedStore::GetScriptVersion(int64_t job_id, int64_t version) {
  return Observed(StoreCall::kGetScriptVersion,
                  [&] { return inner_->GetScriptVersion(job_id, version); });
}
absl::Status ObservedStore::DeleteJob(int64_t job_id, bool purge_runs) {
  return Observed(StoreCall::kDeleteJob, [&] { return inner_->DeleteJob(job_id, purge_runs); });
}
absl::StatusOr<uint32_t> ObservedStore::RecordJobEnd(int64_t job_id, int64_t run_id, bool failed) {
  return Observed(StoreCall::kRecordJobEnd,
                  [&] { return inner_->RecordJobEnd(job_id, run_id, failed); });
}

absl::StatusOr<bool> ObservedStore::PauseJob(int64_t job_id, std::string_view reason,
                                             int64_t now_ms) {
  return Observed(StoreCall::kPauseJob, [&] { return inner_->PauseJob(job_id, reason, now_ms); });
}

absl::StatusOr<v1::Job> ObservedStore::SetJobState(int64_t job_id, v1::JobState state,
                                                   int64_t next_fire_ms, int64_t now_ms) {
  return Observed(StoreCall::kSetJobState,
                  [&] { return inner_->SetJobState(job_id, state, next_fire_ms, now_ms); });
}
absl::StatusOr<std::vector<DueJob>> ObservedStore::ListDueJobs(int64_t until_ms, int limit,
                                                               const std::vector<int>& partitions) {
  return Observed(StoreCall::kListDueJobs,
                  [&] { return inner_->ListDueJobs(until_ms, limit, partitions); });
}
absl::StatusOr<std::vector<bool>> ObservedStore::AdvanceJobs(
    const std::vector<JobAdvance>& advances) {
  return Observed(StoreCall::kAdvanceJobs, [&] { return inner_->AdvanceJobs(advances); });
}
absl::StatusOr<std::vector<JobCount>> ObservedStore::CountJobs() {
  return Observed(StoreCall::kCountJobs, [&] { return inner_->CountJobs(); });
}
absl::StatusOr<int64_t> ObservedStore::CountGroupJobs(int64_t group_id) {
  return Observed(StoreCall::kCountGroupJobs, [&] { return inner_->CountGroupJobs(group_id); });
}
absl::StatusOr<std::vector<RunInsertOutcome>> ObservedStore::InsertRuns(
    std::vector<v1::Run>& runs) {
  return Observed(StoreCall::kInsertRuns, [&] { return inner_->InsertRuns(runs); });
}
absl::Status ObservedStore::RecordDispatches(const std::vector<DispatchUpdate>& updates) {
  return Observed(StoreCall::kRecordDispatches, [&] { return inner_->RecordDispatches(updates); });
}
absl::StatusOr<std::vector<v1::ReportAck>> ObservedStore::ApplyReports(
    const std::vector<v1::ReportItem>& items, int64_t group_id) {
  return Observed(StoreCall::kApplyReports, [&] { return inner_->ApplyReports(items, group_id); });
}
absl::StatusOr<v1::Run> ObservedStore::GetRun(int64_t run_id) {
  return Observed(StoreCall::kGetRun, [&] { return inner_->GetRun(run_id); });
}
absl::StatusOr<std::vector<v1::Run>> ObservedStore::ListRuns(const RunFilter& filter) {
  return Observed(StoreCall::kListRuns, [&] { return inner_->ListRuns(filter); });
}
absl::StatusOr<std::vector<v1::LogLine>> ObservedStore::ReadRunLog(int64_t run_id,
                                                                   int64_t from_line, int limit) {
  return Observed(StoreCall::kReadRunLog,
                  [&] { return inner_->ReadRunLog(run_id, from_line, limit); });
}
absl::StatusOr<std::vector<v1::Run>> ObservedStore::ListActiveRunsOn(std::string_view address) {
  return Observed(StoreCall::kListActiveRunsOn, [&] { return inner_->ListActiveRunsOn(address); });
}
absl::StatusOr<std::vector<v1::Run>> ObservedStore::ListPendingFollowups(
    int limit, int64_t now_ms, const std::vector<int>& partitions) {
  return Observed(StoreCall::kListPendingFollowups,
                  [&] { return inner_->ListPendingFollowups(limit, now_ms, partitions); });
}
absl::Status ObservedStore::CompleteFollowups(const std::vector<int64_t>& run_ids) {
  return Observed(StoreCall::kCompleteFollowups,
                  [&] { return inner_->CompleteFollowups(run_ids); });
}
absl::Status ObservedStore::DeferFollowups(const std::vector<std::pair<int64_t, int64_t>>& due) {
  return Observed(StoreCall::kDeferFollowups, [&] { return inner_->DeferFollowups(due); });
}
absl::StatusOr<std::vector<v1::Run>> ObservedStore::ListDueDeadlines(
    int limit, int64_t now_ms, const std::vector<int>& partitions) {
  return Observed(StoreCall::kListDueDeadlines,
                  [&] { return inner_->ListDueDeadlines(limit, now_ms, partitions); });
}
absl::Status ObservedStore::CompleteDeadlines(const std::vector<int64_t>& run_ids) {
  return Observed(StoreCall::kCompleteDeadlines,
                  [&] { return inner_->CompleteDeadlines(run_ids); });
}
absl::StatusOr<int64_t> ObservedStore::FailRuns(const std::vector<int64_t>& run_ids,
                                                int32_t handle_code,
                                                std::string_view handle_message, int64_t now_ms) {
  return Observed(StoreCall::kFailRuns,
                  [&] { return inner_->FailRuns(run_ids, handle_code, handle_message, now_ms); });
}
absl::Status ObservedStore::RecordAlarmStatus(int64_t run_id, std::string_view status) {
  return Observed(StoreCall::kRecordAlarmStatus,
                  [&] { return inner_->RecordAlarmStatus(run_id, status); });
}
absl::StatusOr<std::vector<v1::StatsRow>> ObservedStore::GetStats(int64_t from_day_ms,
                                                                  int64_t to_day_ms,
                                                                  int64_t job_id) {
  return Observed(StoreCall::kGetStats,
                  [&] { return inner_->GetStats(from_day_ms, to_day_ms, job_id); });
}
absl::StatusOr<int64_t> ObservedStore::DeleteRunsEndedBefore(int64_t before_ms, int limit) {
  return Observed(StoreCall::kDeleteRunsEndedBefore,
                  [&] { return inner_->DeleteRunsEndedBefore(before_ms, limit); });
}
absl::Status ObservedStore::AppendAudit(const v1::AuditEntry& entry) {
  return Observed(StoreCall::kAppendAudit, [&] { return inner_->AppendAudit(entry); });
}
absl::StatusOr<std::vector<v1::AuditEntry>> ObservedStore::ListAudit(std::string_view object,
                                                                     int64_t before_id, int limit) {
  return Observed(StoreCall::kListAudit,
                  [&] { return inner_->ListAudit(object, before_id, limit); });
}
absl::StatusOr<int64_t> ObservedStore::DeleteAuditBefore(int64_t before_ms, int limit) {
  return Observed(StoreCall::kDeleteAuditBefore,
                  [&] { return inner_->DeleteAuditBefore(before_ms, limit); });
}
absl::StatusOr<int64_t> ObservedStore::TrimRunsPerJob(int64_t keep, int limit) {
  return Observed(StoreCall::kTrimRunsPerJob, [&] { return inner_->TrimRunsPerJob(keep, limit); });
}
absl::Status ObservedStore::UpsertExecutor(const v1::ExecutorInfo& info, int64_t now_ms,
                                           int64_t registration_id) {
  return Observed(StoreCall::kUpsertExecutor,
                  [&] { return inner_->UpsertExecutor(info, now_ms, registration_id); });
}
absl::Status ObservedStore::RemoveExecutor(std::string_view app_name, std::string_view address,
                                           int64_t register_ms, int64_t registration_id) {
  return Observed(StoreCall::kRemoveExecutor, [&] {
    return inner_->RemoveExecutor(app_name, address, register_ms, registration_id);
  });
}
absl::StatusOr<std::vector<v1::ExecutorInfo>> ObservedStore::ListExecutors() {
  return Observed(StoreCall::kListExecutors, [&] { return inner_->ListExecutors(); });
}
absl::StatusOr<int64_t> ObservedStore::PruneExecutors(int64_t before_ms) {
  return Observed(StoreCall::kPruneExecutors, [&] { return inner_->PruneExecutors(before_ms); });
}
absl::StatusOr<bool> ObservedStore::HasAdminTokens() {
  return Observed(StoreCall::kHasAdminTokens, [&] { return inner_->HasAdminTokens(); });
}
absl::Status ObservedStore::CreateAdminToken(std::string_view name, std::string_view sha256_hex,
                                             int64_t now_ms, int64_t expire_ms,
                                             const TokenScope& scope) {
  return Observed(StoreCall::kCreateAdminToken, [&] {
    return inner_->CreateAdminToken(name, sha256_hex, now_ms, expire_ms, scope);
  });
}
absl::StatusOr<v1::ApiToken> ObservedStore::FindAdminToken(std::string_view sha256_hex) {
  return Observed(StoreCall::kFindAdminToken, [&] { return inner_->FindAdminToken(sha256_hex); });
}
absl::StatusOr<std::vector<v1::ApiToken>> ObservedStore::ListAdminTokens() {
  return Observed(StoreCall::kListAdminTokens, [&] { return inner_->ListAdminTokens(); });
}
absl::StatusOr<v1::ApiToken> ObservedStore::RevokeAdminToken(std::string_view name,
                                                             int64_t now_ms) {
  return Observed(StoreCall::kRevokeAdminToken,
                  [&] { return inner_->RevokeAdminToken(name, now_ms); });
}
absl::StatusOr<v1::User> ObservedStore::CreateUser(const v1::User& user,
                                                   std::string_view password_hash, int64_t now_ms) {
  return Observed(StoreCall::kCreateUser,
                  [&] { return inner_->CreateUser(user, password_hash, now_ms); });
}
absl::StatusOr<StoredUser> ObservedStore::GetUser(std::string_view name) {
  return Observed(StoreCall::kGetUser, [&] { return inner_->GetUser(name); });
}
absl::StatusOr<std::vector<v1::User>> ObservedStore::ListUsers() {
  return Observed(StoreCall::kListUsers, [&] { return inner_->ListUsers(); });
}
absl::StatusOr<v1::User> ObservedStore::UpdateUser(const v1::User& user,
                                                   std::optional<std::string> password_hash,
                                                   int64_t now_ms) {
  return Observed(StoreCall::kUpdateUser,
                  [&] { return inner_->UpdateUser(user, std::move(password_hash), now_ms); });
}
absl::Status ObservedStore::DeleteUser(std::string_view name, int64_t now_ms) {
  return Observed(StoreCall::kDeleteUser, [&] { return inner_->DeleteUser(name, now_ms); });
}

absl::StatusOr<int64_t> ObservedStore::DeleteEndedSessions(int64_t before_ms, int limit) {
  return Observed(StoreCall::kDeleteEndedSessions,
                  [&] { return inner_->DeleteEndedSessions(before_ms, limit); });
}
absl::StatusOr<Leases> ObservedStore::AcquireLeases(const std::vector<std::string>& names,
                                                    std::string_view holder, int64_t ttl_ms) {
  return Observed(StoreCall::kAcquireLeases,
                  [&] { return inner_->AcquireLeases(names, holder, ttl_ms); });
}
absl::Status ObservedStore::ReleaseLeases(const std::vector<std::string>& names,
                                          std::string_view holder) {
  return Observed(StoreCall::kReleaseLeases, [&] { return inner_->ReleaseLeases(names, holder); });
}
absl::Status ObservedStore::DeleteExpiredLeases(const std::vector<std::string>& names,
                                                int64_t expired_before_ms) {
  return Observed(StoreCall::kDeleteExpiredLeases,
                  [&] { return inner_->DeleteExpiredLeases(names, expired_before_ms); });
}
absl::Status ObservedStore::Ping() {
  return Observed(StoreCall::kPing, [&] { return inner_->Ping(); });
}
absl::StatusOr<Leases> ObservedStore::ListLeases(std::string_view prefix) {
  return Observed(StoreCall::kListLeases, [&] { return inner_->ListLeases(prefix); });
}

absl::StatusOr<v1::Workflow> ObservedStore::CreateWorkflow(const v1::Workflow& workflow,
                                                           int64_t next_fire_ms, int64_t now_ms) {
  return Observed(StoreCall::kCreateWorkflow,
                  [&] { return inner_->CreateWorkflow(workflow, next_fire_ms, now_ms); });
}

absl::StatusOr<v1::Workflow> ObservedStore::GetWorkflow(int64_t workflow_id) {
  return Observed(StoreCall::kGetWorkflow, [&] { return inner_->GetWorkflow(workflow_id); });
}

absl::StatusOr<std::vector<v1::Workflow>> ObservedStore::ListWorkflows(int64_t group_id) {
  return Observed(StoreCall::kListWorkflows, [&] { return inner_->ListWorkflows(group_id); });
}

absl::StatusOr<v1::Workflow> ObservedStore::UpdateWorkflow(const v1::Workflow& workflow,
                                                           std::optional<int64_t> next_fire_ms,
                                                           int64_t now_ms) {
  return Observed(StoreCall::kUpdateWorkflow,
                  [&] { return inner_->UpdateWorkflow(workflow, next_fire_ms, now_ms); });
}

absl::StatusOr<std::vector<DueWorkflow>> ObservedStore::ListDueWorkflows(
    int64_t until_ms, int limit, const std::vector<int>& partitions) {
  return Observed(StoreCall::kListDueWorkflows,
                  [&] { return inner_->ListDueWorkflows(until_ms, limit, partitions); });
}

absl::StatusOr<bool> ObservedStore::AdvanceWorkflow(int64_t workflow_id, int64_t expected_ms,
                                                    int64_t next_ms) {
  return Observed(StoreCall::kAdvanceWorkflow,
                  [&] { return inner_->AdvanceWorkflow(workflow_id, expected_ms, next_ms); });
}

absl::StatusOr<std::vector<v1::WorkflowRun>> ObservedStore::ListRunningWorkflowRuns(
    int limit, const std::vector<int>& partitions) {
  return Observed(StoreCall::kListRunningWorkflowRuns,
                  [&] { return inner_->ListRunningWorkflowRuns(limit, partitions); });
}

absl::Status ObservedStore::DeleteWorkflow(int64_t workflow_id) {
  return Observed(StoreCall::kDeleteWorkflow, [&] { return inner_->DeleteWorkflow(workflow_id); });
}

absl::StatusOr<v1::WorkflowRun> ObservedStore::CreateWorkflowRun(const v1::WorkflowRun& run,
                                                                 int64_t now_ms) {
  return Observed(StoreCall::kCreateWorkflowRun,
                  [&] { return inner_->CreateWorkflowRun(run, now_ms); });
}

absl::StatusOr<v1::WorkflowRun> ObservedStore::GetWorkflowRun(int64_t run_id) {
  return Observed(StoreCall::kGetWorkflowRun, [&] { return inner_->GetWorkflowRun(run_id); });
}

absl::StatusOr<v1::WorkflowRun> ObservedStore::UpdateWorkflowRun(const v1::WorkflowRun& run,
                                                                 int64_t now_ms) {
  return Observed(StoreCall::kUpdateWorkflowRun,
                  [&] { return inner_->UpdateWorkflowRun(run, now_ms); });
}

absl::StatusOr<std::vector<v1::WorkflowRun>> ObservedStore::ListWorkflowRuns(int64_t workflow_id,
                                                                             int limit) {
  return Observed(StoreCall::kListWorkflowRuns,
                  [&] { return inner_->ListWorkflowRuns(workflow_id, limit); });
}

absl::StatusOr<v1::Calendar> ObservedStore::CreateCalendar(const v1::Calendar& calendar,
                                                           int64_t now_ms) {
  return Observed(StoreCall::kCreateCalendar,
                  [&] { return inner_->CreateCalendar(calendar, now_ms); });
}

absl::StatusOr<v1::Calendar> ObservedStore::GetCalendar(std::string_view name) {
  return Observed(StoreCall::kGetCalendar, [&] { return inner_->GetCalendar(name); });
}

absl::StatusOr<std::vector<v1::Calendar>> ObservedStore::ListCalendars() {
  return Observed(StoreCall::kListCalendars, [&] { return inner_->ListCalendars(); });
}

absl::StatusOr<v1::Calendar> ObservedStore::UpdateCalendar(
    const v1::Calendar& calendar, const std::vector<CalendarCursor>& cursors, int64_t now_ms) {
  return Observed(StoreCall::kUpdateCalendar,
                  [&] { return inner_->UpdateCalendar(calendar, cursors, now_ms); });
}

absl::Status ObservedStore::DeleteCalendar(std::string_view name) {
  return Observed(StoreCall::kDeleteCalendar, [&] { return inner_->DeleteCalendar(name); });
}

absl::StatusOr<std::vector<CalendarUser>> ObservedStore::ListCalendarUsers(std::string_view name) {
  return Observed(StoreCall::kListCalendarUsers, [&] { return inner_->ListCalendarUsers(name); });
}

absl::StatusOr<TableVersion> ObservedStore::GetCalendarsVersion() {
  return Observed(StoreCall::kGetCalendarsVersion, [&] { return inner_->GetCalendarsVersion(); });
}

absl::StatusOr<v1::AlarmChannel> ObservedStore::CreateAlarmChannel(const v1::AlarmChannel& channel,
                                                                   int64_t now_ms) {
  return Observed(StoreCall::kCreateAlarmChannel,
                  [&] { return inner_->CreateAlarmChannel(channel, now_ms); });
}

absl::StatusOr<v1::AlarmChannel> ObservedStore::GetAlarmChannel(std::string_view name) {
  return Observed(StoreCall::kGetAlarmChannel, [&] { return inner_->GetAlarmChannel(name); });
}

absl::StatusOr<std::vector<v1::AlarmChannel>> ObservedStore::ListAlarmChannels() {
  return Observed(StoreCall::kListAlarmChannels, [&] { return inner_->ListAlarmChannels(); });
}

absl::StatusOr<v1::AlarmChannel> ObservedStore::UpdateAlarmChannel(const v1::AlarmChannel& channel,
                                                                   int64_t now_ms) {
  return Observed(StoreCall::kUpdateAlarmChannel,
                  [&] { return inner_->UpdateAlarmChannel(channel, now_ms); });
}

absl::Status ObservedStore::DeleteAlarmChannel(std::string_view name) {
  return Observed(StoreCall::kDeleteAlarmChannel, [&] { return inner_->DeleteAlarmChannel(name); });
}

absl::StatusOr<TableVersion> ObservedStore::GetAlarmChannelsVersion() {
  return Observed(StoreCall::kGetAlarmChannelsVersion,
                  [&] { return inner_->GetAlarmChannelsVersion(); });
}

absl::StatusOr<v1::Pool> ObservedStore::CreatePool(const v1::Pool& pool, int64_t now_ms) {
  return Observed(StoreCall::kCreatePool, [&] { return inner_->CreatePool(pool, now_ms); });
}

absl::StatusOr<v1::Pool> ObservedStore::GetPool(std::string_view name, int64_t now_ms) {
  return Observed(StoreCall::kGetPool, [&] { return inner_->GetPool(name, now_ms); });
}

absl::StatusOr<std::vector<v1::Pool>> ObservedStore::ListPools(int64_t now_ms) {
  return Observed(StoreCall::kListPools, [&] { return inner_->ListPools(now_ms); });
}

absl::StatusOr<v1::Pool> ObservedStore::UpdatePool(const v1::Pool& pool, int64_t now_ms) {
  return Observed(StoreCall::kUpdatePool, [&] { return inner_->UpdatePool(pool, now_ms); });
}

absl::Status ObservedStore::DeletePool(std::string_view name) {
  return Observed(StoreCall::kDeletePool, [&] { return inner_->DeletePool(name); });
}

absl::StatusOr<PoolQueue> ObservedStore::ListPoolQueue(std::string_view name, int limit,
                                                       int64_t now_ms) {
  return Observed(StoreCall::kListPoolQueue,
                  [&] { return inner_->ListPoolQueue(name, limit, now_ms); });
}

absl::StatusOr<std::vector<std::string>> ObservedStore::ListQueuedPools(
    const std::vector<int>& partitions) {
  return Observed(StoreCall::kListQueuedPools, [&] { return inner_->ListQueuedPools(partitions); });
}

absl::StatusOr<std::vector<v1::Run>> ObservedStore::GrantPoolSlots(std::string_view pool,
                                                                   const EpochOf& epoch_of,
                                                                   int64_t now_ms) {
  return Observed(StoreCall::kGrantPoolSlots,
                  [&] { return inner_->GrantPoolSlots(pool, epoch_of, now_ms); });
}

}  // namespace gnomon::store

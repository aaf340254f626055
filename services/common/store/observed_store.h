// ObservedStore: a Store that forwards every call to another and tells a
// StoreObserver how each went — which call, its status, how long it took —
// so metrics (store_metrics.h) and benchmarks (reads vs writes) watch a
// store without the backends knowing.
//
//   class Counting final : public StoreObserver {
//     void Observe(StoreCall call, const absl::Status& s, absl::Duration took) override {
//       if (IsWrite(call)) ++writes_;
//     }
//   };
//   Counting counting;
//   ObservedStore store(real.get(), &counting);
//   ... use &store as the Store ...
//
// Thread safety: as thread-safe as the wrapped store; the observer is called
// on the calling thread, from many threads at once.
#ifndef GNOMON_SERVICES_COMMON_STORE_OBSERVED_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_OBSERVED_STORE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "services/common/store/store.h"

namespace gnomon::store {

// Every call of the Store interface (kCount: how many there are).
enum class StoreCall {
  kCreateGroup,
  kGetGroup,
  kGetGroupByApp,
  kListGroups,
  kUpdateGroup,
  kDeleteGroup,
  kCreateJob,
  kCreateJobs,
  kGetJob,
  kGetJobsNamed,
  kLastRuns,
  kGetJobs,
  kListJobs,
  kUpdateJob,
  kDeleteJob,
  kSetJobState,
  kListDueJobs,
  kAdvanceJobs,
  kCountJobs,
  kCountGroupJobs,
  kListScriptVersions,
  kGetScriptVersion,
  kInsertRuns,
  kRecordDispatches,
  kApplyReports,
  kGetRun,
  kListRuns,
  kReadRunLog,
  kListActiveRunsOn,
  kListPendingFollowups,
  kCompleteFollowups,
  kDeferFollowups,
  kListDueDeadlines,
  kCompleteDeadlines,
  kFailRuns,
  kRecordAlarmStatus,
  kGetStats,
  kDeleteRunsEndedBefore,
  kTrimRunsPerJob,
  kAppendAudit,
  kListAudit,
  kDeleteAuditBefore,
  kUpsertExecutor,
  kRemoveExecutor,
  kListExecutors,
  kPruneExecutors,
  kHasAdminTokens,
  kCreateAdminToken,
  kFindAdminToken,
  kListAdminTokens,
  kRevokeAdminToken,
  kCreateUser,
  kGetUser,
  kListUsers,
  kUpdateUser,
  kDeleteUser,
  kDeleteEndedSessions,
  kAcquireLeases,
  kReleaseLeases,
  kDeleteExpiredLeases,
  kListLeases,
  kPing,
  kCreateWorkflow,
  kGetWorkflow,
  kListWorkflows,
  kUpdateWorkflow,
  kDeleteWorkflow,
  kCreateWorkflowRun,
  kGetWorkflowRun,
  kUpdateWorkflowRun,
  kListWorkflowRuns,
  kListDueWorkflows,
  kAdvanceWorkflow,
  kListRunningWorkflowRuns,
  kRecordJobEnd,
  kPauseJob,
  kCreateCalendar,
  kGetCalendar,
  kListCalendars,
  kUpdateCalendar,
  kDeleteCalendar,
  kListCalendarUsers,
  kGetCalendarsVersion,
  kCreateAlarmChannel,
  kGetAlarmChannel,
  kListAlarmChannels,
  kUpdateAlarmChannel,
  kDeleteAlarmChannel,
  kGetAlarmChannelsVersion,
  kCreatePool,
  kGetPool,
  kListPools,
  kUpdatePool,
  kDeletePool,
  kListPoolQueue,
  kListQueuedPools,
  kGrantPoolSlots,
  kCount
};
// The method's name ("InsertRuns").
std::string_view StoreCallName(StoreCall call);
// Whether the call writes (one transaction in both backends) rather than reads.
bool IsWrite(StoreCall call);

class StoreObserver {
 public:
  virtual ~StoreObserver() = default;
  virtual void Observe(StoreCall call, const absl::Status& status, absl::Duration took) = 0;
};

class ObservedStore final : public Store {
 public:
  ObservedStore(Store* inner, StoreObserver* observer) : inner_(inner), observer_(observer) {}

  uint64_t committed_transactions() const override { return inner_->committed_transactions(); }
  uint64_t executed_statements() const override { return inner_->executed_statements(); }
  int partition_count() const override { return inner_->partition_count(); }

  absl::StatusOr<v1::Group> CreateGroup(const v1::Group& group, int64_t now_ms) override;
  absl::StatusOr<v1::Group> GetGroup(int64_t group_id) override;
  absl::StatusOr<v1::Group> GetGroupByApp(std::string_view app_name) override;
  absl::StatusOr<std::vector<v1::Group>> ListGroups() override;
  absl::StatusOr<v1::Group> UpdateGroup(const v1::Group& group, int64_t now_ms) override;
  absl::Status DeleteGroup(int64_t group_id) override;
  absl::StatusOr<v1::Job> CreateJob(const v1::Job& job, v1::JobState state, int64_t next_fire_ms,
                                    int64_t now_ms, std::string_view author) override;
  absl::StatusOr<std::vector<v1::Job>> CreateJobs(const std::vector<NewJob>& jobs, int64_t now_ms,
                                                  std::string_view author) override;
  absl::StatusOr<v1::Job> GetJob(int64_t job_id) override;
  absl::StatusOr<std::vector<v1::Job>> GetJobsNamed(std::string_view name,
                                                    const std::vector<int64_t>& group_ids) override;
  absl::StatusOr<std::vector<v1::Run>> LastRuns(const std::vector<int64_t>& job_ids) override;
  absl::StatusOr<std::vector<v1::Job>> GetJobs(const std::vector<int64_t>& job_ids) override;
  absl::StatusOr<std::vector<v1::Job>> ListJobs(const std::vector<int64_t>& group_ids,
                                                int64_t after_id, int limit) override;
  absl::StatusOr<v1::Job> UpdateJob(const v1::Job& job, std::optional<int64_t> next_fire_ms,
                                    int64_t now_ms, std::string_view author) override;
  absl::Status DeleteJob(int64_t job_id, bool purge_runs) override;
  absl::StatusOr<v1::Job> SetJobState(int64_t job_id, v1::JobState state, int64_t next_fire_ms,
                                      int64_t now_ms) override;
  absl::StatusOr<uint32_t> RecordJobEnd(int64_t job_id, int64_t run_id, bool failed) override;
  absl::StatusOr<bool> PauseJob(int64_t job_id, std::string_view reason, int64_t now_ms) override;
  absl::StatusOr<std::vector<DueJob>> ListDueJobs(int64_t until_ms, int limit,
                                                  const std::vector<int>& partitions) override;
  absl::StatusOr<std::vector<bool>> AdvanceJobs(const std::vector<JobAdvance>& advances) override;
  absl::StatusOr<std::vector<JobCount>> CountJobs() override;
  absl::StatusOr<int64_t> CountGroupJobs(int64_t group_id) override;
  absl::StatusOr<std::vector<v1::ScriptVersion>> ListScriptVersions(int64_t job_id,
                                                                    int64_t before_version,
                                                                    int limit) override;
  absl::StatusOr<v1::ScriptVersion> GetScriptVersion(int64_t job_id, int64_t version) override;
  absl::StatusOr<std::vector<RunInsertOutcome>> InsertRuns(std::vector<v1::Run>& runs) override;
  absl::Status RecordDispatches(const std::vector<DispatchUpdate>& updates) override;
  absl::StatusOr<std::vector<v1::ReportAck>> ApplyReports(const std::vector<v1::ReportItem>& items,
                                                          int64_t group_id) override;
  absl::StatusOr<v1::Run> GetRun(int64_t run_id) override;
  absl::StatusOr<std::vector<v1::Run>> ListRuns(const RunFilter& filter) override;
  absl::StatusOr<std::vector<v1::LogLine>> ReadRunLog(int64_t run_id, int64_t from_line,
                                                      int limit) override;
  absl::StatusOr<std::vector<v1::Run>> ListActiveRunsOn(std::string_view address) override;
  absl::StatusOr<std::vector<v1::Run>> ListPendingFollowups(
      int limit, int64_t now_ms, const std::vector<int>& partitions) override;
  absl::Status CompleteFollowups(const std::vector<int64_t>& run_ids) override;
  absl::Status DeferFollowups(const std::vector<std::pair<int64_t, int64_t>>& due) override;
  absl::StatusOr<std::vector<v1::Run>> ListDueDeadlines(
      int limit, int64_t now_ms, const std::vector<int>& partitions) override;
  absl::Status CompleteDeadlines(const std::vector<int64_t>& run_ids) override;
  absl::StatusOr<int64_t> FailRuns(const std::vector<int64_t>& run_ids, int32_t handle_code,
                                   std::string_view handle_message, int64_t now_ms) override;
  absl::Status RecordAlarmStatus(int64_t run_id, std::string_view status) override;
  absl::Status AppendAudit(const v1::AuditEntry& entry) override;
  absl::StatusOr<std::vector<v1::AuditEntry>> ListAudit(std::string_view object, int64_t before_id,
                                                        int limit) override;
  absl::StatusOr<int64_t> DeleteAuditBefore(int64_t before_ms, int limit) override;
  absl::StatusOr<std::vector<v1::StatsRow>> GetStats(int64_t from_day_ms, int64_t to_day_ms,
                                                     int64_t job_id) override;
  absl::StatusOr<int64_t> DeleteRunsEndedBefore(int64_t before_ms, int limit) override;
  absl::StatusOr<int64_t> TrimRunsPerJob(int64_t keep, int limit) override;
  absl::Status UpsertExecutor(const v1::ExecutorInfo& info, int64_t now_ms,
                              int64_t registration_id) override;
  absl::Status RemoveExecutor(std::string_view app_name, std::string_view address,
                              int64_t register_ms, int64_t registration_id) override;
  absl::StatusOr<std::vector<v1::ExecutorInfo>> ListExecutors() override;
  absl::StatusOr<int64_t> PruneExecutors(int64_t before_ms) override;
  absl::StatusOr<bool> HasAdminTokens() override;
  absl::Status CreateAdminToken(std::string_view name, std::string_view sha256_hex, int64_t now_ms,
                                int64_t expire_ms, const TokenScope& scope) override;
  absl::StatusOr<v1::ApiToken> FindAdminToken(std::string_view sha256_hex) override;
  absl::StatusOr<std::vector<v1::ApiToken>> ListAdminTokens() override;
  absl::StatusOr<v1::ApiToken> RevokeAdminToken(std::string_view name, int64_t now_ms) override;
  absl::StatusOr<v1::User> CreateUser(const v1::User& user, std::string_view password_hash,
                                      int64_t now_ms) override;
  absl::StatusOr<StoredUser> GetUser(std::string_view name) override;
  absl::StatusOr<std::vector<v1::User>> ListUsers() override;
  absl::StatusOr<v1::User> UpdateUser(const v1::User& user,
                                      std::optional<std::string> password_hash,
                                      int64_t now_ms) override;
  absl::Status DeleteUser(std::string_view name, int64_t now_ms) override;
  absl::StatusOr<int64_t> DeleteEndedSessions(int64_t before_ms, int limit) override;
  absl::StatusOr<Leases> AcquireLeases(const std::vector<std::string>& names,
                                       std::string_view holder, int64_t ttl_ms) override;
  absl::Status ReleaseLeases(const std::vector<std::string>& names,
                             std::string_view holder) override;
  absl::Status DeleteExpiredLeases(const std::vector<std::string>& names,
                                   int64_t expired_before_ms) override;
  absl::StatusOr<Leases> ListLeases(std::string_view prefix) override;
  absl::Status Ping() override;
  // WorkflowStore.
  absl::StatusOr<v1::Workflow> CreateWorkflow(const v1::Workflow& workflow, int64_t next_fire_ms,
                                              int64_t now_ms) override;
  absl::StatusOr<v1::Workflow> GetWorkflow(int64_t workflow_id) override;
  absl::StatusOr<std::vector<v1::Workflow>> ListWorkflows(int64_t group_id) override;
  absl::StatusOr<v1::Workflow> UpdateWorkflow(const v1::Workflow& workflow,
                                              std::optional<int64_t> next_fire_ms,
                                              int64_t now_ms) override;
  absl::StatusOr<std::vector<DueWorkflow>> ListDueWorkflows(
      int64_t until_ms, int limit, const std::vector<int>& partitions) override;
  absl::StatusOr<bool> AdvanceWorkflow(int64_t workflow_id, int64_t expected_ms,
                                       int64_t next_ms) override;
  absl::Status DeleteWorkflow(int64_t workflow_id) override;
  absl::StatusOr<v1::WorkflowRun> CreateWorkflowRun(const v1::WorkflowRun& run,
                                                    int64_t now_ms) override;
  absl::StatusOr<v1::WorkflowRun> GetWorkflowRun(int64_t run_id) override;
  absl::StatusOr<v1::WorkflowRun> UpdateWorkflowRun(const v1::WorkflowRun& run,
                                                    int64_t now_ms) override;
  absl::StatusOr<std::vector<v1::WorkflowRun>> ListWorkflowRuns(int64_t workflow_id,
                                                                int limit) override;
  absl::StatusOr<std::vector<v1::WorkflowRun>> ListRunningWorkflowRuns(
      int limit, const std::vector<int>& partitions) override;
  // CalendarStore.
  absl::StatusOr<v1::Calendar> CreateCalendar(const v1::Calendar& calendar,
                                              int64_t now_ms) override;
  absl::StatusOr<v1::Calendar> GetCalendar(std::string_view name) override;
  absl::StatusOr<std::vector<v1::Calendar>> ListCalendars() override;
  absl::StatusOr<v1::Calendar> UpdateCalendar(const v1::Calendar& calendar,
                                              const std::vector<CalendarCursor>& cursors,
                                              int64_t now_ms) override;
  absl::Status DeleteCalendar(std::string_view name) override;
  absl::StatusOr<std::vector<CalendarUser>> ListCalendarUsers(std::string_view name) override;
  absl::StatusOr<TableVersion> GetCalendarsVersion() override;
  // AlarmChannelStore.
  absl::StatusOr<v1::AlarmChannel> CreateAlarmChannel(const v1::AlarmChannel& channel,
                                                      int64_t now_ms) override;
  absl::StatusOr<v1::AlarmChannel> GetAlarmChannel(std::string_view name) override;
  absl::StatusOr<std::vector<v1::AlarmChannel>> ListAlarmChannels() override;
  absl::StatusOr<v1::AlarmChannel> UpdateAlarmChannel(const v1::AlarmChannel& channel,
                                                      int64_t now_ms) override;
  absl::Status DeleteAlarmChannel(std::string_view name) override;
  absl::StatusOr<TableVersion> GetAlarmChannelsVersion() override;
  // PoolStore.
  absl::StatusOr<v1::Pool> CreatePool(const v1::Pool& pool, int64_t now_ms) override;
  absl::StatusOr<v1::Pool> GetPool(std::string_view name, int64_t now_ms) override;
  absl::StatusOr<std::vector<v1::Pool>> ListPools(int64_t now_ms) override;
  absl::StatusOr<v1::Pool> UpdatePool(const v1::Pool& pool, int64_t now_ms) override;
  absl::Status DeletePool(std::string_view name) override;
  absl::StatusOr<PoolQueue> ListPoolQueue(std::string_view name, int limit,
                                          int64_t now_ms) override;
  absl::StatusOr<std::vector<std::string>> ListQueuedPools(
      const std::vector<int>& partitions) override;
  absl::StatusOr<std::vector<v1::Run>> GrantPoolSlots(std::string_view pool,
                                                      const EpochOf& epoch_of,
                                                      int64_t now_ms) override;

 private:
  // Runs `fn` (a call on inner_) and reports it.
  template <typename Fn>
  auto Observed(StoreCall call, Fn&& fn) {
    const absl::Time start = absl::Now();
    auto result = fn();
    observer_->Observe(call, StatusOf(result), absl::Now() - start);
    return result;
  }
  static const absl::Status& StatusOf(const absl::Status& s) { return s; }
  template <typename T>
  static const absl::Status& StatusOf(const absl::StatusOr<T>& s) {
    return s.status();
  }

  Store* const inner_;
  StoreObserver* const observer_;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_OBSERVED_STORE_H_

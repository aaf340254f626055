#include "services/scheduler/admin_core.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/schedule/param_template.h"
#include "services/common/schedule/schedule.h"
#include "services/common/server/field_checks.h"
#include "services/common/server/grpc_status.h"
#include "services/common/server/run_queries.h"
#include "services/common/server/tokens.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/admin_requests.h"
#include "services/scheduler/alarm_channel_admin.h"
#include "services/scheduler/calendar_admin.h"
#include "services/scheduler/job_filter.h"
#include "services/scheduler/next_fire.h"
#include "services/scheduler/pool_admin.h"
#include "services/scheduler/route_plan.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

constexpr int kMaxBackfillSlots = 1000;

// A group as the API shows it: no tokens, and the previous token's expiry
// only while it is still accepted.
v1::Group WithoutToken(v1::Group g, int64_t now_ms) {
  g.clear_access_token();
  g.clear_previous_access_token();
  if (g.has_previous_token_expire_time() &&
      TimeUtil::TimestampToMilliseconds(g.previous_token_expire_time()) <= now_ms) {
    g.clear_previous_token_expire_time();
  }
  return g;
}

constexpr absl::Duration kMaxTokenGrace = absl::Hours(24 * 30);

// A backfill's first slot at or after `from_ms`. A fixed-rate job's slots lie
// on its own grid — its cursor, else its last fire, else (never started) the
// range's start — so the slots it fired are found taken, not fired again a
// millisecond off.
int64_t FirstBackfillSlot(const v1::Job& job, int64_t from_ms, const SlotRules& rules) {
  if (!job.schedule().has_fix_rate()) return SlotAfter(job, from_ms - 1, rules);
  const int64_t rate = TimeUtil::DurationToMilliseconds(job.schedule().fix_rate());
  int64_t anchor = from_ms;
  if (job.has_next_fire_time()) {
    anchor = TimeUtil::TimestampToMilliseconds(job.next_fire_time());
  } else if (job.has_last_fire_time()) {
    anchor = TimeUtil::TimestampToMilliseconds(job.last_fire_time());
  }
  const int64_t behind = anchor - from_ms;  // Whole periods of the grid back from the anchor.
  return AllowedSlot(
      job,
      behind >= 0 ? anchor - behind / rate * rate : anchor + (-behind + rate - 1) / rate * rate,
      rules);
}

absl::Status IdRequired(int64_t id, absl::string_view field) {
  if (id <= 0) return absl::InvalidArgumentError(absl::StrCat(field, ": must be a positive id"));
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::Group> AdminCore::FindGroup(int64_t group_id) {
  RETURN_IF_ERROR(IdRequired(group_id, "group_id"));
  absl::StatusOr<v1::Group> g = stores_.jobs->GetGroup(group_id);
  if (absl::IsNotFound(g.status())) {
    return absl::NotFoundError(absl::StrCat("group_id: group ", group_id, " does not exist"));
  }
  return g;
}

absl::StatusOr<v1::Job> AdminCore::FindJob(int64_t job_id) {
  RETURN_IF_ERROR(IdRequired(job_id, "job_id"));
  absl::StatusOr<v1::Job> j = stores_.jobs->GetJob(job_id);
  if (absl::IsNotFound(j.status())) {
    return absl::NotFoundError(absl::StrCat("job_id: job ", job_id, " does not exist"));
  }
  return j;
}

absl::StatusOr<v1::Group> AdminCore::CreateGroup(const v1::CreateGroupRequest& req) {
  RETURN_IF_ERROR(ValidateGroup(req.group()));
  v1::Group g = req.group();
  g.clear_id();
  g.clear_create_time();
  g.clear_update_time();
  g.clear_previous_access_token();
  g.clear_previous_token_expire_time();
  if (!g.has_manual()) g.mutable_auto_registration();
  g.set_access_token(NewToken());
  absl::StatusOr<v1::Group> created = stores_.jobs->CreateGroup(g, clock_->NowMillis());
  if (absl::IsAlreadyExists(created.status())) {
    return absl::AlreadyExistsError(absl::StrCat("group.app_name: a group for app ",
                                                 checks::Prefix(g.app_name()), " already exists"));
  }
  return created;  // The only answer that carries the token.
}

absl::StatusOr<v1::Group> AdminCore::GetGroup(int64_t group_id) {
  ASSIGN_OR_RETURN(v1::Group g, FindGroup(group_id));
  return WithoutToken(std::move(g), clock_->NowMillis());
}

absl::StatusOr<v1::ListGroupsResponse> AdminCore::ListGroups() {
  ASSIGN_OR_RETURN(std::vector<v1::Group> groups, stores_.jobs->ListGroups());
  v1::ListGroupsResponse resp;
  for (auto& g : groups) *resp.add_groups() = WithoutToken(std::move(g), clock_->NowMillis());
  return resp;
}

absl::StatusOr<v1::Group> AdminCore::UpdateGroup(const v1::UpdateGroupRequest& req) {
  RETURN_IF_ERROR(
      checks::FirstError({checks::CheckRange("group.id", req.group().id(), 1, INT64_MAX),
                          ValidateGroupUpdate(req.group()), ValidateUpdateGroupMask(req)}));
  ASSIGN_OR_RETURN(v1::Group current, FindGroup(req.group().id()));
  v1::Group g = current;
  bool title = req.update_mask().paths().empty();
  bool membership = title;
  for (const std::string& p : req.update_mask().paths()) {
    title = title || p == "title";
    membership = membership || p != "title";
  }
  if (title) g.set_title(req.group().title());
  if (membership) {
    if (req.group().has_manual()) {
      *g.mutable_manual() = req.group().manual();
    } else {
      g.mutable_auto_registration();
    }
  }
  RETURN_IF_ERROR(ValidateGroup(g));
  absl::StatusOr<v1::Group> updated = stores_.jobs->UpdateGroup(g, clock_->NowMillis());
  targets_->ForgetGroup(g.id());
  RETURN_IF_ERROR(updated);
  return WithoutToken(*std::move(updated), clock_->NowMillis());
}

absl::Status AdminCore::DeleteGroup(int64_t group_id) {
  RETURN_IF_ERROR(FindGroup(group_id));
  absl::Status s = stores_.jobs->DeleteGroup(group_id);
  targets_->ForgetGroup(group_id);
  return s;
}

absl::StatusOr<v1::Group> AdminCore::RotateGroupToken(const v1::RotateGroupTokenRequest& req) {
  absl::Duration grace = token_grace_;
  if (req.has_grace()) {
    const google::protobuf::Duration& d = req.grace();
    RETURN_IF_ERROR(checks::CheckDuration("grace", d, absl::ZeroDuration(), kMaxTokenGrace));
    grace = absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
  }
  ASSIGN_OR_RETURN(v1::Group g, FindGroup(req.group_id()));
  const int64_t now = clock_->NowMillis();
  // Only the token being replaced stays valid: rotating twice within a
  // grace period ends the older token's at once.
  g.clear_previous_access_token();
  g.clear_previous_token_expire_time();
  if (grace > absl::ZeroDuration()) {
    g.set_previous_access_token(g.access_token());
    *g.mutable_previous_token_expire_time() =
        TimeUtil::MillisecondsToTimestamp(now + absl::ToInt64Milliseconds(grace));
  }
  g.set_access_token(NewToken());
  absl::StatusOr<v1::Group> updated = stores_.jobs->UpdateGroup(g, now);
  targets_->ForgetGroup(req.group_id());
  RETURN_IF_ERROR(updated);
  updated->clear_previous_access_token();  // The new token is shown, this once; the old one never.
  return updated;
}

absl::StatusOr<store::NewJob> AdminCore::PrepareNewJob(const v1::CreateJobRequest& req,
                                                       int64_t now_ms) {
  RETURN_IF_ERROR(ValidateJobFields(req.job(), limits_));
  store::NewJob n;
  n.job = req.job();
  n.job.clear_id();
  n.job.clear_state();
  n.job.clear_next_fire_time();
  n.job.clear_create_time();
  n.job.clear_update_time();
  RETURN_IF_ERROR(ValidateJob(n.job, limits_, stores_.jobs));
  ASSIGN_OR_RETURN(std::shared_ptr<const schedule::Calendar> calendar,
                   CalendarOf(stores_.calendars, n.job.schedule(), "job.schedule.calendar"));
  RETURN_IF_ERROR(CheckAlarmChannelsExist(stores_.alarm_channels, n.job.alarm()));
  RETURN_IF_ERROR(CheckPoolExists(stores_.pools, n.job.pool(), "job.pool"));
  if (req.start()) {
    n.state = v1::JOB_STATE_RUNNING;
    n.next_fire_ms = FirstSlot(n.job, now_ms, {nullptr, calendar.get()});
    if (n.next_fire_ms == store::kNever) {
      return absl::FailedPreconditionError(
          "start: the schedule never fires; create it stopped and trigger it instead");
    }
  }
  return n;
}

absl::StatusOr<v1::Job> AdminCore::CreateJob(const v1::CreateJobRequest& req,
                                             std::string_view author) {
  const int64_t now = clock_->NowMillis();
  ASSIGN_OR_RETURN(store::NewJob n, PrepareNewJob(req, now));
  RETURN_IF_ERROR(CheckGroupQuota(n.job.group_id(), 1, "job.group_id"));
  absl::StatusOr<v1::Job> created =
      stores_.jobs->CreateJob(n.job, n.state, n.next_fire_ms, now, author);
  if (created.ok() && req.start()) loop_->Invalidate(created->id());
  return created;
}

absl::StatusOr<v1::BatchCreateJobsResponse> AdminCore::BatchCreateJobs(
    const v1::BatchCreateJobsRequest& req, std::string_view author) {
  constexpr int kMaxBatch = 1000;
  RETURN_IF_ERROR(checks::CheckCount("requests", req.requests_size(), kMaxBatch, 1));
  const int64_t now = clock_->NowMillis();
  std::vector<store::NewJob> jobs;
  jobs.reserve(req.requests_size());
  for (int i = 0; i < req.requests_size(); ++i) {
    absl::StatusOr<store::NewJob> n = PrepareNewJob(req.requests(i), now);
    if (!n.ok()) {
      return absl::Status(n.status().code(),
                          absl::StrCat("requests[", i, "].", n.status().message()));
    }
    jobs.push_back(*std::move(n));
  }
  // Per group: how many the batch adds, and the first request naming it.
  std::map<int64_t, std::pair<int64_t, int>> adding;
  for (int i = 0; i < static_cast<int>(jobs.size()); ++i) {
    auto [it, added] = adding.try_emplace(jobs[i].job.group_id(), 0, i);
    ++it->second.first;
  }
  for (const auto& [group_id, count_first] : adding) {
    RETURN_IF_ERROR(
        CheckGroupQuota(group_id, count_first.first,
                        absl::StrCat("requests[", count_first.second, "].job.group_id")));
  }
  ASSIGN_OR_RETURN(std::vector<v1::Job> created, stores_.jobs->CreateJobs(jobs, now, author));
  v1::BatchCreateJobsResponse resp;
  for (v1::Job& job : created) {
    if (job.state() == v1::JOB_STATE_RUNNING) loop_->Invalidate(job.id());
    *resp.add_jobs() = std::move(job);
  }
  return resp;
}

absl::Status AdminCore::CheckGroupQuota(int64_t group_id, int64_t adding, std::string_view field) {
  if (limits_.max_jobs_per_group <= 0) return absl::OkStatus();
  // Checked before the write, not in its transaction: concurrent creates may
  // pass it together, so the limit holds to within a batch or two.
  ASSIGN_OR_RETURN(int64_t held, stores_.jobs->CountGroupJobs(group_id));
  if (held + adding <= limits_.max_jobs_per_group) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      std::string(field), ": group ", group_id, " holds ", held, " jobs, and may hold at most ",
      limits_.max_jobs_per_group, " (gnomond's --max-jobs-per-group); delete some first"));
}

absl::StatusOr<v1::Job> AdminCore::GetJob(int64_t job_id) {
  ASSIGN_OR_RETURN(v1::Job job, FindJob(job_id));
  RETURN_IF_ERROR(AddLastRuns({&job}));
  return job;
}

absl::Status AdminCore::AddLastRuns(std::vector<v1::Job*> jobs) {
  std::vector<int64_t> ids;
  for (const v1::Job* j : jobs) ids.push_back(j->id());
  ASSIGN_OR_RETURN(std::vector<v1::Run> runs, stores_.runs->LastRuns(ids));
  absl::flat_hash_map<int64_t, const v1::Run*> by_job;
  for (const v1::Run& r : runs) by_job[r.job_id()] = &r;
  for (v1::Job* j : jobs) {
    auto it = by_job.find(j->id());
    if (it == by_job.end()) continue;
    const v1::Run& r = *it->second;
    v1::RunSummary* s = j->mutable_last_run();
    s->set_run_id(r.id());
    s->set_trigger_type(r.trigger_type());
    if (r.has_trigger_time()) *s->mutable_trigger_time() = r.trigger_time();
    s->set_status(r.status());
    s->set_handle_code(r.handle_code());
    if (r.has_end_time()) *s->mutable_end_time() = r.end_time();
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::ListExecutorsResponse> AdminCore::ListExecutors(
    const std::vector<int64_t>& groups) {
  ASSIGN_OR_RETURN(std::vector<v1::Group> all, stores_.jobs->ListGroups());
  v1::ListExecutorsResponse resp;
  for (const v1::Group& g : all) {
    if (!groups.empty() && std::find(groups.begin(), groups.end(), g.id()) == groups.end())
      continue;
    *resp.add_groups() = targets_->Members(g);
  }
  return resp;
}

absl::StatusOr<v1::ListJobsResponse> AdminCore::ListJobs(const v1::ListJobsRequest& req,
                                                         const std::vector<int64_t>& groups) {
  RETURN_IF_ERROR(ValidateListJobsRequest(req));
  int64_t after = *checks::ParsePageToken("page_token", req.page_token());
  const int want = req.page_size() == 0 ? 100 : req.page_size();
  const JobFilter filter(req);
  // Filters are read from each job's spec, so a filtered page is found by
  // scanning: at most kMaxScanned jobs per call, then a shorter page with a
  // token to go on from (ListJobsResponse says so).
  constexpr int kScanChunk = 500;
  constexpr int kMaxScanned = 20000;
  v1::ListJobsResponse resp;
  for (int scanned = 0; scanned < kMaxScanned;) {
    const int chunk = filter.empty() ? want + 1 : kScanChunk;
    ASSIGN_OR_RETURN(std::vector<v1::Job> jobs, stores_.jobs->ListJobs(groups, after, chunk));
    for (v1::Job& j : jobs) {
      ++scanned;
      if (!filter.Matches(j)) {
        after = j.id();
        continue;
      }
      if (resp.jobs_size() == want) {  // One more matches: there is a next page.
        resp.set_next_page_token(absl::StrCat(after));
        break;
      }
      after = j.id();
      *resp.add_jobs() = std::move(j);
    }
    if (!resp.next_page_token().empty() || static_cast<int>(jobs.size()) < chunk) break;
    if (scanned >= kMaxScanned) resp.set_next_page_token(absl::StrCat(after));
  }
  std::vector<v1::Job*> page;
  for (v1::Job& j : *resp.mutable_jobs()) page.push_back(&j);
  RETURN_IF_ERROR(AddLastRuns(std::move(page)));
  return resp;
}

absl::StatusOr<v1::Job> AdminCore::UpdateJob(const v1::UpdateJobRequest& req,
                                             std::string_view author) {
  RETURN_IF_ERROR(checks::CheckRange("job.id", req.job().id(), 1, INT64_MAX));
  ASSIGN_OR_RETURN(v1::Job current, FindJob(req.job().id()));
  v1::Job job = req.job();
  RETURN_IF_ERROR(ValidateJob(job, limits_, stores_.jobs));
  ASSIGN_OR_RETURN(std::shared_ptr<const schedule::Calendar> calendar,
                   CalendarOf(stores_.calendars, job.schedule(), "job.schedule.calendar"));
  RETURN_IF_ERROR(CheckAlarmChannelsExist(stores_.alarm_channels, job.alarm()));
  RETURN_IF_ERROR(CheckPoolExists(stores_.pools, job.pool(), "job.pool"));
  if (job.group_id() != current.group_id())
    RETURN_IF_ERROR(CheckGroupQuota(job.group_id(), 1, "job.group_id"));
  std::optional<int64_t> next;
  // Its slots change with the schedule, its start and end, and max_fires
  // (counted afresh by the store).
  const bool schedule_changed =
      job.schedule().SerializeAsString() != current.schedule().SerializeAsString() ||
      job.start_time().SerializeAsString() != current.start_time().SerializeAsString() ||
      job.end_time().SerializeAsString() != current.end_time().SerializeAsString() ||
      job.max_fires() != current.max_fires();
  if (current.state() == v1::JOB_STATE_RUNNING && schedule_changed) {
    next = FirstSlot(job, clock_->NowMillis(), {nullptr, calendar.get()});
  }
  absl::StatusOr<v1::Job> updated = stores_.jobs->UpdateJob(job, next, clock_->NowMillis(), author);
  loop_->Invalidate(job.id());
  return updated;
}

absl::Status AdminCore::DeleteJob(int64_t job_id, bool purge_runs) {
  RETURN_IF_ERROR(FindJob(job_id));
  absl::Status s = stores_.jobs->DeleteJob(job_id, purge_runs);
  loop_->Invalidate(job_id);
  return s;
}

absl::StatusOr<v1::Job> AdminCore::StartJob(int64_t job_id) {
  ASSIGN_OR_RETURN(v1::Job job, FindJob(job_id));
  // A running job with no next fire (its max_fires spent) starts afresh.
  if (job.state() == v1::JOB_STATE_RUNNING && job.has_next_fire_time()) return job;
  ASSIGN_OR_RETURN(std::shared_ptr<const schedule::Calendar> calendar,
                   CalendarOf(stores_.calendars, job.schedule(), "job_id: its schedule.calendar"));
  const int64_t next = FirstSlot(job, clock_->NowMillis(), {nullptr, calendar.get()});
  if (next == store::kNever) {
    if (job.has_end_time()) {
      return absl::FailedPreconditionError(
          absl::StrCat("job_id: job ", job_id, " has no slot left before its end_time"));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "job_id: job ", job_id, "'s schedule never fires by itself; trigger it instead"));
  }
  absl::StatusOr<v1::Job> started =
      stores_.jobs->SetJobState(job_id, v1::JOB_STATE_RUNNING, next, clock_->NowMillis());
  loop_->Invalidate(job_id);
  return started;
}

absl::StatusOr<v1::Job> AdminCore::StopJob(int64_t job_id) {
  RETURN_IF_ERROR(FindJob(job_id));
  absl::StatusOr<v1::Job> stopped =
      stores_.jobs->SetJobState(job_id, v1::JOB_STATE_STOPPED, store::kNever, clock_->NowMillis());
  loop_->Invalidate(job_id);
  return stopped;
}

absl::StatusOr<v1::TriggerJobResponse> AdminCore::TriggerJob(const v1::TriggerJobRequest& req) {
  RETURN_IF_ERROR(ValidateTriggerRequest(req, limits_));
  ASSIGN_OR_RETURN(v1::Job job, FindJob(req.job_id()));
  FireSpec f;
  f.job = std::make_shared<const v1::Job>(std::move(job));
  f.type = req.trigger_type() == v1::TRIGGER_TYPE_MANUAL ? v1::TRIGGER_TYPE_MANUAL
                                                         : v1::TRIGGER_TYPE_API;
  if (req.has_params()) {  // Valid (ValidateTriggerRequest): rendered now.
    ASSIGN_OR_RETURN(f.params, schedule::RenderParams(req.params(), clock_->Now(),
                                                      schedule::ZoneOf(f.job->schedule())));
  }
  f.addresses.assign(req.executor_addresses().begin(), req.executor_addresses().end());
  RETURN_IF_ERROR(targets_->CheckMembers(f.job->group_id(), f.addresses));
  if (req.has_shard_index()) {
    if (!IsShardingBroadcast(*f.job)) {
      return absl::InvalidArgumentError("shard_index: the job is not a sharding broadcast");
    }
    f.shard = req.shard_index();
  }
  std::vector<FireSpec> fires;
  fires.push_back(std::move(f));
  ASSIGN_OR_RETURN(std::vector<FireOutcome> out, sink_->Fire(std::move(fires)));
  v1::TriggerJobResponse resp;
  for (int64_t id : out[0].run_ids) resp.add_run_ids(id);
  if (resp.run_ids().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("shard_index: shard ", req.shard_index(),
                                                   " does not exist for the current executors"));
  }
  return resp;
}

absl::StatusOr<v1::PreviewScheduleResponse> AdminCore::PreviewSchedule(
    const v1::PreviewScheduleRequest& req) {
  RETURN_IF_ERROR(ValidatePreviewRequest(req, limits_));
  ASSIGN_OR_RETURN(std::shared_ptr<const schedule::Calendar> calendar,
                   CalendarOf(stores_.calendars, req.schedule(), "schedule.calendar"));
  absl::Time from = req.has_from_time()
                        ? absl::FromUnixMillis(TimeUtil::TimestampToMilliseconds(req.from_time()))
                        : clock_->Now();
  ASSIGN_OR_RETURN(
      std::vector<absl::Time> times,
      schedule::Preview(req.schedule(), from, req.count() == 0 ? 10 : req.count(), calendar.get()));
  std::optional<schedule::ParamTemplate> params;
  if (!req.params().empty()) {
    ASSIGN_OR_RETURN(params, schedule::ParamTemplate::Parse(req.params()));
  }
  const absl::TimeZone zone = schedule::ZoneOf(req.schedule());
  v1::PreviewScheduleResponse resp;
  for (absl::Time t : times) {
    *resp.add_fire_times() = TimeUtil::MillisecondsToTimestamp(absl::ToUnixMillis(t));
    if (params) resp.add_params(params->Render(t, zone));
  }
  return resp;
}

absl::StatusOr<v1::BackfillResponse> AdminCore::Backfill(const v1::BackfillRequest& req) {
  RETURN_IF_ERROR(ValidateBackfillRequest(req));
  ASSIGN_OR_RETURN(v1::Job job, FindJob(req.job_id()));
  const int64_t from = TimeUtil::TimestampToMilliseconds(req.start_time());
  const int64_t to = TimeUtil::TimestampToMilliseconds(req.end_time());
  if (to <= from) return absl::InvalidArgumentError("end_time: must be after start_time");
  if (to > clock_->NowMillis())
    return absl::InvalidArgumentError("end_time: must not be in the future");
  if (!job.schedule().has_cron() && !job.schedule().has_fix_rate()) {
    return absl::FailedPreconditionError(
        "job_id: only cron and fixed-rate jobs have slots to backfill");
  }
  std::vector<FireSpec> fires;
  auto shared = std::make_shared<const v1::Job>(job);
  ASSIGN_OR_RETURN(std::shared_ptr<const schedule::Calendar> calendar,
                   CalendarOf(stores_.calendars, job.schedule(), "job_id: its schedule.calendar"));
  const SlotRules rules{nullptr, calendar.get()};
  for (int64_t slot = FirstBackfillSlot(job, from, rules); slot != store::kNever && slot < to;
       slot = SlotAfter(job, slot, rules)) {
    if (static_cast<int>(fires.size()) == kMaxBackfillSlots) {
      return absl::InvalidArgumentError(absl::StrCat("end_time: the range holds more than ",
                                                     kMaxBackfillSlots, " slots; split it"));
    }
    FireSpec f;
    f.job = shared;
    f.type = v1::TRIGGER_TYPE_BACKFILL;
    f.scheduled_ms = slot;
    fires.push_back(std::move(f));
  }
  v1::BackfillResponse resp;
  if (fires.empty()) return resp;
  ASSIGN_OR_RETURN(std::vector<FireOutcome> out, sink_->Fire(std::move(fires)));
  for (const FireOutcome& o : out) {
    for (int64_t id : o.run_ids) resp.add_run_ids(id);
  }
  return resp;
}

absl::StatusOr<v1::KillRunResponse> AdminCore::KillRun(int64_t run_id) {
  ASSIGN_OR_RETURN(v1::Run run, GetRun(stores_.runs, run_id));
  if (IsTerminal(run.status())) {
    return absl::FailedPreconditionError(
        absl::StrCat("run_id: run ", run_id, " has already ended"));
  }
  if (run.status() == v1::RUN_STATUS_QUEUED) {
    // Never sent: it leaves its pool's queue, failed as killed (its
    // follow-ups, alarms and workflow moves as for any killed run).
    ASSIGN_OR_RETURN(int64_t n, stores_.runs->FailRuns(
                                    {run_id}, v1::HANDLE_CODE_KILLED,
                                    "killed by an admin while queued for pool '" + run.pool() + "'",
                                    clock_->NowMillis()));
    v1::KillRunResponse resp;
    resp.set_found(n > 0);
    return resp;
  }
  if (run.executor_address().empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("run_id: run ", run_id, " has not reached an executor yet"));
  }
  ASSIGN_OR_RETURN(v1::Group g, stores_.jobs->GetGroup(run.group_id()));
  v1::KillRequest kreq;
  kreq.set_run_id(run_id);
  kreq.set_reason("killed by an admin");
  ASSIGN_OR_RETURN(v1::KillResponse kresp,
                   executors_->Kill(run.executor_address(), g.app_name(), kreq, absl::Seconds(5)));
  v1::KillRunResponse resp;
  resp.set_found(kresp.found());
  return resp;
}

}  // namespace gnomon::scheduler

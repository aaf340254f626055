#include "services/scheduler/followups.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"
#include "services/common/server/field_checks.h"
#include "services/scheduler/route_plan.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

int64_t Ms(const google::protobuf::Timestamp& t) { return TimeUtil::TimestampToMilliseconds(t); }

}  // namespace

absl::Duration RetryDelay(const v1::RetryPolicy& policy, uint32_t attempt) {
  const double multiplier = policy.multiplier() < 1 ? 1 : policy.multiplier();
  const double initial_ms = TimeUtil::DurationToMilliseconds(policy.initial_delay());
  double ms = initial_ms * std::pow(multiplier, attempt > 0 ? attempt - 1 : 0);
  if (policy.has_max_delay() && TimeUtil::DurationToMilliseconds(policy.max_delay()) > 0) {
    ms = std::min<double>(ms, TimeUtil::DurationToMilliseconds(policy.max_delay()));
  }
  return absl::Milliseconds(std::min(ms, 1e12));
}

bool AlarmsOn(const v1::Job& job, bool success) {
  const v1::AlarmOn on = job.alarm().on();
  return success ? on == v1::ALARM_ON_SUCCESS || on == v1::ALARM_ON_BOTH
                 : on != v1::ALARM_ON_SUCCESS;
}

bool SuccessHasFollowups(const v1::Job& job) {
  // A success counts a pausing job's failures from 0 again.
  return !job.child_job_ids().empty() || job.schedule().has_fix_delay() ||
         job.pause_after_failures() > 0 || AlarmsOn(job, /*success=*/true);
}

bool Followups::AllShardsSucceeded(const v1::Run& run, int64_t* anchor_run_id) {
  absl::StatusOr<v1::Run> first =
      runs_->GetRun(run.first_run_id() > 0 ? run.first_run_id() : run.id());
  if (!first.ok()) return false;
  store::RunFilter filter;
  filter.job_id = run.job_id();
  const int64_t t = Ms(first->trigger_time());
  filter.trigger_from_ms = t;  // All attempts were triggered at or after the first.
  filter.limit = 10000;
  absl::StatusOr<std::vector<v1::Run>> runs = runs_->ListRuns(filter);
  if (!runs.ok()) return false;
  // First attempts of the same fire: same slot (or trigger instant) and total.
  std::map<uint32_t, int64_t> shard_first;  // shard -> first attempt id
  for (const v1::Run& r : *runs) {
    if (r.attempt() != 0 || r.shard_total() != first->shard_total()) continue;
    const bool same =
        first->has_scheduled_time()
            ? r.has_scheduled_time() && Ms(r.scheduled_time()) == Ms(first->scheduled_time())
            : Ms(r.trigger_time()) == t;
    if (same) shard_first[r.shard_index()] = r.id();
  }
  if (shard_first.size() != first->shard_total()) return false;
  for (const auto& entry : shard_first) {
    const int64_t first_id = entry.second;
    const bool ok = std::any_of(runs->begin(), runs->end(), [&](const v1::Run& r) {
      return (r.first_run_id() == first_id || r.id() == first_id) &&
             r.status() == v1::RUN_STATUS_SUCCEEDED;
    });
    if (!ok) return false;
  }
  *anchor_run_id = shard_first.begin()->second;
  return true;
}

bool Followups::FireChildren(const v1::Run& run, const v1::Job& job) {
  if (job.child_job_ids().empty()) return true;
  int64_t parent = run.id();
  if (IsShardingBroadcast(job) &&
      job.child_trigger_mode() == v1::CHILD_TRIGGER_MODE_ALL_SHARDS_SUCCEEDED &&
      run.shard_total() > 1) {
    // The shard that completes the set fires the children, once, parented on
    // shard 0's first attempt so concurrent completions collapse.
    if (!AllShardsSucceeded(run, &parent)) return true;
  }
  std::vector<FireSpec> fires;
  for (int64_t child_id : job.child_job_ids()) {
    absl::StatusOr<v1::Job> child = jobs_->GetJob(child_id);
    if (absl::IsNotFound(child.status())) continue;  // Deleted since.
    if (!child.ok()) return false;
    FireSpec f;
    f.job = std::make_shared<const v1::Job>(*std::move(child));
    f.type = v1::TRIGGER_TYPE_PARENT;
    f.parent_run_id = parent;
    fires.push_back(std::move(f));
  }
  if (fires.empty()) return true;
  absl::StatusOr<std::vector<FireOutcome>> out = sink_->Fire(std::move(fires));
  if (!out.ok())
    GNOMON_LOG(WARNING) << "scheduler: child jobs of run " << run.id() << ": " << out.status();
  return out.ok();
}

bool Followups::CountEnd(const v1::Run& run, const v1::Job& job, bool failed, std::string* paused) {
  const uint32_t limit = job.pause_after_failures();
  if (limit == 0) return true;
  absl::StatusOr<uint32_t> failures = jobs_->RecordJobEnd(job.id(), run.id(), failed);
  if (absl::IsNotFound(failures.status())) return true;  // Deleted since.
  if (!failures.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: counting run " << run.id() << " of job " << job.id() << ": "
                        << failures.status();
    return false;
  }
  if (!failed || *failures < limit) return true;
  const std::string reason =
      absl::StrCat("paused after ", *failures, " consecutive failures; the last, run ", run.id(),
                   ": ", checks::Prefix(run.handle_message()));
  absl::StatusOr<bool> now_paused = jobs_->PauseJob(job.id(), reason, clock_->NowMillis());
  if (!now_paused.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: pausing job " << job.id() << ": " << now_paused.status();
    return false;
  }
  if (*now_paused) {
    loop_->Invalidate(job.id());  // Fires nothing more of it from now.
    GNOMON_LOG(INFO) << "scheduler: job " << job.id() << " " << reason;
    if (metrics_ != nullptr) metrics_->JobPaused();
    if (paused != nullptr) *paused = absl::StrCat("; the job is ", reason);
  }
  return true;
}

bool Followups::EndNode(const v1::Run& run) {
  if (run.workflow_run_id() <= 0 || workflows_ == nullptr) return true;
  absl::StatusOr<v1::WorkflowRun> moved = workflows_->NodeEnded(
      run.workflow_run_id(), run.workflow_node(), run.workflow_attempt(),
      static_cast<int>(run.shard_index()), static_cast<int>(run.shard_total()),
      {.handle_code = run.handle_code(), .output = run.output()});
  // Gone: the workflow (and its runs) was deleted since.
  if (moved.ok() || absl::IsNotFound(moved.status())) return true;
  GNOMON_LOG(WARNING) << "scheduler: workflow run " << run.workflow_run_id() << " node "
                      << run.workflow_node() << " (run " << run.id() << "): " << moved.status();
  return false;
}

bool Followups::Handle(const v1::Run& run, const absl::StatusOr<v1::Job>& job, int64_t now_ms,
                       int64_t* next_due_ms, std::optional<store::JobAdvance>* reschedule) {
  if (absl::IsNotFound(job.status())) return EndNode(run);
  if (!job.ok()) return false;
  if (run.status() == v1::RUN_STATUS_FAILED) {
    // Killed runs were stopped on purpose: no retry, no alarm.
    const bool killed = run.handle_code() == v1::HANDLE_CODE_KILLED;
    const bool retry = !killed && run.attempt() < job->retry().max_retries();
    // Raise never blocks. It is called once the follow-up is about to be
    // completed (a delayed retry comes back here until it is due).
    auto raise = [&](std::string reason) {
      if (alarms_ != nullptr && AlarmsOn(*job, /*success=*/false)) {
        alarms_->Raise({*job, run, std::move(reason)});
      }
    };
    if (retry) {
      int64_t due = Ms(run.end_time()) +
                    absl::ToInt64Milliseconds(RetryDelay(job->retry(), run.attempt() + 1));
      if (run.handle_code() == v1::HANDLE_CODE_EXECUTOR_LOST) {
        // Until then a late result may still replace the verdict (this
        // follow-up then sees the run's real end instead).
        due =
            std::max(due, Ms(run.end_time()) + absl::ToInt64Milliseconds(options_.lost_retry_wait));
      }
      if (due > now_ms) {
        *next_due_ms = std::min(*next_due_ms, due);
        return false;
      }
      if (options_.alarm_every_attempt)
        raise(absl::StrCat("attempt ", run.attempt() + 1, " failed"));
      FireSpec f;
      f.job = std::make_shared<const v1::Job>(*job);
      f.type = v1::TRIGGER_TYPE_RETRY;
      if (run.has_scheduled_time()) f.scheduled_ms = Ms(run.scheduled_time());
      f.params = run.params();
      f.shard = run.shard_index();
      f.shard_total = run.shard_total();
      f.attempt = run.attempt() + 1;
      f.first_run_id = run.first_run_id() > 0 ? run.first_run_id() : run.id();
      f.parent_run_id = run.parent_run_id();
      f.workflow_run_id = run.workflow_run_id();  // A workflow node's retry is the node's.
      f.workflow_node = run.workflow_node();
      f.workflow_attempt = run.workflow_attempt();
      f.inputs.assign(run.inputs().begin(), run.inputs().end());
      if (run.has_deadline_time()) f.deadline_ms = Ms(run.deadline_time());
      std::vector<FireSpec> fires;
      fires.push_back(std::move(f));
      absl::StatusOr<std::vector<FireOutcome>> out = sink_->Fire(std::move(fires));
      if (!out.ok())
        GNOMON_LOG(WARNING) << "scheduler: retry of run " << run.id() << ": " << out.status();
      return out.ok();  // The retry's own end decides what follows.
    }
    if (!EndNode(run)) return false;
    if (!killed) {
      std::string paused;
      if (!CountEnd(run, *job, /*failed=*/true, &paused)) return false;
      raise(absl::StrCat("failed after ", run.attempt() + 1, " attempt(s)", paused));
    }
  } else if (!FireChildren(run, *job) || !EndNode(run) || !CountEnd(run, *job, false, nullptr)) {
    return false;
  } else if (alarms_ != nullptr && AlarmsOn(*job, /*success=*/true)) {
    alarm::Alarm a{*job, run, absl::StrCat("succeeded after ", run.attempt() + 1, " attempt(s)")};
    a.kind = alarm::AlarmKind::kSucceeded;
    alarms_->Raise(std::move(a));
  }
  // FIX_DELAY: the next scheduled fire is this (final) run's end + delay,
  // written by the schedule loop (Tick sends the batch's in one message).
  if (job->schedule().has_fix_delay() && run.has_scheduled_time() &&
      job->state() == v1::JOB_STATE_RUNNING) {
    store::JobAdvance a;
    a.job_id = job->id();
    a.expected_next_fire_ms = store::kNever;
    a.next_fire_ms =
        Ms(run.end_time()) + TimeUtil::DurationToMilliseconds(job->schedule().fix_delay());
    a.last_fire_ms = Ms(run.scheduled_time());
    *reschedule = a;
  }
  return true;
}

absl::Duration Followups::PollInterval(int64_t now_ms) {
  if (workflows_ == nullptr) return options_.poll_interval;
  // Asked at most once a look while none was running (a burst's follow-ups
  // look far more often), once a workflow_check_interval while one was.
  const absl::Duration every =
      workflows_running_ ? options_.workflow_check_interval : options_.poll_interval;
  if (now_ms - workflows_checked_ms_ >= absl::ToInt64Milliseconds(every)) {
    absl::StatusOr<bool> running = workflows_->AnyRunning();
    if (running.ok()) {
      workflows_running_ = *running;
      workflows_checked_ms_ = now_ms;
    }  // Else as last asked, asked again at the next look.
  }
  return workflows_running_ ? options_.workflow_poll_interval : options_.poll_interval;
}

absl::Time Followups::Tick() {
  const int64_t now = clock_->NowMillis();
  int64_t next_due = now + absl::ToInt64Milliseconds(options_.poll_interval);
  const std::optional<std::vector<int>> partitions = held_.At(now);  // Empty: all.
  if (!partitions) return absl::FromUnixMillis(next_due);
  next_due = now + absl::ToInt64Milliseconds(PollInterval(now));
  absl::StatusOr<std::vector<v1::Run>> runs =
      outbox_->ListPendingFollowups(options_.batch, now, *partitions);
  if (!runs.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: reading follow-ups failed: " << runs.status();
    return absl::FromUnixMillis(next_due);
  }
  std::vector<int64_t> done;
  std::vector<std::pair<int64_t, int64_t>> deferred;  // (run, due ms): retries not yet due
  // The batch's jobs in one read (thousands of distinct jobs end on the same
  // second); a job missing from the answer was deleted.
  absl::flat_hash_map<int64_t, absl::StatusOr<v1::Job>> jobs;
  {
    std::vector<int64_t> ids;
    for (const v1::Run& r : *runs) {
      if (jobs.try_emplace(r.job_id(), absl::NotFoundError("job was deleted")).second) {
        ids.push_back(r.job_id());
      }
    }
    absl::StatusOr<std::vector<v1::Job>> read = jobs_->GetJobs(ids);
    if (!read.ok()) {
      GNOMON_LOG(WARNING) << "scheduler: reading follow-ups' jobs failed: " << read.status();
      return absl::FromUnixMillis(next_due);
    }
    for (v1::Job& job : *read) jobs.insert_or_assign(job.id(), std::move(job));
  }
  int64_t due = next_due;
  // FIX_DELAY next fires, and the runs done once they are written.
  std::vector<store::JobAdvance> reschedules;
  std::vector<int64_t> rescheduled;
  for (const v1::Run& r : *runs) {
    auto it = jobs.find(r.job_id());
    int64_t run_due = std::numeric_limits<int64_t>::max();
    std::optional<store::JobAdvance> reschedule;
    if (Handle(r, it->second, now, &run_due, &reschedule)) {
      if (reschedule) {
        reschedules.push_back(*reschedule);
        rescheduled.push_back(r.id());
      } else {
        done.push_back(r.id());
      }
    } else if (run_due != std::numeric_limits<int64_t>::max()) {
      deferred.emplace_back(r.id(), run_due);
      due = std::min(due, run_due);
    }
  }
  if (!reschedules.empty()) {
    // One message for the batch: the loop owns the cursors (ScheduleLoop::Reschedule).
    if (absl::Status s = loop_->Reschedule(std::move(reschedules)); s.ok()) {
      done.insert(done.end(), rescheduled.begin(), rescheduled.end());
    } else {
      GNOMON_LOG(WARNING) << "scheduler: the next fires of " << rescheduled.size()
                          << " FIX_DELAY job(s) were not written (they will be redone): " << s;
    }
  }
  if (!done.empty()) {
    if (absl::Status s = outbox_->CompleteFollowups(done); !s.ok()) {
      GNOMON_LOG(WARNING) << "scheduler: completing follow-ups failed (they will be redone): " << s;
    }
  }
  // Out of the listing until due, so they cannot crowd out later follow-ups.
  if (absl::Status s = outbox_->DeferFollowups(deferred); !s.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: deferring follow-ups failed (they stay listed): " << s;
  }
  // A full batch that made progress: more are likely waiting, go again now.
  if (static_cast<int>(runs->size()) == options_.batch && !done.empty()) return clock_->Now();
  return absl::FromUnixMillis(std::min(due, next_due));
}

}  // namespace gnomon::scheduler

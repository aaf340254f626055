#include "services/scheduler/run_recorder.h"

#include <string>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"
#include "services/common/schedule/param_template.h"
#include "services/common/schedule/schedule.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/followups.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

std::string HandlerName(const v1::Job& job) {
  if (job.has_script()) {
    switch (job.script().language()) {
      case v1::SCRIPT_LANGUAGE_PYTHON:
        return "script:python";
      case v1::SCRIPT_LANGUAGE_NODEJS:
        return "script:nodejs";
      case v1::SCRIPT_LANGUAGE_POWERSHELL:
        return "script:powershell";
      default:
        return "script:shell";
    }
  }
  return job.bean().handler();
}

}  // namespace

std::string RunRecorder::ParamsOf(const FireSpec& f, int64_t now_ms) {
  if (f.params) return *f.params;  // Final already (a retry's, a trigger's, a workflow run's).
  const std::string& text = f.job->params();
  if (!schedule::ParamTemplate::HasExpressions(text)) return text;
  const int64_t at = f.params_at_ms > 0   ? f.params_at_ms
                     : f.scheduled_ms > 0 ? f.scheduled_ms
                                          : now_ms;
  absl::StatusOr<std::string> rendered =
      schedule::RenderParams(text, absl::FromUnixMillis(at), schedule::ZoneOf(f.job->schedule()));
  if (rendered.ok()) return *std::move(rendered);
  // Saved before templates were checked: run with the text as written.
  bool first;
  {
    absl::MutexLock l(&mu_);
    first = unrendered_jobs_.insert(f.job->id()).second;
  }
  if (first) {
    GNOMON_LOG(WARNING) << "scheduler: job " << f.job->id()
                        << "'s params are not a valid template, so its runs get them as written "
                           "(write '$$[' for a literal '$['): "
                        << rendered.status().message();
  }
  return text;
}

void RunRecorder::set_ownership(std::shared_ptr<const Ownership> ownership) {
  absl::MutexLock l(&mu_);
  ownership_ = std::move(ownership);
}

absl::StatusOr<RecordedFires> RunRecorder::Record(const std::vector<FireSpec>& fires,
                                                  const std::vector<RoutePlan>& plans) {
  const int64_t now = clock_->NowMillis();
  std::shared_ptr<const Ownership> ownership;
  {
    absl::MutexLock l(&mu_);
    ownership = ownership_;
  }
  std::vector<v1::Run> runs;
  RecordedFires out;
  out.outcomes.resize(fires.size());
  for (size_t i = 0; i < fires.size(); ++i) {
    const FireSpec& f = fires[i];
    const std::string params = plans[i].runs.empty() ? std::string() : ParamsOf(f, now);
    int64_t deadline = f.deadline_ms;
    if (deadline == 0 && f.job->has_deadline()) {
      const int64_t after = TimeUtil::DurationToMilliseconds(f.job->deadline());
      if (after > 0) deadline = (f.scheduled_ms > 0 ? f.scheduled_ms : now) + after;
    }
    for (size_t k = 0; k < plans[i].runs.size(); ++k) {
      const PlannedRun& p = plans[i].runs[k];
      v1::Run& r = runs.emplace_back();
      r.set_job_id(f.job->id());
      r.set_group_id(f.job->group_id());
      r.set_trigger_type(f.type);
      if (f.scheduled_ms > 0)
        *r.mutable_scheduled_time() = TimeUtil::MillisecondsToTimestamp(f.scheduled_ms);
      *r.mutable_trigger_time() = TimeUtil::MillisecondsToTimestamp(now);
      r.set_handler(HandlerName(*f.job));
      r.set_params(params);
      if (deadline > 0) *r.mutable_deadline_time() = TimeUtil::MillisecondsToTimestamp(deadline);
      r.set_shard_index(p.shard_index);
      r.set_shard_total(p.shard_total);
      r.set_parent_run_id(f.parent_run_id);
      r.set_attempt(f.attempt);
      r.set_first_run_id(f.first_run_id);
      r.set_workflow_run_id(f.workflow_run_id);
      r.set_workflow_node(f.workflow_node);
      r.set_workflow_attempt(f.workflow_attempt);
      r.mutable_inputs()->Assign(f.inputs.begin(), f.inputs.end());
      // A job with a pool records its runs QUEUED for a slot (PoolGranter
      // lets them go); the others are sent at once.
      if (f.job->pool().empty()) {
        r.set_status(v1::RUN_STATUS_PENDING);
      } else {
        r.set_status(v1::RUN_STATUS_QUEUED);
        r.set_pool(f.job->pool());
        r.set_priority(f.job->priority());
        *r.mutable_queued_time() = TimeUtil::MillisecondsToTimestamp(now);
      }
      r.set_fence_epoch(ownership ? ownership->EpochOfJob(f.job->id()) : 0);
      // A workflow node's end always moves its workflow run on.
      r.set_success_has_followups(SuccessHasFollowups(*f.job) || f.workflow_run_id > 0);
      out.runs.push_back({i, k, {}});
    }
  }
  // From here until each run is handed on, the runs are this replica's to
  // send; a failed call may still have committed them (Redispatcher).
  if (in_flight_ != nullptr) in_flight_->BeginRecording(now);
  absl::Cleanup recorded = [&] {
    if (in_flight_ != nullptr) in_flight_->EndRecording(now);
  };
  ASSIGN_OR_RETURN(std::vector<store::RunInsertOutcome> inserted, store_->InsertRuns(runs));

  // Keep only the runs that took their slot, moving each into its entry.
  size_t kept = 0;
  for (size_t k = 0; k < runs.size(); ++k) {
    FireOutcome& outcome = out.outcomes[out.runs[k].fire];
    if (!inserted[k].inserted) {
      outcome.slot_already_fired = true;
      continue;
    }
    v1::Run& r = runs[k];
    r.set_id(inserted[k].run_id);
    if (in_flight_ != nullptr && r.status() == v1::RUN_STATUS_PENDING) in_flight_->Sending(r.id());
    if (r.first_run_id() == 0) r.set_first_run_id(r.id());
    outcome.run_ids.push_back(r.id());
    const size_t fire = out.runs[k].fire;
    const size_t planned = out.runs[k].planned;
    out.runs[kept++] = RecordedRun{fire, planned, std::move(r)};
  }
  out.runs.resize(kept);
  return out;
}

}  // namespace gnomon::scheduler

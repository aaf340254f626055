#include "services/scheduler/resender.h"

#include <utility>

namespace gnomon::scheduler {
namespace {

// The fire a recorded run of `job` is routed as when sent again: its shard
// of its total, among the job's group.
FireSpec ResendSpec(const v1::Run& run, std::shared_ptr<const v1::Job> job) {
  FireSpec f;
  f.job = std::move(job);
  f.shard = run.shard_index();
  f.shard_total = run.shard_total();
  return f;
}

}  // namespace

std::optional<absl::flat_hash_map<int64_t, std::shared_ptr<const v1::Job>>> Resender::JobsOf(
    const std::vector<v1::Run>& runs) {
  std::vector<int64_t> ids;
  for (const v1::Run& r : runs) ids.push_back(r.job_id());
  absl::StatusOr<std::vector<v1::Job>> read = store_->GetJobs(ids);
  if (!read.ok()) return std::nullopt;
  absl::flat_hash_map<int64_t, std::shared_ptr<const v1::Job>> jobs;
  for (v1::Job& j : *read) {
    const int64_t id = j.id();  // Read before the move (the right side is evaluated first).
    jobs[id] = std::make_shared<const v1::Job>(std::move(j));
  }
  return jobs;
}

void Resender::Resend(std::vector<v1::Run> runs, std::shared_ptr<const Ownership> ownership) {
  auto read = JobsOf(runs);
  if (!read) return;  // The Redispatcher tries again later.
  const auto& jobs = *read;
  for (v1::Run& run : runs) {
    auto job = jobs.find(run.job_id());
    if (job == jobs.end()) {
      deliveries_->FailUnsent(run, "job was deleted before its run was sent");
      continue;
    }
    const FireSpec f = ResendSpec(run, job->second);
    absl::StatusOr<DispatchTargets> targets = targets_->TargetsOf(f);
    if (!targets.ok()) continue;
    const RoutePlan plan = PlanRoute(f, *targets->executors);
    if (plan.runs.empty()) continue;
    run.set_fence_epoch(ownership->EpochOfJob(run.job_id()));
    // Recorded runs are in flight from their recording (RunRecorder); a
    // resent one from here.
    if (in_flight_ != nullptr) in_flight_->Sending(run.id());
    const int64_t at = internal::InstantOf(run);
    deliveries_->Send(std::move(run), job->second, plan.runs.front(), *std::move(targets), at);
  }
}

void Resender::Ask(std::vector<v1::Run> runs, std::shared_ptr<const Ownership> ownership,
                   InDoubtDone done) {
  auto read = JobsOf(runs);
  if (!read) {
    for (const v1::Run& run : runs) done(run.id(), InDoubt::kUnknown);
    return;
  }
  for (v1::Run& run : runs) {
    const int64_t run_id = run.id();
    auto job = read->find(run.job_id());
    if (job == read->end()) {
      done(run_id, InDoubt::kUnknown);  // Resend fails the run of a deleted job.
      continue;
    }
    const FireSpec f = ResendSpec(run, job->second);
    absl::StatusOr<DispatchTargets> targets = targets_->TargetsOf(f);
    bool askable = targets.ok() && targets->registered && !targets->executors->empty();
    for (size_t i = 0; askable && i < targets->executors->size(); ++i) {
      askable = (*targets->executors)[i].answers_probes();
    }
    const RoutePlan plan = askable ? PlanRoute(f, *targets->executors) : RoutePlan{};
    if (!askable || plan.runs.empty()) {
      done(run_id, InDoubt::kUnknown);
      continue;
    }
    run.set_fence_epoch(ownership->EpochOfJob(run.job_id()));
    // In flight here from the question on: the run reaper leaves it alone.
    if (in_flight_ != nullptr) in_flight_->Sending(run_id);
    deliveries_->Ask(std::move(run), job->second, plan.runs.front(), *std::move(targets), done);
  }
}

}  // namespace gnomon::scheduler

#include "services/scheduler/trigger.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"

namespace gnomon::scheduler {
namespace {

// How long a fire waits for the dispatch outcomes before it fails (the loop
// then re-reads and fires again: nothing is lost).
constexpr absl::Duration kOutcomePatience = absl::Seconds(30);

}  // namespace

absl::StatusOr<std::vector<FireOutcome>> Trigger::Fire(std::vector<FireSpec> fires) {
  // Back-pressure from the store: new runs wait while earlier runs' outcomes
  // are not yet written, so a store slower than the work offered shows as
  // lateness (and, past a job's threshold, as misfires), not as memory.
  if (outcomes_ != nullptr && !outcomes_->AwaitRoom(kOutcomePatience)) {
    return absl::UnavailableError(absl::StrCat("the store is behind: ", outcomes_->queued(),
                                               " dispatch outcomes still to be written"));
  }
  std::vector<DispatchTargets> targets;
  std::vector<RoutePlan> plans;
  targets.reserve(fires.size());
  plans.reserve(fires.size());
  for (const FireSpec& f : fires) {
    ASSIGN_OR_RETURN(DispatchTargets t, targets_->TargetsOf(f));
    plans.push_back(PlanRoute(f, *t.executors));
    targets.push_back(std::move(t));
  }
  ASSIGN_OR_RETURN(RecordedFires recorded, recorder_->Record(fires, plans));
  if (metrics_ != nullptr) {
    for (size_t i = 0; i < fires.size(); ++i) {
      const FireOutcome& o = recorded.outcomes[i];
      if (o.slot_already_fired && o.run_ids.empty())
        metrics_->Fired(fires[i].type, FireResult::kSlotTaken);
    }
  }
  std::vector<Deliveries::Outgoing> out;
  out.reserve(recorded.runs.size());
  for (RecordedRun& r : recorded.runs) {
    // A run queued for its pool's slot is sent when it gets one (PoolGranter).
    if (r.run.status() == v1::RUN_STATUS_QUEUED) continue;
    const FireSpec& f = fires[r.fire];
    out.push_back({std::move(r.run), f.job, plans[r.fire].runs[r.planned], targets[r.fire],
                   f.dispatch_at_ms});
  }
  deliveries_->Send(std::move(out));
  return std::move(recorded.outcomes);
}

}  // namespace gnomon::scheduler

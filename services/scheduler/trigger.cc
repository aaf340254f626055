#include "services/scheduler/trigger.h"

#include <utility>

#include "services/common/status/status_macros.h"

namespace gnomon::scheduler {

absl::StatusOr<std::vector<FireOutcome>> Trigger::Fire(std::vector<FireSpec> fires) {
  std::vector<DispatchTargets> targets;
  std::vector<RoutePlan> plans;
  targets.reserve(fires.size());
  plans.reserve(fires.size());
  for (const FireSpec& f : fires) {
    ASSIGN_OR_RETURN(DispatchTargets t, dispatcher_->TargetsOf(f));
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
  for (RecordedRun& r : recorded.runs) {
    const FireSpec& f = fires[r.fire];
    dispatcher_->Dispatch(std::move(r.run), f.job, plans[r.fire].runs[r.planned], targets[r.fire],
                          f.dispatch_at_ms);
  }
  return std::move(recorded.outcomes);
}

}  // namespace gnomon::scheduler

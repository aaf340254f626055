// Trigger: the scheduler's FireSink. For each fire it asks GroupTargets
// which executors the fire may use, lays its runs out over them (RoutePlan),
// records them in one store call for the batch (RunRecorder) and hands each
// recorded run to Deliveries (but a run queued for its pool's slot, which
// PoolGranter sends when it gets one). It only composes them.
//
//   Trigger trigger(&run_recorder, &targets, &deliveries);  // (..., &metrics): slots taken counted
//   FireSpec f{.job = job_ptr, .type = v1::TRIGGER_TYPE_FIX_RATE, .scheduled_ms = slot};
//   absl::StatusOr<std::vector<FireOutcome>> out = trigger.Fire({f});
//
// Thread safety: thread-safe (it holds no state of its own).
#ifndef GNOMON_SERVICES_SCHEDULER_TRIGGER_H_
#define GNOMON_SERVICES_SCHEDULER_TRIGGER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "services/scheduler/deliveries.h"
#include "services/scheduler/fire_sink.h"
#include "services/scheduler/run_recorder.h"
#include "services/scheduler/scheduler_metrics.h"

namespace gnomon::scheduler {

class Trigger final : public FireSink {
 public:
  // `metrics` may be null. `outcomes` (may be null): fires wait while it
  // has too many dispatch outcomes to write (DispatchRecorder::AwaitRoom).
  Trigger(RunRecorder* recorder, GroupTargets* targets, Deliveries* deliveries,
          SchedulerMetrics* metrics = nullptr, DispatchRecorder* outcomes = nullptr)
      : recorder_(recorder),
        targets_(targets),
        deliveries_(deliveries),
        metrics_(metrics),
        outcomes_(outcomes) {}

  // Fails as a whole, recording nothing, if a group or the store cannot be
  // read, or (Unavailable) if earlier dispatch outcomes are still not
  // written after a while; every run recorded is then dispatched (or failed
  // with the reason).
  absl::StatusOr<std::vector<FireOutcome>> Fire(std::vector<FireSpec> fires) override;

 private:
  RunRecorder* const recorder_;
  GroupTargets* const targets_;
  Deliveries* const deliveries_;
  SchedulerMetrics* const metrics_;
  DispatchRecorder* const outcomes_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_TRIGGER_H_

// RecordingSink: a FireSink that records each fire's runs in a real store
// through a RunRecorder — slot keys taken once, each run with its
// partition's fencing epoch — and sends them nowhere: for tests of what is
// fired and recorded, without executors. `before_record` (if set) runs at
// the start of every Fire, to stage what happens while a fire is under way
// (a lease lapsing, another replica's pass).
//
//   RunRecorder recorder(store.get(), &clock);
//   testing::RecordingSink sink(&recorder);
//   ScheduleLoop loop(store.get(), &sink, &clock, {});
//
// Thread safety: thread-safe if `before_record` is set before use.
#ifndef GNOMON_SERVICES_SCHEDULER_TESTING_RECORDING_SINK_H_
#define GNOMON_SERVICES_SCHEDULER_TESTING_RECORDING_SINK_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "services/scheduler/fire_sink.h"
#include "services/scheduler/route_plan.h"
#include "services/scheduler/run_recorder.h"

namespace gnomon::scheduler::testing {

class RecordingSink final : public FireSink {
 public:
  explicit RecordingSink(RunRecorder* recorder) : recorder_(recorder) {}

  absl::StatusOr<std::vector<FireOutcome>> Fire(std::vector<FireSpec> fires) override {
    if (before_record) {
      const std::function<void()> hook = before_record;  // It may clear itself.
      hook();
    }
    std::vector<RoutePlan> plans;
    for (const FireSpec& f : fires) plans.push_back(PlanRoute(f, {}));  // One run each.
    absl::StatusOr<RecordedFires> recorded = recorder_->Record(fires, plans);
    if (!recorded.ok()) return recorded.status();
    return recorded->outcomes;
  }

  std::function<void()> before_record;

 private:
  RunRecorder* const recorder_;
};

}  // namespace gnomon::scheduler::testing

#endif  // GNOMON_SERVICES_SCHEDULER_TESTING_RECORDING_SINK_H_

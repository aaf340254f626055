// RunRecorder: records the runs of a batch of fires — the runs each fire's
// RoutePlan lays out — as PENDING rows in one store call. A run's unique key
// (job, slot, shard, attempt) is taken once: a slot already taken records
// nothing again, and its fire's outcome says so. No routing, no network: the
// Deliveries send what was recorded.
//
//   RunRecorder recorder(store, &RealClock());
//   absl::StatusOr<RecordedFires> r = recorder.Record(fires, plans);
//   for (RecordedRun& run : r->runs)
//     send(fires[run.fire], plans[run.fire].runs[run.planned], run.run);
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_RUN_RECORDER_H_
#define GNOMON_SERVICES_SCHEDULER_RUN_RECORDER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "services/common/client/clock.h"
#include "services/common/store/run_store.h"
#include "services/scheduler/fire_sink.h"
#include "services/scheduler/in_flight_runs.h"
#include "services/scheduler/partition_lease.h"
#include "services/scheduler/route_plan.h"

namespace gnomon::scheduler {

struct RecordedRun {
  size_t fire = 0;     // Index of its fire.
  size_t planned = 0;  // Index of its PlannedRun in that fire's plan.
  v1::Run run;         // As recorded: PENDING, with its id.
};

struct RecordedFires {
  std::vector<FireOutcome> outcomes;  // One per fire.
  std::vector<RecordedRun> runs;      // The newly recorded runs, in fire order.
};

class RunRecorder {
 public:
  // `in_flight` (may be null) is told of each recording and the runs it
  // recorded, so a store call that fails after committing strands nothing.
  RunRecorder(store::RunStore* store, Clock* clock, InFlightRuns* in_flight = nullptr)
      : store_(store), clock_(clock), in_flight_(in_flight) {}

  // `plans[i]` is the plan of `fires[i]`. Fails as a whole (nothing
  // recorded) if the store is unavailable.
  absl::StatusOr<RecordedFires> Record(const std::vector<FireSpec>& fires,
                                       const std::vector<RoutePlan>& plans)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Runs recorded from now on carry their job's partition's fencing epoch
  // in `ownership` (none: epoch 0), which their dispatches present to
  // executors.
  void set_ownership(std::shared_ptr<const Ownership> ownership) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // The params `f`'s runs get: its own, else its job's rendered at
  // f.params_at_ms, else its slot, else `now_ms`, in the job's zone.
  std::string ParamsOf(const FireSpec& f, int64_t now_ms) ABSL_LOCKS_EXCLUDED(mu_);

  store::RunStore* const store_;
  Clock* const clock_;
  InFlightRuns* const in_flight_;
  absl::Mutex mu_;
  std::shared_ptr<const Ownership> ownership_ ABSL_GUARDED_BY(mu_);
  // Jobs whose params did not render (warned about once).
  absl::flat_hash_set<int64_t> unrendered_jobs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_RUN_RECORDER_H_

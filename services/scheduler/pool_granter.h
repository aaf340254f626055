// PoolGranter: lets go the runs queued for pools' slots (Job.pool) whose
// jobs are in the partitions this replica holds. Each pass asks the store
// which pools have such runs queued, then, pool by pool, for the runs at the
// head of the pool's queue that fit in its free slots (PoolStore::
// GrantPoolSlots: one transaction with the pool's row locked, so the slots
// are counted once across every replica). The runs let go are PENDING with
// this holder's epoch, in flight here (InFlightRuns) from before the grant
// commits, and sent as any recorded run (RunResender: routed, then sent at
// their instant; one it cannot route now is the Redispatcher's).
//
// Slots are never leaked: a slot is keyed by its run, and freed by the next
// grant of its pool once the run has ended, whoever recorded, sent or
// granted it. A run that ended while nothing was queued frees its slot when
// something is.
//
//   PoolGranter granter(store, &resender, &RealClock(), &in_flight);
//   lease listener: granter.SetOwnership(o);
//   granter.Start(absl::Milliseconds(100));  ...  granter.Stop();
//
// Thread safety: thread-safe; Start and Stop from one thread.
#ifndef GNOMON_SERVICES_SCHEDULER_POOL_GRANTER_H_
#define GNOMON_SERVICES_SCHEDULER_POOL_GRANTER_H_

#include <atomic>
#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/store/pool_store.h"
#include "services/scheduler/in_flight_runs.h"
#include "services/scheduler/partition_lease.h"
#include "services/scheduler/redispatcher.h"
#include "services/scheduler/scheduler_metrics.h"

namespace gnomon::scheduler {

class PoolGranter {
 public:
  // `in_flight` and `metrics` may be null.
  PoolGranter(store::PoolStore* store, RunResender* sender, Clock* clock,
              InFlightRuns* in_flight = nullptr, SchedulerMetrics* metrics = nullptr)
      : store_(store),
        sender_(sender),
        clock_(clock),
        in_flight_(in_flight),
        metrics_(metrics),
        worker_(clock) {}

  // Never set: every job is this replica's, with epoch 0 (a single replica
  // without partition leases, tests).
  void SetOwnership(std::shared_ptr<const Ownership> ownership) ABSL_LOCKS_EXCLUDED(mu_);
  // One pass at the clock's time; returns how many runs it let go.
  int Pass() ABSL_LOCKS_EXCLUDED(mu_);
  // Results were stored here: a run may have freed a slot. Passes at once
  // if the last pass saw runs queued (else nothing waits for a slot here).
  void ResultsStored() {
    if (queued_.load(std::memory_order_relaxed)) worker_.Wake();
  }
  void Start(absl::Duration interval) {
    worker_.Start(interval, [this] { Pass(); });
  }
  void Stop() { worker_.Stop(); }

 private:
  store::PoolStore* const store_;
  RunResender* const sender_;
  Clock* const clock_;
  InFlightRuns* const in_flight_;
  SchedulerMetrics* const metrics_;
  absl::Mutex mu_;
  std::shared_ptr<const Ownership> ownership_ ABSL_GUARDED_BY(mu_);
  bool owned_ ABSL_GUARDED_BY(mu_) = false;  // SetOwnership was called.
  std::atomic<bool> queued_{false};          // The last pass saw runs queued.
  PeriodicWorker worker_;                    // Last: stopped first.
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_POOL_GRANTER_H_

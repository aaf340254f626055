// Redispatcher: sends again the runs of this replica's partitions that were
// recorded but never sent — by a predecessor that died between recording
// (possibly ahead of the slot) and dispatching, or refused by an executor
// because the epoch they carried was stale. Same run, same slot key: the
// slot is still fired once, and an executor that did receive the first send
// answers the second with the run's state instead of running it again.
//
// A PENDING run whose fence epoch is below its partition's current epoch was
// recorded (or last sent) under an earlier holder, so it is not in flight on
// this replica; those are resent with the current epoch, at their scheduled
// instant if that is still ahead. A PENDING run of the current epoch that
// this replica is not sending (InFlightRuns: its recording committed though
// the store call reported failure) is resent the same way.
//
//   Redispatcher r(store, &dispatcher, &RealClock(), {}, &in_flight);
//   lease listener: r.SetOwnership(o);
//   r.Start();  ...  r.Stop();   // scans on its own thread, every scan_interval
//
// Thread safety: thread-safe; Start and Stop from one thread.
#ifndef GNOMON_SERVICES_SCHEDULER_REDISPATCHER_H_
#define GNOMON_SERVICES_SCHEDULER_REDISPATCHER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/store/run_store.h"
#include "services/scheduler/in_flight_runs.h"
#include "services/scheduler/partition_lease.h"

namespace gnomon::scheduler {

// What asking the executors about a run left in doubt found out.
enum class InDoubt {
  kResent,   // No executor holds it, every one said so: sent again at once.
  kHeld,     // An executor holds it: recorded RUNNING there.
  kUnknown,  // Some executor could not be asked or did not answer: left PENDING.
};
using InDoubtDone = std::function<void(int64_t run_id, InDoubt what)>;

// Where stranded runs go (the Resender in production, a fake in tests).
class RunResender {
 public:
  virtual ~RunResender() = default;
  // Routes and sends each run again, recording its outcome (and `epoch` of
  // its partition from `ownership`) as a first dispatch would.
  virtual void Resend(std::vector<v1::Run> runs, std::shared_ptr<const Ownership> ownership) = 0;
  // Asks every live executor of each run's group whether it holds the run
  // (RunRequest.probe, carrying the partition's epoch from `ownership`) and
  // acts on the answers; `done` is called once per run, from any thread.
  // By default nobody is asked (kUnknown).
  virtual void Ask(std::vector<v1::Run> runs, std::shared_ptr<const Ownership> ownership,
                   InDoubtDone done) {
    for (const v1::Run& r : runs) done(r.id(), InDoubt::kUnknown);
  }
};

struct RedispatcherOptions {
  absl::Duration scan_interval = absl::Seconds(1);
  // A run resent and still PENDING after this is resent again.
  absl::Duration resend_after = absl::Seconds(10);
  // A run is resent only this long after its instant (its slot, or when it
  // was recorded): an earlier holder that is alive (it handed the partition
  // over) still sends what it recorded ahead, and two sends could reach two
  // executors. Before then the executors are asked (RunRequest.probe) about
  // the runs of an earlier epoch: the question fences the earlier holder
  // off on each executor, so a run none of them holds is sent at once.
  absl::Duration grace = absl::Seconds(3);
  int batch = 1000;
};

class Redispatcher {
 public:
  // `in_flight` may be null: runs of the current epoch then count as in
  // flight.
  Redispatcher(store::RunStore* store, RunResender* resender, Clock* clock,
               RedispatcherOptions options, InFlightRuns* in_flight = nullptr)
      : store_(store),
        resender_(resender),
        clock_(clock),
        options_(options),
        in_flight_(in_flight),
        worker_(clock) {}

  // A gain of partitions triggers a scan at once.
  void SetOwnership(std::shared_ptr<const Ownership> ownership) ABSL_LOCKS_EXCLUDED(mu_);
  // Resends nothing without asking before `ms` (the clock's): after this
  // process started, results of runs a predecessor sent wait in the
  // executors' spools until their result streams reconnect; a resend
  // before they arrive could reach another executor and run the slot twice.
  // (Questions are asked meanwhile: an executor that answers them says
  // whether it holds a run whatever its spool holds.)
  void HoldUntil(int64_t ms) { hold_until_ms_.store(ms); }
  // One scan at the clock's time; returns how many runs it resent.
  int Scan() ABSL_LOCKS_EXCLUDED(mu_);
  void Start() {
    worker_.Start(options_.scan_interval, [this] { Scan(); });
  }
  void Stop() { worker_.Stop(); }

 private:
  store::RunStore* const store_;
  RunResender* const resender_;
  Clock* const clock_;
  const RedispatcherOptions options_;
  InFlightRuns* const in_flight_;
  absl::Mutex mu_;
  std::shared_ptr<const Ownership> ownership_ ABSL_GUARDED_BY(mu_);
  // What asking about `run_id` found (see Ask).
  void Answered(int64_t run_id, InDoubt what) ABSL_LOCKS_EXCLUDED(mu_);

  // Run id -> when it was last resent.
  absl::flat_hash_map<int64_t, int64_t> resent_ ABSL_GUARDED_BY(mu_);
  // Runs of an earlier epoch asked about (once each) -> whether the answers
  // are still awaited; forgotten once no longer PENDING.
  absl::flat_hash_map<int64_t, bool> asked_ ABSL_GUARDED_BY(mu_);
  std::atomic<int64_t> hold_until_ms_{0};
  PeriodicWorker worker_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_REDISPATCHER_H_

// DispatchRecorder: collects dispatch outcomes from executor links and writes
// them to the store in batches (one transaction per batch, not per run).
//
//   DispatchRecorder rec(store, &RealClock(), in_flight, absl::Seconds(1));
//   std::thread t([&] { rec.Run(); });
//   rec.Add(update);     // written with the next batch
//   rec.Defer(update);   // written a second later
//   rec.Stop(); t.join();   // flushes what is queued, deferred outcomes too
//
// Deferred outcomes: a run accepted by an executor that echoes its receipt
// (RunRequest.receipt) is most often recorded by the run's start, with one
// store write for both (SqlStore::ApplyReceipt). Its accepted outcome waits
// `defer` before it is written, by which time RecordDispatches usually finds
// the dispatch recorded and writes nothing; so a run costs the store an
// insert and two updates instead of three. Until it is written the run stays
// in flight (InFlightRuns): no scan here resends it, and a new holder of its
// partition probes the executors first, as for any run left in doubt.
//
// Thread safety: Add/Defer/Stop from any thread; Run on one thread.
#ifndef GNOMON_SERVICES_SCHEDULER_DISPATCH_RECORDER_H_
#define GNOMON_SERVICES_SCHEDULER_DISPATCH_RECORDER_H_

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/server/batched_writer.h"
#include "services/common/store/run_store.h"
#include "services/scheduler/in_flight_runs.h"

namespace gnomon::scheduler {

class DispatchRecorder {
 public:
  // `in_flight` (may be null) learns which runs' outcomes are committed.
  // `defer`: how long Defer holds an outcome (zero: Defer is Add).
  DispatchRecorder(store::RunStore* store, Clock* clock, InFlightRuns* in_flight = nullptr,
                   absl::Duration defer = absl::ZeroDuration());
  ~DispatchRecorder() { deferrer_.Stop(); }

  // Outcomes queued at most, roughly: a fire waits (AwaitRoom) while this
  // many wait to be written, so a store slower than the runs offered makes
  // runs late instead of filling memory.
  static constexpr size_t kMaxQueued = 20000;
  // Outcomes deferred at most; past this Defer is Add (memory stays bounded
  // whatever the rate).
  static constexpr size_t kMaxDeferred = 50000;

  void Add(store::DispatchUpdate update) { writer_.Add(std::move(update)); }
  // An accepted outcome whose run carried a receipt: written `defer` later.
  void Defer(store::DispatchUpdate update) ABSL_LOCKS_EXCLUDED(mu_);
  // Waits up to `timeout` until fewer than kMaxQueued outcomes wait; whether they do.
  bool AwaitRoom(absl::Duration timeout) const { return writer_.AwaitBelow(kMaxQueued, timeout); }
  // Outcomes waiting to be written (not counting deferred ones).
  size_t queued() const { return writer_.queued(); }
  void Run() { writer_.Run(); }
  // Hands the deferred outcomes to the writer, which writes what is queued
  // and returns from Run.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // One transaction per batch; the failed batch is handed back for a retry.
  std::vector<store::DispatchUpdate> Record(std::vector<store::DispatchUpdate> batch);
  // Hands the deferred outcomes due by `now` (all, at Stop) to the writer;
  // returns when the next one is due.
  absl::Time Release(bool all) ABSL_LOCKS_EXCLUDED(mu_);

  store::RunStore* const store_;
  InFlightRuns* const in_flight_;
  Clock* const clock_;
  const absl::Duration defer_;
  BatchedWriter<store::DispatchUpdate> writer_;
  absl::Mutex mu_;
  struct Deferred {
    absl::Time due;
    store::DispatchUpdate update;
  };
  std::deque<Deferred> deferred_ ABSL_GUARDED_BY(mu_);  // In order of `due`.
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  PeriodicWorker deferrer_;  // Releases deferred outcomes; last: stopped first.
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_DISPATCH_RECORDER_H_

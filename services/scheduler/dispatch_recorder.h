// DispatchRecorder: collects dispatch outcomes from executor links and writes
// them to the store in batches (one transaction per batch, not per run).
//
//   DispatchRecorder rec(store, &RealClock());
//   std::thread t([&] { rec.Run(); });
//   rec.Add(update);
//   rec.Stop(); t.join();   // flushes what is queued
//
// Thread safety: Add/Stop from any thread; Run on one thread.
#ifndef GNOMON_SERVICES_SCHEDULER_DISPATCH_RECORDER_H_
#define GNOMON_SERVICES_SCHEDULER_DISPATCH_RECORDER_H_

#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/store/run_store.h"
#include "services/scheduler/in_flight_runs.h"

namespace gnomon::scheduler {

class DispatchRecorder {
 public:
  // `in_flight` (may be null) learns which runs' outcomes are committed.
  DispatchRecorder(store::RunStore* store, Clock* clock, InFlightRuns* in_flight = nullptr)
      : store_(store), clock_(clock), in_flight_(in_flight) {}

  void Add(store::DispatchUpdate update) ABSL_LOCKS_EXCLUDED(mu_);
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  static constexpr absl::Duration kMinCommitInterval = absl::Milliseconds(10);
  static constexpr size_t kFullBatch = 1024;

  store::RunStore* const store_;
  Clock* const clock_;
  InFlightRuns* const in_flight_;
  absl::Mutex mu_;
  std::vector<store::DispatchUpdate> queue_ ABSL_GUARDED_BY(mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_DISPATCH_RECORDER_H_

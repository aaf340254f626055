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

#include <utility>
#include <vector>

#include "services/common/client/clock.h"
#include "services/common/server/batched_writer.h"
#include "services/common/store/run_store.h"
#include "services/scheduler/in_flight_runs.h"

namespace gnomon::scheduler {

class DispatchRecorder {
 public:
  // `in_flight` (may be null) learns which runs' outcomes are committed.
  DispatchRecorder(store::RunStore* store, Clock* clock, InFlightRuns* in_flight = nullptr);

  // Outcomes queued at most, roughly: a fire waits (AwaitRoom) while this
  // many wait to be written, so a store slower than the runs offered makes
  // runs late instead of filling memory.
  static constexpr size_t kMaxQueued = 20000;

  void Add(store::DispatchUpdate update) { writer_.Add(std::move(update)); }
  // Waits up to `timeout` until fewer than kMaxQueued outcomes wait; whether they do.
  bool AwaitRoom(absl::Duration timeout) const { return writer_.AwaitBelow(kMaxQueued, timeout); }
  // Outcomes waiting to be written.
  size_t queued() const { return writer_.queued(); }
  void Run() { writer_.Run(); }
  void Stop() { writer_.Stop(); }

 private:
  // One transaction per batch; the failed batch is handed back for a retry.
  std::vector<store::DispatchUpdate> Record(std::vector<store::DispatchUpdate> batch);

  store::RunStore* const store_;
  InFlightRuns* const in_flight_;
  BatchedWriter<store::DispatchUpdate> writer_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_DISPATCH_RECORDER_H_

// DispatchTimer: runs tasks at their instant, on its own thread. The schedule
// loop records runs a little ahead of their slots (one store transaction for
// many slots); the timer then sends each at its instant, so a store write in
// progress never delays a dispatch.
//
//   DispatchTimer timer(&RealClock());
//   std::thread t([&] { timer.Run(); });
//   timer.At(slot_ms, [&] { pools.Submit(job_id, send); });
//   timer.Stop(); t.join();   // runs what is still queued, at once
//
// Thread safety: At/Stop/size from any thread; Run on one thread. Tasks run
// on the timer thread without the lock and must be quick (hand work off).
#ifndef GNOMON_SERVICES_SCHEDULER_DISPATCH_TIMER_H_
#define GNOMON_SERVICES_SCHEDULER_DISPATCH_TIMER_H_

#include <cstdint>
#include <functional>
#include <map>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "services/common/client/clock.h"

namespace gnomon::scheduler {

class DispatchTimer {
 public:
  explicit DispatchTimer(Clock* clock) : clock_(clock) {}

  // Runs `task` at `at_ms` (at once if that has passed), in order of instant.
  void At(int64_t at_ms, std::function<void()> task) ABSL_LOCKS_EXCLUDED(mu_);
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  // Makes Run return after running every queued task immediately: recorded
  // runs are sent rather than dropped.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);
  size_t size() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  Clock* const clock_;
  mutable absl::Mutex mu_;
  std::multimap<int64_t, std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  uint64_t added_ ABSL_GUARDED_BY(mu_) = 0;  // Wakes Run when an earlier task arrives.
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_DISPATCH_TIMER_H_

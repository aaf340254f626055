// PeriodicWorker: a thread that does one thing again and again until stopped
// — every `period`, or at the time each pass asks for — and whose waits end
// at once on Stop() or Wake().
//
//   PeriodicWorker worker(clock);
//   worker.Start(absl::Seconds(1), [&] { CheckNow(); });   // now, then 1 s after each pass
//   worker.Wake();   // another pass as soon as the current one (if any) ends
//   worker.Stop();   // ends the wait at once, lets a pass under way finish, joins
//
// A pass that decides its own next time returns it instead:
//
//   worker.Start([&] { return Tick(); });   // absl::Time of the next pass
//
// Waits are on the injected Clock, so a test drives the worker with a
// SimulatedClock: SimulatedClock::BlockUntilWaiters(1) returns once it waits.
//
// Thread safety: Start and Stop from the owner's thread (not from a pass);
// Wake from any thread, a pass included.
#ifndef GNOMON_SERVICES_COMMON_CLIENT_PERIODIC_WORKER_H_
#define GNOMON_SERVICES_COMMON_CLIENT_PERIODIC_WORKER_H_

#include <functional>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"

namespace gnomon {

class PeriodicWorker {
 public:
  explicit PeriodicWorker(Clock* clock = &RealClock()) : clock_(clock) {}
  ~PeriodicWorker() { Stop(); }
  PeriodicWorker(const PeriodicWorker&) = delete;
  PeriodicWorker& operator=(const PeriodicWorker&) = delete;

  // Runs `pass` at once, then `period` after each pass ends. Once only; not
  // after Stop().
  void Start(absl::Duration period, std::function<void()> pass) ABSL_LOCKS_EXCLUDED(mu_);
  // Runs `pass` at once, then again at the time it returned.
  void Start(std::function<absl::Time()> pass) ABSL_LOCKS_EXCLUDED(mu_);
  // The next pass starts as soon as the current wait (or pass) ends.
  void Wake() ABSL_LOCKS_EXCLUDED(mu_);
  // Idempotent; returns once no pass runs or will run.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Loop(const std::function<absl::Time()>& pass) ABSL_LOCKS_EXCLUDED(mu_);

  Clock* const clock_;
  absl::Mutex mu_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  bool woken_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;  // Set by Start, joined by Stop: the owner's thread.
};

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_CLIENT_PERIODIC_WORKER_H_

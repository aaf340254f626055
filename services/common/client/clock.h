// Clock: the only way gnomon's scheduling logic reads time or waits for it.
//
// Production code gets RealClock(); tests use SimulatedClock and Advance() it
// instead of sleeping, so timing tests are deterministic.
//
//   SimulatedClock clock(absl::FromUnixMillis(0));
//   absl::Mutex mu;
//   bool stop = false;
//   mu.Lock();
//   // Returns when stop becomes true or the clock reaches t = 10 ms.
//   clock.AwaitWithDeadline(&mu, absl::Condition(&stop), absl::FromUnixMillis(10));
//   mu.Unlock();
//
// Thread safety: all methods are thread-safe.
#ifndef GNOMON_SERVICES_COMMON_CLIENT_CLOCK_H_
#define GNOMON_SERVICES_COMMON_CLIENT_CLOCK_H_

#include <atomic>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gnomon {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual absl::Time Now() const = 0;
  int64_t NowMillis() const { return absl::ToUnixMillis(Now()); }
  // With `mu` held: waits until `cond` holds or Now() >= deadline.
  // Returns true if `cond` holds on return.
  virtual bool AwaitWithDeadline(absl::Mutex* mu, const absl::Condition& cond,
                                 absl::Time deadline) const ABSL_SHARED_LOCKS_REQUIRED(mu) = 0;
};

// The process-wide wall clock.
Clock& RealClock();

// A clock that moves only when told to.
class SimulatedClock final : public Clock {
 public:
  explicit SimulatedClock(absl::Time start) : now_us_(absl::ToUnixMicros(start)) {}

  absl::Time Now() const override { return absl::FromUnixMicros(now_us_.load()); }
  bool AwaitWithDeadline(absl::Mutex* mu, const absl::Condition& cond,
                         absl::Time deadline) const override ABSL_SHARED_LOCKS_REQUIRED(mu);

  // Moves time forward and wakes every waiter whose deadline passed.
  void Advance(absl::Duration d) ABSL_LOCKS_EXCLUDED(waiters_mu_);
  void AdvanceTo(absl::Time t) ABSL_LOCKS_EXCLUDED(waiters_mu_);
  // Number of threads waiting in AwaitWithDeadline (lets a test wait for a
  // worker to park before advancing time).
  int waiters() const ABSL_LOCKS_EXCLUDED(waiters_mu_);
  // Blocks until at least n threads are waiting.
  void BlockUntilWaiters(int n) const ABSL_LOCKS_EXCLUDED(waiters_mu_);

 private:
  std::atomic<int64_t> now_us_;
  mutable absl::Mutex waiters_mu_;
  mutable absl::flat_hash_set<absl::Mutex*> waiter_mutexes_ ABSL_GUARDED_BY(waiters_mu_);
  mutable int waiter_count_ ABSL_GUARDED_BY(waiters_mu_) = 0;
};

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_CLIENT_CLOCK_H_

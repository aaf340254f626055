// LeaderLease: keeps the scheduler lease in the store so that exactly one
// scheduler replica fires jobs at a time, and hands out its fencing epoch.
//
// The holder renews every ttl/4. A replica that cannot renew before its
// lease would expire stands down on its own (it stops firing before another
// replica may take over). Each new holder gets a larger epoch; dispatches
// carry it and executors refuse a smaller one than they have seen.
//
//   LeaderLease lease(store, "host-1:4242", &RealClock(), {},
//                     [&](bool leader, int64_t epoch) { ... });
//   std::thread t([&] { lease.Run(); });
//   lease.Stop(); t.join();   // releases the lease for a quick hand-over
//
// Thread safety: Run on one thread; Stop and accessors from any thread.
#ifndef GNOMON_SERVICES_SCHEDULER_LEADER_LEASE_H_
#define GNOMON_SERVICES_SCHEDULER_LEADER_LEASE_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/store/store.h"

namespace gnomon::scheduler {

struct LeaderLeaseOptions {
  absl::Duration ttl = absl::Seconds(10);
  std::string name = "scheduler";
};

class LeaderLease {
 public:
  // Called (from Run's thread) whenever leadership or the epoch changes.
  using Listener = std::function<void(bool leader, int64_t epoch)>;

  LeaderLease(store::Store* store, std::string holder, Clock* clock, LeaderLeaseOptions options,
              Listener listener)
      : store_(store), holder_(std::move(holder)), clock_(clock), options_(options),
        listener_(std::move(listener)) {}

  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);
  // One acquisition attempt at the clock's time (Run calls it; tests too).
  void Renew() ABSL_LOCKS_EXCLUDED(mu_);
  bool leader() const ABSL_LOCKS_EXCLUDED(mu_);
  int64_t epoch() const ABSL_LOCKS_EXCLUDED(mu_);
  const std::string& holder() const { return holder_; }

 private:
  void Set(bool leader, int64_t epoch) ABSL_LOCKS_EXCLUDED(mu_);

  store::Store* const store_;
  const std::string holder_;
  Clock* const clock_;
  const LeaderLeaseOptions options_;
  const Listener listener_;
  mutable absl::Mutex mu_;
  bool leader_ ABSL_GUARDED_BY(mu_) = false;
  int64_t epoch_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t expires_ms_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_LEADER_LEASE_H_

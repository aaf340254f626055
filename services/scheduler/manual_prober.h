// ManualProber: liveness of executors in manual groups (a fixed list of
// executor names, no registration), checked with a beat over each one's
// stream in the background so routing skips dead ones without probing on
// the dispatch path.
//
//   ManualProber prober(store, &executors, &RealClock(), absl::Seconds(2));
//   prober.Start();   // probes now, then every interval, on its own thread
//   bool up = prober.Alive("10.0.0.5:9999");   // unknown addresses count as alive
//   prober.Stop();
//
// Thread safety: thread-safe; Start and Stop from one thread.
#ifndef GNOMON_SERVICES_SCHEDULER_MANUAL_PROBER_H_
#define GNOMON_SERVICES_SCHEDULER_MANUAL_PROBER_H_

#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/store/job_store.h"
#include "services/scheduler/executor_client.h"

namespace gnomon::scheduler {

class ManualProber {
 public:
  // `executors` beats each executor of each manual group
  // (ConnectedExecutors; a fake in tests).
  ManualProber(store::JobStore* store, ExecutorClient* executors, Clock* clock,
               absl::Duration interval)
      : store_(store), executors_(executors), interval_(interval), worker_(clock) {}

  bool Alive(const std::string& address) const ABSL_LOCKS_EXCLUDED(mu_);
  // Beats every address of every manual group once.
  void ProbeAll() ABSL_LOCKS_EXCLUDED(mu_);
  void Start() {
    worker_.Start(interval_, [this] { ProbeAll(); });
  }
  void Stop() { worker_.Stop(); }

 private:
  store::JobStore* const store_;
  ExecutorClient* const executors_;
  const absl::Duration interval_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, bool> alive_ ABSL_GUARDED_BY(mu_);
  PeriodicWorker worker_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_MANUAL_PROBER_H_

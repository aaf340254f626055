// LogTailHub: wakes live log tails (StreamRunLog with follow) when lines or a
// result for their run have been stored.
//
//   int64_t seen = hub.Watch(run_id);
//   ... read stored lines ...
//   seen = hub.WaitChange(run_id, seen, absl::Seconds(1));
//   hub.Unwatch(run_id);
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_LOG_LOG_TAIL_HUB_H_
#define GNOMON_SERVICES_LOG_LOG_TAIL_HUB_H_

#include <cstdint>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gnomon::logsvc {

class LogTailHub {
 public:
  // Starts watching; returns the run's current version.
  int64_t Watch(int64_t run_id) ABSL_LOCKS_EXCLUDED(mu_);
  void Unwatch(int64_t run_id) ABSL_LOCKS_EXCLUDED(mu_);
  // Waits until the version differs from `seen` or `timeout`; returns the version.
  int64_t WaitChange(int64_t run_id, int64_t seen, absl::Duration timeout) ABSL_LOCKS_EXCLUDED(mu_);
  // Bumps the version of every watched run among `run_ids`.
  void Notify(const std::vector<int64_t>& run_ids) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Entry {
    int64_t version = 0;
    int watchers = 0;
  };
  absl::Mutex mu_;
  absl::flat_hash_map<int64_t, Entry> runs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gnomon::logsvc

#endif  // GNOMON_SERVICES_LOG_LOG_TAIL_HUB_H_

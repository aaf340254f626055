// RecentRunIds: the ids of the last runs an executor accepted, so that a
// resent or re-dispatched RunRequest for one of them is answered "already
// accepted" instead of being run a second time.
//
// Bounded by count, not by time: memory stays fixed (about 30 bytes an id,
// ~3 MB at the SDK's default of 100,000) whatever the dispatch rate, and a
// run id never names a new run, so remembering one longer is never wrong.
// How long an id is remembered is capacity / accepted runs per second
// (100,000 ids: 17 min at 100 runs/s, 100 s at 1,000 runs/s). The oldest id
// is forgotten first. Capacity 0 remembers nothing.
//
//   RecentRunIds recent(100000);
//   if (!recent.Contains(run_id)) { /* accept it */ recent.Add(run_id); }
//
// Thread safety: not thread-safe (RunManager guards it with its mutex).
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_RECENT_RUN_IDS_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_RECENT_RUN_IDS_H_

#include <cstddef>
#include <cstdint>
#include <deque>

#include "absl/container/flat_hash_set.h"

namespace gnomon::executor::internal {

class RecentRunIds {
 public:
  explicit RecentRunIds(size_t capacity) : capacity_(capacity) {}

  // Remembers `run_id`, forgetting the oldest id beyond the capacity. An id
  // already remembered keeps its place.
  void Add(int64_t run_id) {
    if (capacity_ == 0 || !ids_.insert(run_id).second) return;
    order_.push_back(run_id);
    if (order_.size() > capacity_) {
      ids_.erase(order_.front());
      order_.pop_front();
    }
  }
  bool Contains(int64_t run_id) const { return ids_.contains(run_id); }
  size_t size() const { return order_.size(); }

 private:
  const size_t capacity_;
  std::deque<int64_t> order_;  // Oldest first.
  absl::flat_hash_set<int64_t> ids_;
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_RECENT_RUN_IDS_H_

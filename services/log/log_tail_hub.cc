#include "services/log/log_tail_hub.h"

namespace gnomon::logsvc {

int64_t LogTailHub::Watch(int64_t run_id) {
  absl::MutexLock l(&mu_);
  Entry& e = runs_[run_id];
  ++e.watchers;
  return e.version;
}

void LogTailHub::Unwatch(int64_t run_id) {
  absl::MutexLock l(&mu_);
  auto it = runs_.find(run_id);
  if (it != runs_.end() && --it->second.watchers <= 0) runs_.erase(it);
}

int64_t LogTailHub::WaitChange(int64_t run_id, int64_t seen, absl::Duration timeout) {
  absl::MutexLock l(&mu_);
  auto changed = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = runs_.find(run_id);
    return it == runs_.end() || it->second.version != seen;
  };
  mu_.AwaitWithTimeout(absl::Condition(&changed), timeout);
  auto it = runs_.find(run_id);
  return it == runs_.end() ? seen : it->second.version;
}

void LogTailHub::Notify(const std::vector<int64_t>& run_ids) {
  absl::MutexLock l(&mu_);
  for (int64_t id : run_ids) {
    auto it = runs_.find(id);
    if (it != runs_.end()) ++it->second.version;
  }
}

}  // namespace gnomon::logsvc

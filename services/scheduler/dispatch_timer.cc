#include "services/scheduler/dispatch_timer.h"

#include <utility>
#include <vector>

namespace gnomon::scheduler {

void DispatchTimer::At(int64_t at_ms, std::function<void()> task) {
  absl::MutexLock l(&mu_);
  // Only a new earliest task moves the timer's wake-up: recording a burst of
  // 10,000 runs for one instant wakes it once, not 10,000 times.
  const bool earliest = tasks_.empty() || at_ms < tasks_.begin()->first;
  tasks_.emplace(at_ms, std::move(task));
  if (earliest) ++added_;
}

size_t DispatchTimer::size() const {
  absl::MutexLock l(&mu_);
  return tasks_.size();
}

void DispatchTimer::Stop() {
  absl::MutexLock l(&mu_);
  stopped_ = true;
}

void DispatchTimer::Run() {
  absl::MutexLock l(&mu_);
  while (true) {
    const int64_t now = clock_->NowMillis();
    std::vector<std::function<void()>> due;
    while (!tasks_.empty() && (stopped_ || tasks_.begin()->first <= now)) {
      due.push_back(std::move(tasks_.begin()->second));
      tasks_.erase(tasks_.begin());
    }
    if (!due.empty()) {
      mu_.Unlock();
      for (auto& task : due) task();
      mu_.Lock();
      continue;  // Time moved on while they ran.
    }
    if (stopped_) return;
    const uint64_t seen = added_;
    auto changed = [this, seen]()
                       ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopped_ || added_ != seen; };
    const absl::Time wake = tasks_.empty() ? clock_->Now() + absl::Seconds(1)
                                           : absl::FromUnixMillis(tasks_.begin()->first);
    clock_->AwaitWithDeadline(&mu_, absl::Condition(&changed), wake);
  }
}

}  // namespace gnomon::scheduler

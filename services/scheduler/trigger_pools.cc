#include "services/scheduler/trigger_pools.h"

#include <utility>

namespace gnomon::scheduler {

TriggerPools::TriggerPools(Clock* clock, TriggerPoolOptions options)
    : clock_(clock), options_(options) {
  {
    absl::MutexLock l(&mu_);
    fast_.capacity = options.fast_queue;
    slow_.capacity = options.slow_queue;
  }
  // The pools live as long as this object; the threads only touch them under mu_.
  for (int i = 0; i < options.fast_threads; ++i) threads_.emplace_back([this] { Work(&fast_); });
  for (int i = 0; i < options.slow_threads; ++i) threads_.emplace_back([this] { Work(&slow_); });
}

TriggerPools::~TriggerPools() { Stop(); }

bool TriggerPools::IsSlowLocked(int64_t job_id) {
  auto it = slow_counts_.find(job_id);
  const int64_t minute = clock_->NowMillis() / 60'000;
  return it != slow_counts_.end() && it->second.minute == minute &&
         it->second.count > options_.slow_count;
}

bool TriggerPools::IsSlow(int64_t job_id) {
  absl::MutexLock l(&mu_);
  return IsSlowLocked(job_id);
}

void TriggerPools::RecordDispatch(int64_t job_id, absl::Duration took) {
  if (took <= options_.slow_threshold) return;
  absl::MutexLock l(&mu_);
  const int64_t minute = clock_->NowMillis() / 60'000;
  SlowCount& c = slow_counts_[job_id];
  if (c.minute != minute) c = SlowCount{minute, 0};
  ++c.count;
}

void TriggerPools::Submit(int64_t job_id, std::function<void()> task) {
  absl::MutexLock l(&mu_);
  const bool slow = IsSlowLocked(job_id);
  Pool* pool = slow ? &slow_ : &fast_;
  ++stats_.submitted;
  if (slow) ++stats_.to_slow_pool;
  if (pool->queue.size() >= pool->capacity) {
    ++stats_.backpressure_waits;
    auto room = [this, pool]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stopped_ || pool->queue.size() < pool->capacity;
    };
    mu_.Await(absl::Condition(&room));
  }
  if (stopped_) {
    // Shutting down: run it here rather than lose it.
    mu_.Unlock();
    task();
    mu_.Lock();
    return;
  }
  pool->queue.push_back(std::move(task));
}

void TriggerPools::Work(Pool* pool) {
  while (true) {
    std::function<void()> task;
    {
      absl::MutexLock l(&mu_);
      auto ready = [this, pool]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopped_ || !pool->queue.empty();
      };
      mu_.Await(absl::Condition(&ready));
      if (pool->queue.empty()) return;  // Stopped and drained.
      task = std::move(pool->queue.front());
      pool->queue.pop_front();
    }
    task();
  }
}

TriggerPools::Stats TriggerPools::stats() const {
  absl::MutexLock l(&mu_);
  return stats_;
}

void TriggerPools::Stop() {
  {
    absl::MutexLock l(&mu_);
    if (stopped_ && threads_.empty()) return;
    stopped_ = true;
  }
  for (auto& t : threads_) t.join();
  threads_.clear();
}

}  // namespace gnomon::scheduler

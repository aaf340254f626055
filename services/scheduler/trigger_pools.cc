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
  if (pool->load() >= pool->capacity) {
    ++stats_.backpressure_waits;
    auto room = [this, pool]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stopped_ || pool->load() < pool->capacity;
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
  auto [strand, fresh] = strands_.try_emplace(job_id);
  if (!fresh) {
    // The job has a task queued or running: this one follows it.
    ++pool->held;
    strand->second.emplace_back(pool, std::move(task));
    return;
  }
  pool->queue.push_back(Item{job_id, std::move(task)});
}

void TriggerPools::Work(Pool* pool) {
  absl::MutexLock l(&mu_);
  while (true) {
    // Stopping drains everything: a strand may still hand a task to this pool.
    auto ready = [this, pool]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return !pool->queue.empty() || (stopped_ && strands_.empty());
    };
    mu_.Await(absl::Condition(&ready));
    if (pool->queue.empty()) return;  // Stopped and drained.
    Item item = std::move(pool->queue.front());
    pool->queue.pop_front();
    mu_.Unlock();
    item.task();
    mu_.Lock();
    auto strand = strands_.find(item.job_id);
    if (strand->second.empty()) {
      strands_.erase(strand);
      continue;
    }
    // The job's next task goes to the pool the job belongs to now.
    auto [counted_in, next] = std::move(strand->second.front());
    strand->second.pop_front();
    --counted_in->held;
    Pool* target = IsSlowLocked(item.job_id) ? &slow_ : &fast_;
    target->queue.push_back(Item{item.job_id, std::move(next)});
  }
}

TriggerPools::Stats TriggerPools::stats() const {
  absl::MutexLock l(&mu_);
  Stats s = stats_;
  s.fast_queued = fast_.load();
  s.slow_queued = slow_.load();
  return s;
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

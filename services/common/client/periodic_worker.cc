#include "services/common/client/periodic_worker.h"

#include <utility>

namespace gnomon {

void PeriodicWorker::Start(absl::Duration period, std::function<void()> pass) {
  Start([this, period, pass = std::move(pass)] {
    pass();
    return clock_->Now() + period;
  });
}

void PeriodicWorker::Start(std::function<absl::Time()> pass) {
  absl::MutexLock l(&mu_);
  if (started_ || stopped_) return;
  started_ = true;
  thread_ = std::thread([this, pass = std::move(pass)] { Loop(pass); });
}

void PeriodicWorker::Wake() {
  absl::MutexLock l(&mu_);
  woken_ = true;
}

void PeriodicWorker::Stop() {
  {
    absl::MutexLock l(&mu_);
    stopped_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void PeriodicWorker::Loop(const std::function<absl::Time()>& pass) {
  while (true) {
    const absl::Time next = pass();
    absl::MutexLock l(&mu_);
    auto woken = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopped_ || woken_; };
    clock_->AwaitWithDeadline(&mu_, absl::Condition(&woken), next);
    woken_ = false;
    if (stopped_) return;
  }
}

}  // namespace gnomon

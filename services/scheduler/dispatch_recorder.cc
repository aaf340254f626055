#include "services/scheduler/dispatch_recorder.h"

#include "services/common/client/backoff.h"
#include "services/common/client/log.h"

namespace gnomon::scheduler {

void DispatchRecorder::Add(store::DispatchUpdate update) {
  absl::MutexLock l(&mu_);
  queue_.push_back(std::move(update));
}

void DispatchRecorder::Stop() {
  absl::MutexLock l(&mu_);
  stopped_ = true;
}

void DispatchRecorder::Run() {
  Backoff backoff({absl::Milliseconds(50), absl::Seconds(2), 2.0});
  absl::Time last_commit = absl::InfinitePast();
  while (true) {
    std::vector<store::DispatchUpdate> batch;
    {
      absl::MutexLock l(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopped_ || !queue_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      // Transactions at least kMinCommitInterval apart (real time: this paces
      // store writes) unless many are waiting: at low rates one transaction
      // then covers several dispatches instead of one each.
      auto full = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopped_ || queue_.size() >= kFullBatch;
      };
      mu_.AwaitWithDeadline(absl::Condition(&full), last_commit + kMinCommitInterval);
      if (queue_.empty()) return;  // Stopped and drained.
      batch.swap(queue_);
      last_commit = absl::Now();
    }
    absl::Status s = store_->RecordDispatches(batch);
    if (s.ok() && in_flight_ != nullptr) {
      std::vector<int64_t> ids;
      ids.reserve(batch.size());
      for (const store::DispatchUpdate& u : batch) ids.push_back(u.run_id);
      in_flight_->Committed(ids);
    }
    absl::MutexLock l(&mu_);
    if (s.ok()) {
      backoff.Reset();
      continue;
    }
    GNOMON_LOG(WARNING) << "scheduler: recording " << batch.size()
                        << " dispatch outcomes failed, will retry: " << s;
    queue_.insert(queue_.begin(), batch.begin(), batch.end());
    if (stopped_) return;
    clock_->AwaitWithDeadline(&mu_, absl::Condition(&stopped_), clock_->Now() + backoff.Next());
  }
}

}  // namespace gnomon::scheduler

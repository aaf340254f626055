#include "services/log/report_writer.h"

#include <map>
#include <utility>

#include "services/common/client/backoff.h"
#include "services/common/client/log.h"

namespace gnomon::logsvc {

void ReportWriter::AddObserver(Observer observer) {
  absl::MutexLock l(&mu_);
  observers_.push_back(std::move(observer));
}

void ReportWriter::Submit(PendingReport report) {
  absl::MutexLock l(&mu_);
  queued_items_ += report.items.size();
  queue_.push_back(std::move(report));
}

size_t ReportWriter::queued_items() const {
  absl::MutexLock l(&mu_);
  return queued_items_;
}

void ReportWriter::Stop() {
  absl::MutexLock l(&mu_);
  stopped_ = true;
}

void ReportWriter::Run() {
  Backoff backoff({absl::Milliseconds(50), absl::Seconds(2), 2.0});
  absl::Time last_commit = absl::InfinitePast();  // Real time: paces store writes.
  while (true) {
    std::vector<PendingReport> batch;
    std::vector<Observer> observers;
    {
      absl::MutexLock l(&mu_);
      auto ready = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopped_ || !queue_.empty();
      };
      mu_.Await(absl::Condition(&ready));
      auto full = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopped_ || queued_items_ >= options_.max_batch;
      };
      mu_.AwaitWithDeadline(absl::Condition(&full), last_commit + options_.min_commit_interval);
      if (stopped_) return;
      last_commit = absl::Now();
      size_t items = 0;
      while (!queue_.empty() && items < options_.max_batch) {
        items += queue_.front().items.size();
        queued_items_ -= queue_.front().items.size();
        batch.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      observers = observers_;
    }
    // One transaction per group present in the batch (access is checked per group).
    std::map<int64_t, std::vector<size_t>> by_group;
    for (size_t i = 0; i < batch.size(); ++i) by_group[batch[i].group_id].push_back(i);
    std::vector<PendingReport> retry;
    for (const auto& [group_id, reports] : by_group) {
      std::vector<v1::ReportItem> items;
      for (size_t r : reports) items.insert(items.end(), batch[r].items.begin(), batch[r].items.end());
      absl::StatusOr<std::vector<v1::ReportAck>> acks = runs_->ApplyReports(items, group_id);
      if (!acks.ok()) {
        GNOMON_LOG(WARNING) << "log service: storing " << items.size()
                            << " reports failed, will retry: " << acks.status();
        for (size_t r : reports) retry.push_back(std::move(batch[r]));
        continue;
      }
      auto next = acks->begin();
      for (size_t r : reports) {
        std::vector<v1::ReportAck> mine(next, next + batch[r].items.size());
        next += batch[r].items.size();
        batch[r].done(std::move(mine));
      }
      for (const Observer& o : observers) o(items, *acks);
    }
    if (retry.empty()) {
      backoff.Reset();
      continue;
    }
    {
      absl::MutexLock l(&mu_);
      for (auto it = retry.rbegin(); it != retry.rend(); ++it) {
        queued_items_ += it->items.size();
        queue_.push_front(std::move(*it));
      }
      clock_->AwaitWithDeadline(&mu_, absl::Condition(&stopped_), clock_->Now() + backoff.Next());
    }
  }
}

}  // namespace gnomon::logsvc

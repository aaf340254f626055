#include "services/log/report_writer.h"

#include <algorithm>
#include <map>
#include <utility>

#include "services/common/client/log.h"

namespace gnomon::logsvc {

ReportWriter::ReportWriter(store::RunStore* runs, Clock* clock, ReportWriterOptions options)
    : runs_(runs),
      max_queued_(options.max_queued),
      writer_({.flush_at = options.max_batch,
               .max_batch = options.max_batch,
               .min_interval = options.min_commit_interval,
               .flush_on_stop = false,
               .clock = clock,
               .weight = [](const PendingReport& r) { return r.weight; }},
              [this](std::vector<PendingReport> batch) {
                // The batch has left the queue: streams waiting for room read
                // on while it is stored.
                NotifyRoom();
                return Apply(std::move(batch));
              }) {}

void ReportWriter::Submit(PendingReport report) {
  report.weight = 0;
  for (const v1::ReportItem& item : report.items) {
    size_t bytes = 0;
    if (item.has_log()) {
      for (const v1::LogLine& line : item.log().lines()) bytes += line.text().size();
    }
    report.weight += std::max<size_t>(1, bytes / kReportWeightBytes);
  }
  writer_.Add(std::move(report));
}

bool ReportWriter::HasRoomOrNotify(std::function<void()> on_room) {
  absl::MutexLock l(&room_mu_);
  if (stopped_ || writer_.queued() < max_queued_) return true;
  room_waiters_.push_back(std::move(on_room));
  return false;
}

void ReportWriter::NotifyRoom() {
  std::vector<std::function<void()>> ready;
  {
    absl::MutexLock l(&room_mu_);
    if (room_waiters_.empty() || (!stopped_ && writer_.queued() >= max_queued_)) return;
    ready.swap(room_waiters_);
  }
  for (std::function<void()>& f : ready) f();
}

void ReportWriter::Stop() {
  writer_.Stop();
  {
    absl::MutexLock l(&room_mu_);
    stopped_ = true;
  }
  // As AwaitRoom returns at Stop, so do the streams waiting for room.
  NotifyRoom();
}

void ReportWriter::AddObserver(Observer observer) {
  absl::MutexLock l(&mu_);
  observers_.push_back(std::move(observer));
}

std::vector<PendingReport> ReportWriter::Apply(std::vector<PendingReport> batch) {
  std::vector<Observer> observers;
  {
    absl::MutexLock l(&mu_);
    observers = observers_;
  }
  // One transaction per group present in the batch (access is checked per group).
  std::map<int64_t, std::vector<size_t>> by_group;
  for (size_t i = 0; i < batch.size(); ++i) by_group[batch[i].group_id].push_back(i);
  std::vector<PendingReport> retry;
  for (const auto& [group_id, reports] : by_group) {
    std::vector<v1::ReportItem> items;
    for (size_t r : reports)
      items.insert(items.end(), batch[r].items.begin(), batch[r].items.end());
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
  return retry;
}

}  // namespace gnomon::logsvc

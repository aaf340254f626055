#include "services/scheduler/dispatch_recorder.h"

#include "services/common/client/log.h"

namespace gnomon::scheduler {

// Transactions at least 10 ms apart (real time: this paces store writes)
// unless 1024 outcomes wait: at low rates one transaction then covers several
// dispatches instead of one each; at most 4096 in one, so a backlog is
// written in transactions of a bounded time. Stop records what is queued first.
DispatchRecorder::DispatchRecorder(store::RunStore* store, Clock* clock, InFlightRuns* in_flight,
                                   absl::Duration defer)
    : store_(store),
      in_flight_(in_flight),
      clock_(clock),
      defer_(defer),
      writer_(
          {.flush_at = 1024,
           .max_batch = 4096,
           .min_interval = absl::Milliseconds(10),
           .flush_on_stop = true,
           .clock = clock},
          [this](std::vector<store::DispatchUpdate> batch) { return Record(std::move(batch)); }),
      deferrer_(clock) {
  if (defer_ > absl::ZeroDuration()) deferrer_.Start([this] { return Release(false); });
}

void DispatchRecorder::Defer(store::DispatchUpdate update) {
  {
    absl::MutexLock l(&mu_);
    if (defer_ > absl::ZeroDuration() && !stopped_ && deferred_.size() < kMaxDeferred) {
      const bool was_empty = deferred_.empty();
      deferred_.push_back({clock_->Now() + defer_, std::move(update)});
      if (was_empty) deferrer_.Wake();  // It waits for nothing in particular.
      return;
    }
  }
  Add(std::move(update));
}

absl::Time DispatchRecorder::Release(bool all) {
  const absl::Time now = clock_->Now();
  std::vector<store::DispatchUpdate> due;
  absl::Time next = absl::InfiniteFuture();
  {
    absl::MutexLock l(&mu_);
    while (!deferred_.empty() && (all || deferred_.front().due <= now)) {
      due.push_back(std::move(deferred_.front().update));
      deferred_.pop_front();
    }
    if (!deferred_.empty()) next = deferred_.front().due;
  }
  for (store::DispatchUpdate& u : due) writer_.Add(std::move(u));
  return next;
}

void DispatchRecorder::Stop() {
  deferrer_.Stop();
  {
    absl::MutexLock l(&mu_);
    stopped_ = true;
  }
  Release(/*all=*/true);
  writer_.Stop();
}

std::vector<store::DispatchUpdate> DispatchRecorder::Record(
    std::vector<store::DispatchUpdate> batch) {
  absl::Status s = store_->RecordDispatches(batch);
  if (!s.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: recording " << batch.size()
                        << " dispatch outcomes failed, will retry: " << s;
    return batch;
  }
  if (in_flight_ != nullptr) {
    std::vector<int64_t> ids;
    ids.reserve(batch.size());
    for (const store::DispatchUpdate& u : batch) ids.push_back(u.run_id);
    in_flight_->Committed(ids);
  }
  return {};
}

}  // namespace gnomon::scheduler

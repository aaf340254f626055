#include "services/scheduler/dispatch_recorder.h"

#include "services/common/client/log.h"

namespace gnomon::scheduler {

// Transactions at least 10 ms apart (real time: this paces store writes)
// unless 1024 outcomes wait: at low rates one transaction then covers several
// dispatches instead of one each; at most 4096 in one, so a backlog is
// written in transactions of a bounded time. Stop records what is queued first.
DispatchRecorder::DispatchRecorder(store::RunStore* store, Clock* clock, InFlightRuns* in_flight)
    : store_(store),
      in_flight_(in_flight),
      writer_(
          {.flush_at = 1024,
           .max_batch = 4096,
           .min_interval = absl::Milliseconds(10),
           .flush_on_stop = true,
           .clock = clock},
          [this](std::vector<store::DispatchUpdate> batch) { return Record(std::move(batch)); }) {}

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

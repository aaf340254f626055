#include "services/scheduler/in_flight_runs.h"

#include "google/protobuf/util/time_util.h"

namespace gnomon::scheduler {

void InFlightRuns::BeginRecording(int64_t trigger_ms) {
  absl::MutexLock l(&mu_);
  ++recording_[trigger_ms];
}

void InFlightRuns::EndRecording(int64_t trigger_ms) {
  absl::MutexLock l(&mu_);
  auto it = recording_.find(trigger_ms);
  if (it != recording_.end() && --it->second <= 0) recording_.erase(it);
}

void InFlightRuns::Sending(int64_t run_id) {
  absl::MutexLock l(&mu_);
  sending_.insert(run_id);
}

void InFlightRuns::Committed(const std::vector<int64_t>& run_ids) {
  absl::MutexLock l(&mu_);
  for (int64_t id : run_ids) {
    if (sending_.erase(id) > 0 && scans_ > 0) committed_in_scan_.insert(id);
  }
}

void InFlightRuns::Dropped(int64_t run_id) {
  absl::MutexLock l(&mu_);
  sending_.erase(run_id);
}

void InFlightRuns::BeginScan() {
  absl::MutexLock l(&mu_);
  if (scans_++ == 0) committed_in_scan_.clear();
}

void InFlightRuns::EndScan() {
  absl::MutexLock l(&mu_);
  if (--scans_ == 0) committed_in_scan_.clear();
}

bool InFlightRuns::Holds(const v1::Run& run) {
  const int64_t trigger_ms =
      google::protobuf::util::TimeUtil::TimestampToMilliseconds(run.trigger_time());
  absl::MutexLock l(&mu_);
  return sending_.contains(run.id()) || committed_in_scan_.contains(run.id()) ||
         recording_.contains(trigger_ms);
}

}  // namespace gnomon::scheduler

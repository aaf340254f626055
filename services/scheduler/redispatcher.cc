#include "services/scheduler/redispatcher.h"

#include <algorithm>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"

namespace gnomon::scheduler {

using google::protobuf::util::TimeUtil;

void Redispatcher::SetOwnership(std::shared_ptr<const Ownership> ownership) {
  bool wake = false;
  {
    absl::MutexLock l(&mu_);
    const Ownership* before = ownership_.get();  // Read under the lock, used in the lambda.
    const bool gained =
        before == nullptr || std::any_of(ownership->partitions.begin(), ownership->partitions.end(),
                                         [before](int p) { return !before->Holds(p); });
    ownership_ = std::move(ownership);
    wake = gained && !ownership_->partitions.empty();
  }
  if (wake) worker_.Wake();
}

int Redispatcher::Scan() {
  std::shared_ptr<const Ownership> own;
  {
    absl::MutexLock l(&mu_);
    own = ownership_;
  }
  const int64_t now = clock_->NowMillis();
  if (!own || own->partitions.empty() || now >= own->valid_until_ms) return 0;
  if (now < hold_until_ms_.load()) return 0;
  store::RunFilter filter;
  filter.statuses = {v1::RUN_STATUS_PENDING};
  filter.partitions = own->partitions;
  filter.limit = options_.batch;
  // Read after BeginScan: an outcome committed before it is not PENDING in
  // what is read, and one committed during the scan is remembered till its end.
  if (in_flight_ != nullptr) in_flight_->BeginScan();
  absl::Cleanup scanned = [this] {
    if (in_flight_ != nullptr) in_flight_->EndScan();
  };
  absl::StatusOr<std::vector<v1::Run>> runs = store_->ListRuns(filter);
  if (!runs.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: reading runs to resend failed: " << runs.status();
    return 0;
  }
  const int64_t again_ms = absl::ToInt64Milliseconds(options_.resend_after);
  absl::flat_hash_map<int64_t, int64_t> still;  // Forget runs no longer PENDING.
  std::vector<v1::Run> stranded;
  const int64_t grace_ms = absl::ToInt64Milliseconds(options_.grace);
  for (v1::Run& r : *runs) {
    if (r.fence_epoch() >= own->EpochOfJob(r.job_id()) &&
        (in_flight_ == nullptr || in_flight_->Holds(r))) {
      continue;  // Ours, in flight.
    }
    const int64_t instant = std::max(TimeUtil::TimestampToMilliseconds(r.scheduled_time()),
                                     TimeUtil::TimestampToMilliseconds(r.trigger_time()));
    if (now < instant + grace_ms) continue;  // An earlier holder may still be sending it.
    auto it = resent_.find(r.id());
    if (it != resent_.end() && now - it->second < again_ms) {
      still.emplace(r.id(), it->second);
      continue;
    }
    still.emplace(r.id(), now);
    stranded.push_back(std::move(r));
  }
  resent_ = std::move(still);
  if (stranded.empty()) return 0;
  const int n = static_cast<int>(stranded.size());
  GNOMON_LOG(INFO) << "scheduler: resending " << n << " runs recorded under an earlier holder";
  resender_->Resend(std::move(stranded), std::move(own));
  return n;
}

}  // namespace gnomon::scheduler

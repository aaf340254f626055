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
  std::vector<v1::Run> stranded;
  std::vector<v1::Run> in_doubt;
  const int64_t grace_ms = absl::ToInt64Milliseconds(options_.grace);
  {
    absl::MutexLock l(&mu_);
    absl::flat_hash_map<int64_t, int64_t> still;  // Forget runs no longer PENDING.
    absl::flat_hash_map<int64_t, bool> still_asked;
    const int64_t hold_until = hold_until_ms_.load();
    for (v1::Run& r : *runs) {
      const bool earlier = r.fence_epoch() < own->EpochOfJob(r.job_id());
      if (!earlier && (in_flight_ == nullptr || in_flight_->Holds(r))) {
        continue;  // Ours, in flight.
      }
      const int64_t id = r.id();
      auto resent = resent_.find(id);
      if (resent != resent_.end()) still.emplace(id, resent->second);
      if (auto asked = asked_.find(id); asked != asked_.end()) {
        still_asked.emplace(id, asked->second);
        if (asked->second) continue;  // The answers are awaited.
      } else if (earlier) {
        // An earlier holder's run: ask the executors first, whatever its
        // instant; only if that settles nothing does the grace apply.
        still_asked.emplace(id, true);
        in_doubt.push_back(std::move(r));
        continue;
      }
      const int64_t instant = std::max(TimeUtil::TimestampToMilliseconds(r.scheduled_time()),
                                       TimeUtil::TimestampToMilliseconds(r.trigger_time()));
      // An earlier holder may still be sending it.
      if (now < instant + grace_ms || now < hold_until) continue;
      if (resent != resent_.end() && now - resent->second < again_ms) continue;
      still[id] = now;
      stranded.push_back(std::move(r));
    }
    resent_ = std::move(still);
    asked_ = std::move(still_asked);
  }
  if (!in_doubt.empty()) {
    GNOMON_LOG(INFO) << "scheduler: asking the executors about " << in_doubt.size()
                     << " runs recorded under an earlier holder";
    resender_->Ask(std::move(in_doubt), own,
                   [this](int64_t run_id, InDoubt what) { Answered(run_id, what); });
  }
  if (stranded.empty()) return 0;
  const int n = static_cast<int>(stranded.size());
  GNOMON_LOG(INFO) << "scheduler: resending " << n << " runs recorded under an earlier holder";
  resender_->Resend(std::move(stranded), std::move(own));
  return n;
}

void Redispatcher::Answered(int64_t run_id, InDoubt what) {
  absl::MutexLock l(&mu_);
  if (auto it = asked_.find(run_id); it != asked_.end()) it->second = false;
  // Held: its RUNNING outcome is on its way to the store; resent now, the
  // run could start on a second executor before that outcome is written.
  if (what != InDoubt::kUnknown) resent_[run_id] = clock_->NowMillis();
}

}  // namespace gnomon::scheduler

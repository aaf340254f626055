#include "services/scheduler/pool_granter.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"

namespace gnomon::scheduler {

using google::protobuf::util::TimeUtil;

void PoolGranter::SetOwnership(std::shared_ptr<const Ownership> ownership) {
  absl::MutexLock l(&mu_);
  ownership_ = std::move(ownership);
  owned_ = true;
}

int PoolGranter::Pass() {
  const int64_t now = clock_->NowMillis();
  std::shared_ptr<const Ownership> ownership;
  {
    absl::MutexLock l(&mu_);
    if (owned_ &&
        (!ownership_ || ownership_->partitions.empty() || now >= ownership_->valid_until_ms)) {
      return 0;  // Nothing held now.
    }
    ownership = ownership_;
  }
  absl::StatusOr<std::vector<std::string>> pools =
      store_->ListQueuedPools(ownership ? ownership->partitions : std::vector<int>{});
  if (!pools.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: pools with queued runs unreadable: " << pools.status();
    return 0;
  }
  queued_.store(!pools->empty(), std::memory_order_relaxed);
  const store::PoolStore::EpochOf epoch_of = [&](int64_t job_id) -> std::optional<int64_t> {
    if (!ownership) return 0;
    if (!ownership->HoldsJob(job_id)) return std::nullopt;
    return ownership->EpochOfJob(job_id);
  };
  int let_go = 0;
  for (const std::string& pool : *pools) {
    // The runs let go carry `now` as their trigger time: in flight here
    // (InFlightRuns) from before the grant commits until the sender has
    // them, so no scan resends them meanwhile. One the sender cannot route
    // now stays PENDING for the Redispatcher, as any recorded run.
    if (in_flight_ != nullptr) in_flight_->BeginRecording(now);
    absl::Cleanup recorded = [&] {
      if (in_flight_ != nullptr) in_flight_->EndRecording(now);
    };
    absl::StatusOr<std::vector<v1::Run>> runs = store_->GrantPoolSlots(pool, epoch_of, now);
    if (!runs.ok()) {
      GNOMON_LOG(WARNING) << "scheduler: pool '" << pool << "': " << runs.status();
      continue;
    }
    if (runs->empty()) continue;
    if (metrics_ != nullptr) {
      for (const v1::Run& r : *runs) {
        metrics_->PoolRunLetGo(now - TimeUtil::TimestampToMilliseconds(r.queued_time()));
      }
    }
    let_go += static_cast<int>(runs->size());
    sender_->Resend(*std::move(runs), ownership ? ownership : std::make_shared<Ownership>());
  }
  return let_go;
}

}  // namespace gnomon::scheduler

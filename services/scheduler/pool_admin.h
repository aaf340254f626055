// PoolAdmin: the pool methods of gnomon.v1.JobAdmin (pools of concurrency
// slots, Job.pool), and the check that a job names a pool that exists.
//
//   PoolAdmin pools(store, clock);
//   absl::StatusOr<v1::Pool> p = pools.Create(proto);
//   RETURN_IF_ERROR(CheckPoolExists(store, job.pool(), "job.pool"));
//
// Thread safety: thread-safe (the store's).
#ifndef GNOMON_SERVICES_SCHEDULER_POOL_ADMIN_H_
#define GNOMON_SERVICES_SCHEDULER_POOL_ADMIN_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/admin.pb.h"
#include "services/common/client/clock.h"
#include "services/common/store/pool_store.h"

namespace gnomon::scheduler {

inline constexpr uint32_t kMaxPoolSlots = 10000;
inline constexpr int kMaxPoolQueueLimit = 1000;

// OK when `name` is empty (no pool) or a pool of that name exists; NotFound
// naming `field` otherwise. Unimplemented when `store` is null and a pool
// is named.
absl::Status CheckPoolExists(store::PoolStore* store, std::string_view name,
                             std::string_view field);

class PoolAdmin {
 public:
  PoolAdmin(store::PoolStore* store, Clock* clock) : store_(store), clock_(clock) {}

  absl::StatusOr<v1::Pool> Create(const v1::Pool& pool);
  absl::StatusOr<v1::Pool> Get(std::string_view name);
  absl::StatusOr<v1::ListPoolsResponse> List();
  absl::StatusOr<v1::Pool> Update(const v1::Pool& pool);
  absl::Status Delete(std::string_view name);
  absl::StatusOr<v1::ListPoolQueueResponse> Queue(const v1::ListPoolQueueRequest& request);

 private:
  store::PoolStore* const store_;
  Clock* const clock_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_POOL_ADMIN_H_

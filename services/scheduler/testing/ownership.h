// Ownerships for the scheduler's unit tests, as a PartitionLease publishes
// them, over the partitions of a store from store::testing::TempStore (the
// default count, which a new store records).
//
//   std::shared_ptr<Ownership> o = testing::Holding({testing::PartitionOf(job.id())});
//   o->epochs[testing::PartitionOf(job.id())] = 3;
//   loop.SetOwnership(o);
//
// Thread safety: plain functions.
#ifndef GNOMON_SERVICES_SCHEDULER_TESTING_OWNERSHIP_H_
#define GNOMON_SERVICES_SCHEDULER_TESTING_OWNERSHIP_H_

#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "services/common/store/job_store.h"
#include "services/scheduler/partition_lease.h"

namespace gnomon::scheduler::testing {

// The partition count of a store from TempStore.
inline constexpr int kPartitions = store::kDefaultPartitions;

inline int PartitionOf(int64_t job_id) { return store::PartitionOf(job_id, kPartitions); }

// Holds `partitions` (ascending) of kPartitions, every epoch 0, until
// `valid_until_ms` on the local clock (default: for ever).
inline std::shared_ptr<Ownership> Holding(
    std::vector<int> partitions, int64_t valid_until_ms = std::numeric_limits<int64_t>::max()) {
  auto o = std::make_shared<Ownership>();
  o->partitions = std::move(partitions);
  o->epochs.assign(kPartitions, 0);
  o->valid_until_ms = valid_until_ms;
  return o;
}

}  // namespace gnomon::scheduler::testing

#endif  // GNOMON_SERVICES_SCHEDULER_TESTING_OWNERSHIP_H_

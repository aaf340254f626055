// Which gnomond replica schedules what, read back by the benchmarks from the
// store: the holders of the scheduler partitions ("partition/N" rows of the
// lease table, holder "REPLICA_ID#incarnation") and the fires each replica
// recorded. A fire is attributed by its job's partition (job_id % the
// installation's partition count, from the `setting` table) and the
// fencing epoch it carries (run.fence_epoch): each new holder of a partition
// takes a new epoch, so (partition, epoch) names one holder.
//
//   absl::StatusOr<PartitionHolders> h = ReadPartitionHolders(*reader, NowMillis());
//   std::vector<int> held = h->Held("gnomond-2");
//   absl::StatusOr<FireShares> f = ReadFireShares(*reader, t0_ms, t1_ms, {*before, *after});
//
// Thread safety: no shared state.
#ifndef GNOMON_BENCH_PARTITION_SHARES_H_
#define GNOMON_BENCH_PARTITION_SHARES_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bench/store_reader.h"
#include "services/common/store/store.h"

namespace gnomon::bench {

// The partition leases at one instant. Index = partition (so the vectors'
// size is the installation's partition count; 0 when not read).
struct PartitionHolders {
  // The holder's replica id; "" when the lease is free or expired at `now_ms`.
  std::vector<std::string> replica;
  std::vector<int64_t> epoch;

  int count() const { return static_cast<int>(epoch.size()); }
  // Partitions `id` holds, ascending.
  std::vector<int> Held(const std::string& id) const;
  // Replica id -> partitions held ("" counts the unheld ones).
  std::map<std::string, int> Counts() const;
};

// The lease table as of `now_ms` (the bench's clock: the store runs on the
// same machine).
absl::StatusOr<PartitionHolders> ReadPartitionHolders(StoreReader& db, int64_t now_ms);

// Runs recorded in [from_ms, to_ms) (trigger_ms), by the replica that held
// the job's partition under the run's epoch in one of `snapshots`.
struct FireShares {
  std::map<std::string, int64_t> by_replica;
  int64_t unattributed = 0;  // (partition, epoch) seen in no snapshot.
  int64_t total = 0;
};
absl::StatusOr<FireShares> ReadFireShares(StoreReader& db, int64_t from_ms, int64_t to_ms,
                                          const std::vector<PartitionHolders>& snapshots);

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_PARTITION_SHARES_H_

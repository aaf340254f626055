// PoolStore: pools of concurrency slots (gnomon.v1.Pool, keyed by name), the
// runs holding their slots and the runs queued for one (RUN_STATUS_QUEUED).
//
// A run of a job naming a pool is inserted QUEUED (RunStore::InsertRuns puts
// it in its pool's queue in the same transaction). A replica holding the
// run's partition lets it go with GrantPoolSlots, which gives it a slot and
// makes it PENDING in one transaction, at most the pool's slots at once
// across every replica (the pool's row is locked while its slots are
// counted); it is then sent like any recorded run. A slot is freed by the
// next grant of its pool once its run has ended, so a replica that dies
// holding slots leaks none: they are keyed by run, not by replica.
//
//   absl::StatusOr<std::vector<std::string>> pools = store.ListQueuedPools(held);
//   absl::StatusOr<std::vector<v1::Run>> let_go =
//       store.GrantPoolSlots("etl-db", epoch_of_job, now_ms);
//
// One of the role-sized interfaces that together make up the Store
// (store.h); conventions (times, errors, thread safety) are store.h's.
#ifndef GNOMON_SERVICES_COMMON_STORE_POOL_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_POOL_STORE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/common.pb.h"

namespace gnomon::store {

// A run failed as "executor lost" (handle code 504) keeps its slot this long
// after its end: its executor may still be running it (the verdict is
// provisional, see RunStore::FailRuns).
inline constexpr int64_t kLostRunSlotHoldMs = 60'000;

// One pool's runs (ListPoolQueue).
struct PoolQueue {
  std::vector<v1::Run> running;  // Holding a slot, oldest slot first.
  std::vector<v1::Run> queued;   // Waiting, in grant order.
  int32_t queued_total = 0;
};

class PoolStore {
 public:
  virtual ~PoolStore() = default;

  // Stores a new pool (its id, create and update times are the store's).
  // AlreadyExists naming pool.name if one has that name.
  virtual absl::StatusOr<v1::Pool> CreatePool(const v1::Pool& pool, int64_t now_ms) = 0;
  // NotFound naming the pool. `running` and `queued` are filled in.
  virtual absl::StatusOr<v1::Pool> GetPool(std::string_view name, int64_t now_ms) = 0;
  // Every pool, by name, with `running` and `queued`.
  virtual absl::StatusOr<std::vector<v1::Pool>> ListPools(int64_t now_ms) = 0;
  // Replaces the description and slots of the pool named pool.name.
  // NotFound naming the pool.
  virtual absl::StatusOr<v1::Pool> UpdatePool(const v1::Pool& pool, int64_t now_ms) = 0;
  // NotFound naming the pool; FailedPrecondition naming a job ("job 12")
  // that names it.
  virtual absl::Status DeletePool(std::string_view name) = 0;
  // The runs holding the pool's slots and the first `limit` queued (whether
  // or not a pool of that name exists).
  virtual absl::StatusOr<PoolQueue> ListPoolQueue(std::string_view name, int limit,
                                                  int64_t now_ms) = 0;

  // The pools with runs queued for jobs of `partitions` (empty: any).
  virtual absl::StatusOr<std::vector<std::string>> ListQueuedPools(
      const std::vector<int>& partitions) = 0;
  // One transaction, the pool's row locked: frees the slots of its runs
  // that ended (or are gone), then lets go the runs at the head of its queue
  // that fit in the free slots and whose job is this holder's: `epoch_of`
  // gives the fencing epoch of a job's partition, nullopt when another
  // replica holds it. Only the first (free slots) runs of the queue are
  // looked at: one of them another replica holds is left for that holder,
  // and no run behind them goes in its place (so a run never overtakes more
  // than the free slots' worth of others, whichever replica lets it go). Each run let go holds a
  // slot and becomes PENDING, with trigger time `now_ms` and that epoch; returned as stored. A pool
  // that does not exist (deleted while runs were queued) limits nothing.
  using EpochOf = std::function<std::optional<int64_t>(int64_t job_id)>;
  virtual absl::StatusOr<std::vector<v1::Run>> GrantPoolSlots(std::string_view pool,
                                                              const EpochOf& epoch_of,
                                                              int64_t now_ms) = 0;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_POOL_STORE_H_

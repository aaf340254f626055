// StatsStore: the daily statistics of runs (counts, duration and lateness percentiles).
//
// Maintained by the RunStore transactions; read by the dashboard.
//
// One of the role-sized interfaces that together make up the Store
// (store.h); the same SQL store implements them all, and each part of gnomon
// takes only the ones it uses. Conventions (times, errors, thread safety) are
// store.h's.
#ifndef GNOMON_SERVICES_COMMON_STORE_STATS_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_STATS_STORE_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/log.pb.h"

namespace gnomon::store {

class StatsStore {
 public:
  virtual ~StatsStore() = default;

  // Per-day (UTC) counts and duration percentiles, maintained incrementally
  // in the transactions that change run status (no re-aggregation of runs).
  // Days in [from_day_ms, to_day_ms); job_id 0 gives one total row per day,
  // otherwise that job's rows. Rows come ordered by day; days without runs
  // are absent. A run counts on the UTC day of its trigger time: running
  // while PENDING/RUNNING, then succeeded or failed; durations (end - start
  // of runs that started) go to a log-scale histogram, so p50/p99 are
  // within 12.5% of the true nearest-rank value (stats_histogram.h).
  virtual absl::StatusOr<std::vector<v1::StatsRow>> GetStats(int64_t from_day_ms, int64_t to_day_ms,
                                                             int64_t job_id) = 0;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_STATS_STORE_H_

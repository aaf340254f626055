// StatsDeltas: the changes one transaction makes to the daily statistics
// counters, collected as runs are inserted and end; once that transaction
// has committed they go to the StatsWriter (stats_writer.h), which writes
// them, merged with the others of a few seconds, in a transaction of its own.
//
// What is counted, per (UTC day of the run's trigger time, job):
//   running    runs recorded and not yet ended (PENDING or RUNNING): +1 when
//              a run is inserted active, -1 when it ends;
//   succeeded  runs that ended SUCCEEDED; failed: runs that ended FAILED
//              (including never dispatched ones and those failed by FailRuns);
//   durations  end - start of every ended run that has a start time (ran on
//              an executor), in the buckets of stats_histogram.h;
//   lateness   dispatch time - scheduled instant of every schedule slot run
//              (cron, fixed rate or delay, misfire) when its dispatch is
//              first recorded, in the same buckets (report_lateness).
// A run inserted already ended counts straight as succeeded/failed. A run
// whose provisional executor-lost verdict is replaced by the executor's own
// result (store.h, ApplyReports) moves from failed to the result's outcome,
// its duration with it (Retracted, then Ended).
//
// Deltas are written in key order with one multi-row upsert for the
// (day, job) counters and one for the (day, job, bucket) histograms (per
// kMaxBatchRows keys), which keeps MySQL row locks in a stable order.
//
// Example:
//   StatsDeltas deltas;
//   deltas.Ended(facts, /*was_active=*/true);
//   absl::Status s = deltas.Apply(conn, sql);
//
// Thread safety: not thread-safe.
#ifndef GNOMON_SERVICES_COMMON_STORE_STATS_DELTAS_H_
#define GNOMON_SERVICES_COMMON_STORE_STATS_DELTAS_H_

#include <cstdint>
#include <map>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/common.pb.h"
#include "services/common/store/batch_sql.h"
#include "services/common/store/sql_conn.h"
#include "services/common/store/statements.h"

namespace gnomon::store::internal {

inline constexpr int64_t kDayMs = 86400000;

// UTC midnight of the day holding ms (0 for ms <= 0).
inline int64_t DayOf(int64_t ms) { return ms <= 0 ? 0 : ms - ms % kDayMs; }

// Whether a run of this trigger type counts in the lateness histogram: the
// slots of a schedule, fired on time or late. Manual, API, child and retry
// runs have no slot to be late for, and backfills are late on purpose.
bool LatenessCounted(v1::TriggerType type);

// The columns of a run the statistics counters need.
struct RunFacts {
  int64_t job_id = 0;
  int64_t trigger_ms = 0;
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  v1::RunStatus status = v1::RUN_STATUS_UNSPECIFIED;
};

class StatsDeltas {
 public:
  // A run was inserted PENDING or RUNNING.
  void Inserted(int64_t job_id, int64_t trigger_ms);
  // A run ended (facts read after the change); was_active: it was counted
  // as running before (false for a run inserted already ended, or one whose
  // earlier end was Retracted).
  void Ended(const RunFacts& facts, bool was_active);
  // An ended run's outcome is about to be replaced (facts as counted when it
  // ended): its succeeded/failed count and duration are taken back, and the
  // replacing outcome is then counted with Ended(..., was_active=false).
  void Retracted(const RunFacts& facts);
  // A run's dispatch was recorded for the first time; counted only for
  // schedule slots (see LatenessCounted).
  void Dispatched(int64_t job_id, int64_t trigger_ms, v1::TriggerType type, int64_t scheduled_ms,
                  int64_t dispatch_ms);
  // Adds `other`'s changes to these.
  void Add(const StatsDeltas& other);
  bool empty() const { return days_.empty() && buckets_.empty() && lateness_.empty(); }
  // Writes the collected changes.
  absl::Status Apply(SqlConn& c, const Statements& sql) const;

 private:
  struct Counters {
    int64_t running = 0;
    int64_t succeeded = 0;
    int64_t failed = 0;
  };
  // Adds `sign` to the outcome counter and duration bucket of an ended run.
  void CountEnd(const RunFacts& facts, int sign);

  std::map<std::pair<int64_t, int64_t>, Counters> days_;                   // (day, job).
  using Histogram = std::map<std::tuple<int64_t, int64_t, int>, int64_t>;  // (day, job, bucket).
  static absl::Status ApplyHistogram(SqlConn& c, const BatchSql& upsert, const Histogram& h);
  Histogram buckets_;
  Histogram lateness_;
};

}  // namespace gnomon::store::internal

#endif  // GNOMON_SERVICES_COMMON_STORE_STATS_DELTAS_H_

// StatsWriter: writes the daily statistics that run transactions change
// (StatsDeltas) a few seconds after them, in a transaction of its own.
//
// Why not in the run transactions themselves: under a burst every writer of
// runs (the run recorder, the dispatch recorder, the report writer, on every
// replica) would lock the same (day, job) counter rows, one per job, and
// each would wait for the others' commits; profiled on MariaDB, those
// upserts were also ~40 µs of its time per run. Merged over `interval`, a
// job due every second has its counters written once per interval, and a
// run's "running" +1 and -1 cancel out before they are written.
//
// The trade: statistics lag the runs by up to `interval` (reads in this
// process flush first, so they lag only other replicas'), and a crash loses
// at most that interval of counts; the runs themselves are exact.
//
//   StatsWriter stats(db, sql, absl::Seconds(5));   // flushes every 5 s
//   ... after a run transaction commits: stats.Add(std::move(deltas));
//   absl::Status s = stats.Flush();                 // before reading statistics
//
// Thread safety: thread-safe. Flushes run one at a time.
#ifndef GNOMON_SERVICES_COMMON_STORE_STATS_WRITER_H_
#define GNOMON_SERVICES_COMMON_STORE_STATS_WRITER_H_

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/store/sql_conn.h"
#include "services/common/store/statements.h"
#include "services/common/store/stats_deltas.h"

namespace gnomon::store::internal {

class StatsWriter {
 public:
  // Flushes every `interval` on its own thread; zero: at each Add.
  StatsWriter(SqlDb* db, const Statements& sql, absl::Duration interval);
  // Stops the thread, then flushes what is pending (once; a failure is logged).
  ~StatsWriter();
  StatsWriter(const StatsWriter&) = delete;
  StatsWriter& operator=(const StatsWriter&) = delete;

  // Queues the changes of a committed transaction.
  void Add(const StatsDeltas& deltas) ABSL_LOCKS_EXCLUDED(mu_, flush_mu_);
  // Writes what is queued; on failure it stays queued for the next flush.
  absl::Status Flush() ABSL_LOCKS_EXCLUDED(mu_, flush_mu_);

 private:
  SqlDb* const db_;
  const Statements& sql_;
  const absl::Duration interval_;
  absl::Mutex flush_mu_ ABSL_ACQUIRED_BEFORE(mu_);  // One flush at a time.
  absl::Mutex mu_;
  StatsDeltas pending_ ABSL_GUARDED_BY(mu_);
  PeriodicWorker worker_;
};

}  // namespace gnomon::store::internal

#endif  // GNOMON_SERVICES_COMMON_STORE_STATS_WRITER_H_

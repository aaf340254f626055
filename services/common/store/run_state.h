// RunState: what SqlStore reads of a batch of runs before it changes them,
// changes in memory, and writes back, in one statement per kind per batch.
//
// RecordDispatches, ApplyReports and FailRuns all read their runs with one
// SELECT ... WHERE id IN (...) (LockRuns), apply each item to the in-memory
// state in the order given (so a batch behaves exactly as the items applied
// one after another), then write the changed runs back whole with one
// multi-row statement (WriteRuns: an UPDATE ... FROM VALUES on SQLite, an
// upsert on the primary key on MySQL), whose cost grows with the rows.
//
// No deadlocks between writers of the same runs: on MySQL LockRuns takes
// the row locks up front, with SELECT ... ORDER BY id FOR UPDATE, which
// InnoDB acquires walking the primary key upwards; WriteRuns then only
// touches rows already locked. Every multi-row writer of `run` (the
// dispatch recorder, the report writer, FailRuns; CompleteFollowups locks
// through its own ascending UPDATE ... WHERE id IN) therefore takes run
// locks in ascending id order, so no two of them can wait for each other
// in a cycle; report counters are locked after runs, in key order
// (stats_deltas.h). SQLite has one writer at a time (BEGIN IMMEDIATE).
//
// Example:
//   absl::StatusOr<RunStates> runs = LockRuns(c, sql, ids);
//   RunState& r = (*runs)[id]; r.status = v1::RUN_STATUS_FAILED; r.changed = true;
//   absl::Status s = WriteRuns(c, sql, *runs);
//
// Thread safety: not thread-safe; used inside one transaction.
#ifndef GNOMON_SERVICES_COMMON_STORE_RUN_STATE_H_
#define GNOMON_SERVICES_COMMON_STORE_RUN_STATE_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gnomon/v1/common.pb.h"
#include "services/common/store/sql_conn.h"
#include "services/common/store/statements.h"
#include "services/common/store/stats_deltas.h"

namespace gnomon::store::internal {

// The columns of kRunStateColumns.
struct RunState {
  int64_t id = 0;
  int64_t job_id = 0;
  int64_t group_id = 0;
  int64_t trigger_ms = 0;
  v1::RunStatus status = v1::RUN_STATUS_UNSPECIFIED;
  int32_t trigger_code = 0;
  std::string executor_address;
  int64_t dispatch_ms = 0;
  int32_t handle_code = 0;
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  int64_t fence_epoch = 0;
  bool followup_pending = false;
  int64_t log_line_count = 0;
  bool log_truncated = false;
  std::string trigger_message;
  std::string handle_message;
  // When the pending follow-up is listed (0: at once).
  int64_t followup_due_ms = 0;
  // Bytes of log text stored (StoreOptions.max_log_bytes_per_run).
  int64_t log_bytes = 0;
  // What its handler returned (RunResult.output).
  std::string output;
  // Whether a success has a follow-up (Run.success_has_followups).
  bool followup_on_success = true;                              // Read only.
  int64_t scheduled_ms = 0;                                     // Read only.
  v1::TriggerType trigger_type = v1::TRIGGER_TYPE_UNSPECIFIED;  // Read only.
  bool changed = false;                                         // Written back by WriteRuns.

  bool active() const {
    return status == v1::RUN_STATUS_PENDING || status == v1::RUN_STATUS_RUNNING ||
           status == v1::RUN_STATUS_QUEUED;
  }
  bool ended() const {
    return status == v1::RUN_STATUS_SUCCEEDED || status == v1::RUN_STATUS_FAILED;
  }
  // Failed by the provisional "executor lost" verdict (FailRuns with
  // HANDLE_CODE_EXECUTOR_LOST, store.h) — or by an executor's own 504.
  bool lost_verdict() const {
    return status == v1::RUN_STATUS_FAILED && handle_code == v1::HANDLE_CODE_EXECUTOR_LOST;
  }
  RunFacts facts() const { return RunFacts{job_id, trigger_ms, start_ms, end_ms, status}; }
  // Whether the run, having just ended with `status`, has a follow-up to
  // queue: a failure always (retries, alarms); a success only when its job
  // had something to follow it when the run was recorded.
  bool ends_with_followup() const {
    return status != v1::RUN_STATUS_SUCCEEDED || followup_on_success;
  }
};

using RunStates = std::map<int64_t, RunState>;  // By id, ascending.

// Reads (and on MySQL locks, in ascending id order) the runs of `ids`
// (duplicates allowed); missing runs are absent from the result.
absl::StatusOr<RunStates> LockRuns(SqlConn& c, const Statements& sql, std::vector<int64_t> ids);
// Writes the runs marked changed, in ascending id order.
absl::Status WriteRuns(SqlConn& c, const Statements& sql, const RunStates& runs);

}  // namespace gnomon::store::internal

#endif  // GNOMON_SERVICES_COMMON_STORE_RUN_STATE_H_

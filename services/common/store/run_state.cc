#include "services/common/store/run_state.h"

#include <algorithm>
#include <utility>

#include "services/common/status/status_macros.h"
#include "services/common/store/batch_sql.h"

namespace gnomon::store::internal {

absl::StatusOr<RunStates> LockRuns(SqlConn& c, const Statements& sql, std::vector<int64_t> ids) {
  RunStates out;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.empty()) return out;
  std::vector<SqlRow> keys;
  keys.reserve(ids.size());
  for (int64_t id : ids) keys.push_back({SqlInt(id)});
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, QueryPadded(c, sql.lock_runs, keys));
  for (const SqlRow& row : rows) {
    RunState r;
    r.id = ColInt(row, 0);
    r.job_id = ColInt(row, 1);
    r.group_id = ColInt(row, 2);
    r.trigger_ms = ColInt(row, 3);
    r.status = static_cast<v1::RunStatus>(ColInt(row, 4));
    r.trigger_code = static_cast<int32_t>(ColInt(row, 5));
    r.executor_address = ColStr(row, 6);
    r.dispatch_ms = ColInt(row, 7);
    r.handle_code = static_cast<int32_t>(ColInt(row, 8));
    r.start_ms = ColInt(row, 9);
    r.end_ms = ColInt(row, 10);
    r.fence_epoch = ColInt(row, 11);
    r.followup_pending = ColInt(row, 12) != 0;
    r.log_line_count = ColInt(row, 13);
    r.log_truncated = ColInt(row, 14) != 0;
    r.trigger_message = ColStr(row, 15);
    r.handle_message = ColStr(row, 16);
    r.followup_due_ms = ColInt(row, 17);
    r.log_bytes = ColInt(row, 18);
    r.output = ColStr(row, 19);
    r.followup_on_success = ColInt(row, 20) != 0;
    r.scheduled_ms = ColInt(row, 21);
    r.trigger_type = static_cast<v1::TriggerType>(ColInt(row, 22));
    out.emplace(r.id, std::move(r));
  }
  return out;
}

absl::Status WriteRuns(SqlConn& c, const Statements& sql, const RunStates& runs) {
  std::vector<SqlRow> rows;
  for (const auto& [id, r] : runs) {
    if (!r.changed) continue;
    rows.push_back({SqlInt(id),
                    SqlInt(r.job_id),
                    SqlInt(r.group_id),
                    SqlInt(r.trigger_type),
                    SqlInt(r.status),
                    SqlInt(r.trigger_code),
                    SqlText(r.trigger_message),
                    SqlText(r.executor_address),
                    SqlInt(r.dispatch_ms),
                    SqlInt(r.handle_code),
                    SqlText(r.handle_message),
                    SqlInt(r.start_ms),
                    SqlInt(r.end_ms),
                    SqlInt(r.fence_epoch),
                    SqlInt(r.followup_pending ? 1 : 0),
                    SqlInt(r.log_line_count),
                    SqlInt(r.log_truncated ? 1 : 0),
                    SqlInt(r.followup_due_ms),
                    SqlInt(r.log_bytes),
                    SqlText(r.output)});
  }
  if (rows.empty()) return absl::OkStatus();
  return ExecPadded(c, sql.update_runs, rows);
}

}  // namespace gnomon::store::internal

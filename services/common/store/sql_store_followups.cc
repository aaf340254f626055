// SqlStore: follow-ups of ended runs, failing lost runs, and run retention.
#include <algorithm>
#include <map>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/batch_sql.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/run_state.h"
#include "services/common/store/sql_store.h"
#include "services/common/store/stats_deltas.h"

namespace gnomon::store::internal {
namespace {

int64_t ClampBatch(int limit) { return limit <= 0 ? 100 : std::min(limit, 10000); }

// `run_ids` (deduplicated, ascending: an UPDATE ... WHERE id IN locks them
// in id order, run_state.h) as rows of (id) for a multi-row statement.
std::vector<SqlRow> AscendingIdRows(const std::vector<int64_t>& run_ids) {
  std::vector<int64_t> ids = run_ids;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<SqlRow> rows;
  rows.reserve(ids.size());
  for (int64_t id : ids) rows.push_back({SqlInt(id)});
  return rows;
}

}  // namespace

absl::StatusOr<std::vector<v1::Run>> SqlStore::ListPendingFollowups(
    int limit, int64_t now_ms, const std::vector<int>& partitions) {
  std::vector<v1::Run> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        c.Query(partitions.empty() ? sql_.select_pending_followups
                                   : PendingFollowupsInPartitionsSql(partitions_, partitions),
                {SqlInt(now_ms), SqlInt(ClampBatch(limit))}));
    out.reserve(rows.size());
    for (const SqlRow& row : rows) out.push_back(RunFromRow(row));
    return absl::OkStatus();
  }));
  return out;
}

absl::Status SqlStore::CompleteFollowups(const std::vector<int64_t>& run_ids) {
  if (run_ids.empty()) return absl::OkStatus();
  const std::vector<SqlRow> rows = AscendingIdRows(run_ids);
  return db_->Transact(
      [&](SqlConn& c) -> absl::Status { return ExecPadded(c, sql_.complete_followups, rows); });
}

absl::Status SqlStore::DeferFollowups(const std::vector<std::pair<int64_t, int64_t>>& due) {
  if (due.empty()) return absl::OkStatus();
  // By id, the last instant given for a run winning (as if applied in order).
  std::map<int64_t, int64_t> by_id;
  for (const auto& [id, due_ms] : due) by_id[id] = due_ms;
  std::vector<SqlRow> rows;
  rows.reserve(by_id.size());
  for (const auto& [id, due_ms] : by_id) rows.push_back({SqlInt(id), SqlInt(due_ms)});
  return db_->Transact(
      [&](SqlConn& c) -> absl::Status { return ExecPadded(c, sql_.defer_followups, rows); });
}

absl::StatusOr<std::vector<v1::Run>> SqlStore::ListDueDeadlines(
    int limit, int64_t now_ms, const std::vector<int>& partitions) {
  std::vector<v1::Run> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out.clear();
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                     c.Query(DueDeadlinesSql(partitions_, partitions),
                             {SqlInt(now_ms), SqlInt(ClampBatch(limit))}));
    std::vector<SqlRow> firsts;
    for (const SqlRow& row : rows) {
      out.push_back(RunFromRow(row));
      firsts.push_back({SqlInt(out.back().id())});
    }
    if (firsts.empty()) return absl::OkStatus();
    ASSIGN_OR_RETURN(std::vector<SqlRow> retries, QueryPadded(c, sql_.select_retries_of, firsts));
    for (const SqlRow& row : retries) out.push_back(RunFromRow(row));
    return absl::OkStatus();
  }));
  return out;
}

absl::Status SqlStore::CompleteDeadlines(const std::vector<int64_t>& run_ids) {
  if (run_ids.empty()) return absl::OkStatus();
  const std::vector<SqlRow> rows = AscendingIdRows(run_ids);
  return db_->Transact(
      [&](SqlConn& c) -> absl::Status { return ExecPadded(c, sql_.complete_deadlines, rows); });
}

absl::Status SqlStore::RecordAlarmStatus(int64_t run_id, std::string_view status) {
  const std::string text(status.substr(0, 1024));
  return db_->Transact([&](SqlConn& c) -> absl::Status {
    return c.Exec(sql_.update_alarm_status, {SqlText(text), SqlInt(run_id)}).status();
  });
}

absl::StatusOr<int64_t> SqlStore::FailRuns(const std::vector<int64_t>& run_ids, int32_t handle_code,
                                           std::string_view handle_message, int64_t now_ms) {
  if (run_ids.empty()) return 0;
  const std::string message(handle_message);
  int64_t changed = 0;
  StatsDeltas deltas;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    changed = 0;
    ASSIGN_OR_RETURN(RunStates runs, LockRuns(c, sql_, run_ids));
    deltas = StatsDeltas();
    for (auto& [id, r] : runs) {
      if (!r.active()) continue;                // Already ended.
      if (r.status == v1::RUN_STATUS_QUEUED) {  // Killed in its pool's queue: it leaves it.
        RETURN_IF_ERROR(c.Exec(sql_.delete_pool_queue, {SqlInt(id)}).status());
      }
      r.status = v1::RUN_STATUS_FAILED;
      r.handle_code = handle_code;
      r.handle_message = message;
      r.end_ms = now_ms;
      r.followup_pending = true;
      r.changed = true;
      deltas.Ended(r.facts(), /*was_active=*/true);
      ++changed;
    }
    return WriteRuns(c, sql_, runs);
  }));
  stats_->Add(deltas);
  return changed;
}

absl::StatusOr<int64_t> SqlStore::DeleteEndedRuns(SqlConn& c, const std::vector<int64_t>& ids) {
  int64_t deleted = 0;
  for (int64_t id : ids) {
    ASSIGN_OR_RETURN(ExecResult r, c.Exec(sql_.delete_ended_run, {SqlInt(id)}));
    if (r.affected_rows == 0) continue;  // Changed since it was chosen.
    RETURN_IF_ERROR(c.Exec(sql_.delete_run_logs, {SqlInt(id)}));
    ++deleted;
  }
  return deleted;
}

absl::StatusOr<int64_t> SqlStore::DeleteRunsEndedBefore(int64_t before_ms, int limit) {
  if (limit <= 0) return 0;
  int64_t deleted = 0;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        c.Query(sql_.select_runs_ended_before, {SqlInt(before_ms), SqlInt(ClampBatch(limit))}));
    std::vector<int64_t> ids;
    ids.reserve(rows.size());
    for (const SqlRow& row : rows) ids.push_back(ColInt(row, 0));
    ASSIGN_OR_RETURN(int64_t n, DeleteEndedRuns(c, ids));
    deleted = n;
    return absl::OkStatus();
  }));
  return deleted;
}

absl::StatusOr<int64_t> SqlStore::TrimRunsPerJob(int64_t keep, int limit) {
  if (limit <= 0) return 0;
  const int64_t budget = ClampBatch(limit);
  keep = std::max<int64_t>(keep, 0);
  // Choose outside the write transaction (index walks per job, no locks
  // held), then delete in one short transaction that re-checks each run.
  std::vector<int64_t> ids;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    constexpr int64_t kJobPage = 500;
    int64_t after = 0;
    while (static_cast<int64_t>(ids.size()) < budget) {
      ASSIGN_OR_RETURN(std::vector<SqlRow> jobs,
                       c.Query(sql_.select_job_ids_after, {SqlInt(after), SqlInt(kJobPage)}));
      for (const SqlRow& job : jobs) {
        after = ColInt(job, 0);
        // The newest run beyond the `keep` newest: it and older ones may go.
        ASSIGN_OR_RETURN(std::vector<SqlRow> cutoff,
                         c.Query(sql_.select_keep_cutoff, {SqlInt(after), SqlInt(keep)}));
        if (cutoff.empty()) continue;
        ASSIGN_OR_RETURN(std::vector<SqlRow> runs,
                         c.Query(sql_.select_trimmable_runs,
                                 {SqlInt(after), SqlInt(ColInt(cutoff.front(), 0)),
                                  SqlInt(budget - static_cast<int64_t>(ids.size()))}));
        for (const SqlRow& run : runs) ids.push_back(ColInt(run, 0));
        if (static_cast<int64_t>(ids.size()) >= budget) break;
      }
      if (static_cast<int64_t>(jobs.size()) < kJobPage) break;
    }
    return absl::OkStatus();
  }));
  if (ids.empty()) return 0;
  int64_t deleted = 0;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(int64_t n, DeleteEndedRuns(c, ids));
    deleted = n;
    return absl::OkStatus();
  }));
  return deleted;
}

}  // namespace gnomon::store::internal

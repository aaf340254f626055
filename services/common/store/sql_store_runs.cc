// SqlStore: dispatch outcomes, executor reports, run and run-log queries.
#include <algorithm>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
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

int64_t RunIdOf(const v1::ReportItem& item) {
  switch (item.item_case()) {
    case v1::ReportItem::kStarted:
      return item.started().run_id();
    case v1::ReportItem::kLog:
      return item.log().run_id();
    case v1::ReportItem::kResult:
      return item.result().run_id();
    case v1::ReportItem::ITEM_NOT_SET:
      break;
  }
  return 0;
}

// Whether a result for the ended run `r` replaces its outcome. Only the
// provisional "executor lost" verdict gives way, to the executor's own result
// (it ran after all: its result was in the executor's spool). The same result
// again is a replay (an executor may itself report 504), as is any result for
// a run that ended any other way.
bool ReplacesLostVerdict(const RunState& r, const v1::RunResult& res) {
  return r.lost_verdict() &&
         !(res.handle_code() == r.handle_code && ToMs(res.end_time()) == r.end_ms);
}

}  // namespace

absl::Status SqlStore::RecordDispatches(const std::vector<DispatchUpdate>& updates) {
  if (updates.empty()) return absl::OkStatus();
  std::vector<int64_t> ids;
  ids.reserve(updates.size());
  for (const DispatchUpdate& u : updates) ids.push_back(u.run_id);
  // One SELECT (locking, in id order) and one UPDATE per batch; the
  // outcomes are applied in memory in the order given (run_state.h).
  StatsDeltas deltas;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(RunStates runs, LockRuns(c, sql_, ids));
    deltas = StatsDeltas();
    for (const DispatchUpdate& u : updates) {
      auto it = runs.find(u.run_id);
      if (it == runs.end()) continue;
      RunState& r = it->second;
      if (r.dispatch_ms == 0 && (r.status == v1::RUN_STATUS_PENDING || r.ended())) {
        deltas.Dispatched(r.job_id, r.trigger_ms, r.trigger_type, r.scheduled_ms, u.dispatch_ms);
      }
      if (r.status == v1::RUN_STATUS_PENDING) {
        const bool failed = u.status == v1::RUN_STATUS_FAILED;
        // (A run whose start brought its dispatch receipt is RUNNING already:
        // nothing is written for it.)
        r.status = u.status;
        r.trigger_code = u.trigger_code;
        r.trigger_message = u.trigger_message;
        r.executor_address = u.executor_address;
        r.dispatch_ms = u.dispatch_ms;
        r.handle_code = failed ? u.handle_code : 0;
        r.handle_message = failed ? u.handle_message : std::string();
        r.end_ms = failed ? u.end_ms : 0;
        r.fence_epoch = u.fence_epoch;
        r.followup_pending = failed;
        r.changed = true;
        if (failed) deltas.Ended(r.facts(), /*was_active=*/true);
      } else if (r.ended()) {
        // Its result raced ahead: keep the outcome but record how and
        // where it was dispatched, unless its receipt recorded just that.
        const std::string address =
            r.executor_address.empty() ? u.executor_address : r.executor_address;
        if (r.trigger_code != u.trigger_code || r.trigger_message != u.trigger_message ||
            r.executor_address != address || r.dispatch_ms != u.dispatch_ms ||
            r.fence_epoch != u.fence_epoch) {
          r.trigger_code = u.trigger_code;
          r.trigger_message = u.trigger_message;
          r.executor_address = address;
          r.dispatch_ms = u.dispatch_ms;
          r.fence_epoch = u.fence_epoch;
          r.changed = true;
        }
      }
    }
    return WriteRuns(c, sql_, runs);
  }));
  stats_->Add(deltas);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::ReportAck>> SqlStore::ApplyReports(
    const std::vector<v1::ReportItem>& items, int64_t group_id) {
  std::vector<v1::ReportAck> acks;
  if (items.empty()) return acks;
  // A run whose start and result are both in the batch (the common case for
  // short handlers): the result carries the start time and the start's
  // executor address, so the start changes nothing by itself; it is acked
  // as its result is. Worked out before the transaction, which holds the writer.
  absl::flat_hash_map<int64_t, size_t> result_of;  // run -> index of its result
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].has_result()) result_of[items[i].result().run_id()] = i;
  }
  absl::flat_hash_map<int64_t, const v1::RunStarted*> started_of;  // Folded starts.
  for (const v1::ReportItem& item : items) {
    if (item.has_started() && result_of.contains(item.started().run_id())) {
      started_of[item.started().run_id()] = &item.started();
    }
  }
  auto folded = [&](const v1::ReportItem& item) {
    return item.has_started() && started_of.contains(item.started().run_id());
  };
  std::vector<int64_t> ids;
  ids.reserve(items.size());
  for (const v1::ReportItem& item : items) ids.push_back(RunIdOf(item));
  // Statements per batch, whatever its size: one SELECT of the runs
  // (locking them in id order), one of the stored log lines the batch's
  // lines could repeat, one INSERT of the new lines, one UPDATE of the
  // runs, and the report counters; the items are applied in memory in the
  // order given, so the batch acts as the items applied one by one.
  StatsDeltas deltas;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    acks.assign(items.size(), v1::REPORT_ACK_UNSPECIFIED);
    ASSIGN_OR_RETURN(RunStates runs, LockRuns(c, sql_, ids));
    ASSIGN_OR_RETURN(LineSet stored, ReadStoredLines(c, items, runs));
    std::vector<SqlRow> new_lines;
    deltas = StatsDeltas();
    for (size_t i = 0; i < items.size(); ++i) {
      const v1::ReportItem& item = items[i];
      if (folded(item)) continue;
      auto it = runs.find(RunIdOf(item));
      if (item.item_case() == v1::ReportItem::ITEM_NOT_SET || it == runs.end() ||
          (group_id != 0 && it->second.group_id != group_id)) {
        acks[i] = v1::REPORT_ACK_UNKNOWN_RUN;
        continue;
      }
      const v1::RunStarted* started = nullptr;
      if (item.has_result()) {
        if (auto st = started_of.find(item.result().run_id()); st != started_of.end()) {
          started = st->second;
        }
      }
      acks[i] = item.has_log() ? ApplyLogLines(item.log(), stored, it->second, new_lines)
                               : ApplyReport(item, started, it->second, deltas);
    }
    std::sort(new_lines.begin(), new_lines.end(), [](const SqlRow& a, const SqlRow& b) {
      return std::pair(ColInt(a, 0), ColInt(a, 1)) < std::pair(ColInt(b, 0), ColInt(b, 1));
    });
    RETURN_IF_ERROR(InsertUnpadded(c, sql_.insert_log_lines, new_lines));
    RETURN_IF_ERROR(WriteRuns(c, sql_, runs));
    for (size_t i = 0; i < items.size(); ++i) {
      if (folded(items[i])) acks[i] = acks[result_of[items[i].started().run_id()]];
    }
    return absl::OkStatus();
  }));
  stats_->Add(deltas);
  return acks;
}

v1::ReportAck SqlStore::ApplyReport(const v1::ReportItem& item, const v1::RunStarted* started,
                                    RunState& r, StatsDeltas& deltas) {
  if (item.has_started()) {
    const v1::RunStarted& st = item.started();
    if (!r.active() || r.start_ms != 0) return v1::REPORT_ACK_DUPLICATE;
    ApplyReceipt(st, r, deltas);
    r.start_ms = ToMs(st.start_time());
    if (r.executor_address.empty()) r.executor_address = st.executor_address();
    r.changed = true;
    return v1::REPORT_ACK_APPLIED;
  }
  const v1::RunResult& res = item.result();
  if (started != nullptr && r.active()) ApplyReceipt(*started, r, deltas);
  const bool was_active = r.active();
  if (!was_active) {
    if (!ReplacesLostVerdict(r, res)) return v1::REPORT_ACK_DUPLICATE;
    // The verdict's counts make way for the result's. Its follow-up is
    // decided once (store.h): still pending, it is handled on the result
    // instead, and at once (a retry it waited for may be moot); handled, it stands.
    deltas.Retracted(r.facts());
    if (r.followup_pending) r.followup_due_ms = 0;
  }
  const int64_t start_ms = res.has_start_time() || started == nullptr ? ToMs(res.start_time())
                                                                      : ToMs(started->start_time());
  r.handle_code = res.handle_code();
  r.handle_message = res.handle_message();
  r.output = res.output();
  r.status = res.handle_code() == v1::HANDLE_CODE_SUCCESS ? v1::RUN_STATUS_SUCCEEDED
                                                          : v1::RUN_STATUS_FAILED;
  if (r.start_ms == 0) r.start_ms = start_ms;
  r.end_ms = ToMs(res.end_time());
  if (r.executor_address.empty() && started != nullptr) {
    r.executor_address = started->executor_address();
  }
  if (was_active) r.followup_pending = r.ends_with_followup();
  r.changed = true;
  deltas.Ended(r.facts(), was_active);
  return v1::REPORT_ACK_APPLIED;
}

void SqlStore::ApplyReceipt(const v1::RunStarted& started, RunState& r, StatsDeltas& deltas) {
  if (started.receipt().empty() || r.status != v1::RUN_STATUS_PENDING || r.dispatch_ms != 0) return;
  v1::DispatchReceipt receipt;
  // One that does not parse, or names another run, is ignored: the
  // scheduler's own record of the dispatch follows.
  if (!receipt.ParseFromString(started.receipt()) || receipt.run_id() != r.id ||
      receipt.dispatch_ms() <= 0) {
    return;
  }
  deltas.Dispatched(r.job_id, r.trigger_ms, r.trigger_type, r.scheduled_ms, receipt.dispatch_ms());
  r.status = v1::RUN_STATUS_RUNNING;
  r.trigger_code = v1::HANDLE_CODE_SUCCESS;
  r.trigger_message = receipt.trigger_message();
  if (r.executor_address.empty()) r.executor_address = started.executor_address();
  r.dispatch_ms = receipt.dispatch_ms();
  r.fence_epoch = receipt.fence_epoch();
  r.changed = true;
}

absl::StatusOr<SqlStore::LineSet> SqlStore::ReadStoredLines(
    SqlConn& c, const std::vector<v1::ReportItem>& items, const RunStates& runs) {
  // Per run, the range of line numbers the batch sends.
  std::map<int64_t, std::pair<int64_t, int64_t>> ranges;
  for (const v1::ReportItem& item : items) {
    if (!item.has_log() || runs.count(item.log().run_id()) == 0) continue;
    for (const v1::LogLine& line : item.log().lines()) {
      if (line.line_number() < 1) continue;
      auto [it, added] =
          ranges.try_emplace(item.log().run_id(), line.line_number(), line.line_number());
      it->second.first = std::min(it->second.first, line.line_number());
      it->second.second = std::max(it->second.second, line.line_number());
    }
  }
  LineSet out;
  if (ranges.empty()) return out;
  std::vector<SqlRow> keys;
  for (const auto& [run_id, range] : ranges) {
    keys.push_back({SqlInt(run_id), SqlInt(range.first), SqlInt(range.second)});
  }
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, QueryPadded(c, sql_.select_log_lines, keys));
  for (const SqlRow& row : rows) out.insert({ColInt(row, 0), ColInt(row, 1)});
  return out;
}

v1::ReportAck SqlStore::ApplyLogLines(const v1::RunLogLines& log, LineSet& stored, RunState& r,
                                      std::vector<SqlRow>& new_lines) {
  const int64_t before_count = r.log_line_count;
  const bool before_truncated = r.log_truncated;
  for (const v1::LogLine& line : log.lines()) {
    if (line.line_number() < 1) continue;
    const bool known = stored.contains({r.id, line.line_number()});
    if (known) continue;  // A replay: duplicates by line number are ignored.
    // Once a line did not fit, none after it is stored either (no gaps).
    const int64_t bytes = static_cast<int64_t>(line.text().size());
    if (!r.log_truncated && r.log_line_count < options_.max_log_lines_per_run &&
        r.log_bytes + bytes <= options_.max_log_bytes_per_run) {
      stored.insert({r.id, line.line_number()});
      new_lines.push_back({SqlInt(r.id), SqlInt(line.line_number()), SqlInt(ToMs(line.time())),
                           SqlText(line.text())});
      ++r.log_line_count;
      r.log_bytes += bytes;
      continue;
    }
    r.log_truncated = true;  // Past a cap: the line is dropped.
  }
  if (r.log_line_count == before_count && r.log_truncated == before_truncated) {
    return v1::REPORT_ACK_DUPLICATE;
  }
  r.changed = true;
  return v1::REPORT_ACK_APPLIED;
}

absl::StatusOr<v1::Run> SqlStore::GetRun(int64_t run_id) {
  absl::StatusOr<v1::Run> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_run, {SqlInt(run_id)}));
    if (rows.empty()) return absl::NotFoundError(absl::StrCat("run ", run_id, " does not exist"));
    out = RunFromRow(rows.front());
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::Run>> SqlStore::ListRuns(const RunFilter& f) {
  const bool by_trigger = f.trigger_type != v1::TRIGGER_TYPE_UNSPECIFIED;
  const std::string sql =
      ListRunsSql(f.job_id != 0, f.workflow_run_id != 0, static_cast<int>(f.group_ids.size()),
                  static_cast<int>(f.statuses.size()), by_trigger, f.trigger_from_ms != 0,
                  f.trigger_to_ms != 0, f.before_id != 0, partitions_, f.partitions);
  std::vector<SqlValue> args;
  if (f.job_id != 0) args.push_back(SqlInt(f.job_id));
  if (f.workflow_run_id != 0) args.push_back(SqlInt(f.workflow_run_id));
  for (int64_t g : f.group_ids) args.push_back(SqlInt(g));
  for (v1::RunStatus st : f.statuses) args.push_back(SqlInt(st));
  if (by_trigger) args.push_back(SqlInt(f.trigger_type));
  if (f.trigger_from_ms != 0) args.push_back(SqlInt(f.trigger_from_ms));
  if (f.trigger_to_ms != 0) args.push_back(SqlInt(f.trigger_to_ms));
  if (f.before_id != 0) args.push_back(SqlInt(f.before_id));
  args.push_back(SqlInt(f.limit <= 0 ? 50 : std::min(f.limit, 10000)));
  std::vector<v1::Run> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql, args));
    out.reserve(rows.size());
    for (const SqlRow& row : rows) out.push_back(RunFromRow(row));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::LogLine>> SqlStore::ReadRunLog(int64_t run_id, int64_t from_line,
                                                              int limit) {
  std::vector<v1::LogLine> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        c.Query(sql_.select_run_log, {SqlInt(run_id), SqlInt(std::max<int64_t>(from_line, 1)),
                                      SqlInt(limit <= 0 ? 1000 : limit)}));
    out.reserve(rows.size());
    for (const SqlRow& row : rows) {
      v1::LogLine line;
      line.set_line_number(ColInt(row, 0));
      if (ColInt(row, 1) > 0) SetMs(ColInt(row, 1), line.mutable_time());
      line.set_text(ColStr(row, 2));
      out.push_back(std::move(line));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::Run>> SqlStore::ListActiveRunsOn(std::string_view address) {
  std::vector<v1::Run> out;
  const std::string addr(address);
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                     c.Query(sql_.select_active_runs_on, {SqlText(addr)}));
    for (const SqlRow& row : rows) out.push_back(RunFromRow(row));
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace gnomon::store::internal

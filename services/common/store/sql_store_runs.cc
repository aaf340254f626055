// SqlStore: runs, dispatch outcomes, executor reports and run logs.
#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/store/report_deltas.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {

absl::StatusOr<std::vector<RunInsertOutcome>> SqlStore::InsertRuns(std::vector<v1::Run>& runs) {
  std::vector<RunInsertOutcome> out;
  if (runs.empty()) return out;
  std::vector<int64_t> ids;  // Applied to `runs` only once the transaction commits.
  absl::Status s = db_->Transact([&](SqlConn& c) -> absl::Status {
    out.assign(runs.size(), RunInsertOutcome{});
    ids.assign(runs.size(), 0);
    ReportDeltas deltas;
    for (size_t i = 0; i < runs.size(); ++i) {
      const v1::Run& run = runs[i];
      absl::StatusOr<int64_t> id = c.Insert(sql_.insert_run, RunInsertArgs(run));
      if (absl::IsAlreadyExists(id.status())) {
        // A unique key is taken: report the run that holds it.
        absl::StatusOr<int64_t> holder = FindClashingRun(c, run);
        if (!holder.ok()) return holder.status();
        if (*holder == 0) return Annotate(id.status(), "run clash without a holder");
        out[i].run_id = *holder;
        continue;
      }
      if (!id.ok()) return Annotate(id.status(), absl::StrCat("insert run of job ", run.job_id()));
      if (IsEnded(run.status())) {
        RunFacts facts;
        facts.job_id = run.job_id();
        facts.trigger_ms = ToMs(run.trigger_time());
        facts.start_ms = ToMs(run.start_time());
        facts.end_ms = ToMs(run.end_time());
        facts.status = run.status();
        deltas.Ended(facts, /*was_active=*/false);
      } else {
        deltas.Inserted(run.job_id(), ToMs(run.trigger_time()));
      }
      out[i] = RunInsertOutcome{true, *id};
      ids[i] = *id;
    }
    return deltas.Apply(c, sql_);
  });
  if (!s.ok()) return s;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!out[i].inserted) continue;
    runs[i].set_id(ids[i]);
    if (runs[i].first_run_id() == 0) runs[i].set_first_run_id(ids[i]);
    if (runs[i].status() == v1::RUN_STATUS_UNSPECIFIED) runs[i].set_status(v1::RUN_STATUS_PENDING);
  }
  return out;
}

absl::StatusOr<int64_t> SqlStore::FindClashingRun(SqlConn& c, const v1::Run& run) {
  // The keys a run can clash on, in the order they are checked.
  std::vector<std::pair<const std::string*, std::vector<SqlValue>>> keys;
  if (TakesSlot(run)) {
    keys.push_back({&sql_.select_slot_holder,
                    {SqlInt(run.job_id()), SqlInt(ToMs(run.scheduled_time())),
                     SqlInt(run.shard_index()), SqlInt(run.attempt())}});
  }
  if (run.attempt() > 0 && run.first_run_id() > 0) {
    keys.push_back(
        {&sql_.select_retry_holder, {SqlInt(run.first_run_id()), SqlInt(run.attempt())}});
  }
  if (run.trigger_type() == v1::TRIGGER_TYPE_PARENT && run.parent_run_id() > 0) {
    keys.push_back(
        {&sql_.select_child_holder,
         {SqlInt(run.parent_run_id()), SqlInt(run.job_id()), SqlInt(run.shard_index())}});
  }
  for (const auto& [sql, args] : keys) {
    absl::StatusOr<std::vector<SqlRow>> rows = c.Query(*sql, args);
    if (!rows.ok()) return rows.status();
    if (!rows->empty()) return ColInt(rows->front(), 0);
  }
  return 0;
}

absl::Status SqlStore::RecordDispatches(const std::vector<DispatchUpdate>& updates) {
  if (updates.empty()) return absl::OkStatus();
  return db_->Transact([&](SqlConn& c) -> absl::Status {
    ReportDeltas deltas;
    for (const DispatchUpdate& u : updates) {
      const bool failed = u.status == v1::RUN_STATUS_FAILED;
      absl::StatusOr<ExecResult> r = c.Exec(
          sql_.record_dispatch,
          {SqlInt(u.status), SqlInt(u.trigger_code), SqlText(u.trigger_message),
           SqlText(u.executor_address), SqlInt(u.dispatch_ms), SqlInt(failed ? u.handle_code : 0),
           SqlText(failed ? u.handle_message : std::string()), SqlInt(failed ? u.end_ms : 0),
           SqlInt(u.fence_epoch), SqlInt(failed ? 1 : 0), SqlInt(u.run_id)});
      if (!r.ok()) return r.status();
      if (r->affected_rows == 0) {
        // Not PENDING: if its result raced ahead, keep the outcome but record
        // how and where it was dispatched.
        r = c.Exec(sql_.record_dispatch_late,
                   {SqlInt(u.trigger_code), SqlText(u.trigger_message), SqlText(u.executor_address),
                    SqlInt(u.dispatch_ms), SqlInt(u.fence_epoch), SqlInt(u.run_id)});
        if (!r.ok()) return r.status();
        continue;
      }
      if (failed) {
        absl::StatusOr<RunFacts> facts = ReadRunFacts(c, sql_, u.run_id);
        if (!facts.ok()) return facts.status();
        deltas.Ended(*facts, /*was_active=*/true);
      }
    }
    return deltas.Apply(c, sql_);
  });
}

absl::StatusOr<std::vector<v1::ReportAck>> SqlStore::ApplyReports(
    const std::vector<v1::ReportItem>& items, int64_t group_id) {
  std::vector<v1::ReportAck> acks;
  if (items.empty()) return acks;
  // A run whose start and result are both in the batch (the common case for
  // short handlers): the result carries the start time and the start's
  // executor address, so the start costs no statements; it is acked as its
  // result is. Worked out before the transaction, which holds the writer.
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
  absl::Status s = db_->Transact([&](SqlConn& c) -> absl::Status {
    acks.clear();
    acks.reserve(items.size());
    ReportDeltas deltas;
    for (const v1::ReportItem& item : items) {
      acks.push_back(v1::REPORT_ACK_UNSPECIFIED);
      if (folded(item)) continue;
      const v1::RunStarted* started = nullptr;
      if (item.has_result()) {
        if (auto it = started_of.find(item.result().run_id()); it != started_of.end()) started = it->second;
      }
      absl::StatusOr<v1::ReportAck> ack = ApplyReport(c, item, group_id, started, deltas);
      if (!ack.ok()) return ack.status();
      acks.back() = *ack;
    }
    for (size_t i = 0; i < items.size(); ++i) {
      if (folded(items[i])) acks[i] = acks[result_of[items[i].started().run_id()]];
    }
    return deltas.Apply(c, sql_);
  });
  if (!s.ok()) return s;
  return acks;
}

absl::StatusOr<v1::ReportAck> SqlStore::ApplyReport(SqlConn& c, const v1::ReportItem& item,
                                                    int64_t group_id,
                                                    const v1::RunStarted* started,
                                                    ReportDeltas& deltas) {
  int64_t run_id = 0;
  switch (item.item_case()) {
    case v1::ReportItem::kStarted:
      run_id = item.started().run_id();
      break;
    case v1::ReportItem::kLog:
      run_id = item.log().run_id();
      break;
    case v1::ReportItem::kResult:
      run_id = item.result().run_id();
      break;
    case v1::ReportItem::ITEM_NOT_SET:
      return v1::REPORT_ACK_UNKNOWN_RUN;
  }
  absl::StatusOr<std::vector<SqlRow>> rows = c.Query(sql_.select_run_state, {SqlInt(run_id)});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return v1::REPORT_ACK_UNKNOWN_RUN;
  const SqlRow& row = rows->front();
  if (group_id != 0 && ColInt(row, 0) != group_id) return v1::REPORT_ACK_UNKNOWN_RUN;

  absl::StatusOr<ExecResult> r;
  switch (item.item_case()) {
    case v1::ReportItem::kStarted: {
      const v1::RunStarted& st = item.started();
      r = c.Exec(sql_.run_started,
                 {SqlInt(ToMs(st.start_time())), SqlText(st.executor_address()), SqlInt(run_id)});
      break;
    }
    case v1::ReportItem::kResult: {
      const v1::RunResult& res = item.result();
      const v1::RunStatus status = res.handle_code() == v1::HANDLE_CODE_SUCCESS
                                       ? v1::RUN_STATUS_SUCCEEDED
                                       : v1::RUN_STATUS_FAILED;
      const int64_t start_ms = res.has_start_time() || started == nullptr
                                   ? ToMs(res.start_time())
                                   : ToMs(started->start_time());
      r = c.Exec(sql_.run_result,
                 {SqlInt(res.handle_code()), SqlText(res.handle_message()), SqlInt(status),
                  SqlInt(start_ms), SqlInt(ToMs(res.end_time())),
                  SqlText(started == nullptr ? "" : started->executor_address()), SqlInt(run_id)});
      if (r.ok() && r->affected_rows > 0) {
        absl::StatusOr<RunFacts> facts = ReadRunFacts(c, sql_, run_id);
        if (!facts.ok()) return facts.status();
        deltas.Ended(*facts, /*was_active=*/true);
      }
      break;
    }
    default:
      return ApplyLogLines(c, item.log(), ColInt(row, 1), ColInt(row, 2) != 0);
  }
  if (!r.ok()) return r.status();
  return r->affected_rows > 0 ? v1::REPORT_ACK_APPLIED : v1::REPORT_ACK_DUPLICATE;
}

absl::StatusOr<v1::ReportAck> SqlStore::ApplyLogLines(SqlConn& c, const v1::RunLogLines& log,
                                                      int64_t count, bool truncated) {
  const int64_t run_id = log.run_id();
  const int64_t before_count = count;
  const bool before_truncated = truncated;
  for (const v1::LogLine& line : log.lines()) {
    if (line.line_number() < 1) continue;
    if (count < options_.max_log_lines_per_run) {
      absl::StatusOr<ExecResult> r =
          c.Exec(sql_.insert_log_line, {SqlInt(run_id), SqlInt(line.line_number()),
                                        SqlInt(ToMs(line.time())), SqlText(line.text())});
      if (!r.ok()) return r.status();
      count += r->affected_rows;
      continue;
    }
    // At the cap: a line stored earlier is a harmless replay; a new one is dropped.
    absl::StatusOr<std::vector<SqlRow>> rows =
        c.Query(sql_.select_log_line, {SqlInt(run_id), SqlInt(line.line_number())});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) truncated = true;
  }
  if (count == before_count && truncated == before_truncated) return v1::REPORT_ACK_DUPLICATE;
  absl::StatusOr<ExecResult> r =
      c.Exec(sql_.update_log_counters, {SqlInt(count), SqlInt(truncated ? 1 : 0), SqlInt(run_id)});
  if (!r.ok()) return r.status();
  return v1::REPORT_ACK_APPLIED;
}

absl::StatusOr<v1::Run> SqlStore::GetRun(int64_t run_id) {
  absl::StatusOr<v1::Run> out;
  absl::Status s = db_->Read([&](SqlConn& c) -> absl::Status {
    absl::StatusOr<std::vector<SqlRow>> rows = c.Query(sql_.select_run, {SqlInt(run_id)});
    if (!rows.ok()) return rows.status();
    if (rows->empty()) return absl::NotFoundError(absl::StrCat("run ", run_id, " does not exist"));
    out = RunFromRow(rows->front());
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::vector<v1::Run>> SqlStore::ListRuns(const RunFilter& f) {
  const std::string sql =
      ListRunsSql(f.job_id != 0, f.group_id != 0, static_cast<int>(f.statuses.size()),
                  f.trigger_from_ms != 0, f.trigger_to_ms != 0, f.before_id != 0);
  std::vector<SqlValue> args;
  if (f.job_id != 0) args.push_back(SqlInt(f.job_id));
  if (f.group_id != 0) args.push_back(SqlInt(f.group_id));
  for (v1::RunStatus st : f.statuses) args.push_back(SqlInt(st));
  if (f.trigger_from_ms != 0) args.push_back(SqlInt(f.trigger_from_ms));
  if (f.trigger_to_ms != 0) args.push_back(SqlInt(f.trigger_to_ms));
  if (f.before_id != 0) args.push_back(SqlInt(f.before_id));
  args.push_back(SqlInt(f.limit <= 0 ? 50 : std::min(f.limit, 10000)));
  std::vector<v1::Run> out;
  absl::Status s = db_->Read([&](SqlConn& c) -> absl::Status {
    absl::StatusOr<std::vector<SqlRow>> rows = c.Query(sql, args);
    if (!rows.ok()) return rows.status();
    out.reserve(rows->size());
    for (const SqlRow& row : *rows) out.push_back(RunFromRow(row));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::vector<v1::LogLine>> SqlStore::ReadRunLog(int64_t run_id, int64_t from_line,
                                                              int limit) {
  std::vector<v1::LogLine> out;
  absl::Status s = db_->Read([&](SqlConn& c) -> absl::Status {
    absl::StatusOr<std::vector<SqlRow>> rows =
        c.Query(sql_.select_run_log, {SqlInt(run_id), SqlInt(std::max<int64_t>(from_line, 1)),
                                      SqlInt(limit <= 0 ? 1000 : limit)});
    if (!rows.ok()) return rows.status();
    out.reserve(rows->size());
    for (const SqlRow& row : *rows) {
      v1::LogLine line;
      line.set_line_number(ColInt(row, 0));
      if (ColInt(row, 1) > 0) SetMs(ColInt(row, 1), line.mutable_time());
      line.set_text(ColStr(row, 2));
      out.push_back(std::move(line));
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

absl::StatusOr<std::vector<v1::Run>> SqlStore::ListActiveRunsOn(std::string_view address) {
  std::vector<v1::Run> out;
  const std::string addr(address);
  absl::Status s = db_->Read([&](SqlConn& c) -> absl::Status {
    absl::StatusOr<std::vector<SqlRow>> rows = c.Query(sql_.select_active_runs_on, {SqlText(addr)});
    if (!rows.ok()) return rows.status();
    for (const SqlRow& row : *rows) out.push_back(RunFromRow(row));
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace gnomon::store::internal

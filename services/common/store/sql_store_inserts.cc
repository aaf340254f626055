// SqlStore::InsertRuns: a batch of runs in multi-row INSERTs, with the
// per-row clash detection of store.h.
//
// Normal path (no slot taken): one INSERT per kMaxBatchRows runs, whose ids
// the driver knows (SqlConn::InsertRows: SQLite always; MySQL from
// LAST_INSERT_ID() when InnoDB allocates consecutive ids, else one SELECT
// of the batch's unique keys). No per-row statement.
//
// A clash makes the plain INSERT fail as a whole (it is rolled back as one
// statement; the transaction goes on). Then one SELECT per key kind finds
// the holders of the batch's keys, those runs are reported as clashes, and
// the rest is inserted again. Only if that fails too (two runs of the batch
// share a key, or a concurrent inserter took a slot in between) are the
// remaining runs inserted one by one. A plain INSERT rather than INSERT
// IGNORE (or ON DUPLICATE KEY UPDATE): it keeps strict-mode errors errors,
// keeps MySQL's "simple insert" id guarantee, and, since it inserts all or
// nothing, every run found by its keys after it succeeded was inserted by
// it, so inserted ids and clash holders are never confused.
#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/batch_sql.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"
#include "services/common/store/stats_deltas.h"

namespace gnomon::store::internal {
namespace {

bool TakesRetryKey(const v1::Run& r) { return r.attempt() > 0 && r.first_run_id() > 0; }
bool TakesChildKey(const v1::Run& r) {
  return r.trigger_type() == v1::TRIGGER_TYPE_PARENT && r.parent_run_id() > 0;
}
bool TakesNodeKey(const v1::Run& r) { return r.workflow_run_id() > 0; }
bool TakesAnyKey(const v1::Run& r) {
  return TakesSlot(r) || TakesRetryKey(r) || TakesChildKey(r) || TakesNodeKey(r);
}

using SlotKey = std::tuple<int64_t, int64_t, int64_t, int64_t>;  // job, slot, shard, attempt
using RetryKey = std::pair<int64_t, int64_t>;                    // first run, attempt
using ChildKey = std::tuple<int64_t, int64_t, int64_t>;          // parent run, job, shard
// workflow run, node, node attempt, shard, attempt
using NodeKey = std::tuple<int64_t, std::string, int64_t, int64_t, int64_t>;

SlotKey SlotOf(const v1::Run& r) {
  return {r.job_id(), ToMs(r.scheduled_time()), r.shard_index(), r.attempt()};
}
RetryKey RetryOf(const v1::Run& r) { return {r.first_run_id(), r.attempt()}; }
ChildKey ChildOf(const v1::Run& r) { return {r.parent_run_id(), r.job_id(), r.shard_index()}; }
NodeKey NodeOf(const v1::Run& r) {
  return {r.workflow_run_id(), r.workflow_node(), r.workflow_attempt(), r.shard_index(),
          r.attempt()};
}

// The runs holding some unique keys, read back with the select_runs_by_* statements.
class KeyHolders {
 public:
  static absl::StatusOr<KeyHolders> Read(SqlConn& c, const Statements& sql,
                                         const std::vector<v1::Run>& runs,
                                         const std::vector<size_t>& which) {
    std::vector<SqlRow> slots, retries, children, nodes;
    for (size_t i : which) {
      const v1::Run& r = runs[i];
      if (TakesSlot(r)) {
        const auto [job, slot, shard, attempt] = SlotOf(r);
        slots.push_back({SqlInt(job), SqlInt(slot), SqlInt(shard), SqlInt(attempt)});
      }
      if (TakesRetryKey(r)) retries.push_back({SqlInt(r.first_run_id()), SqlInt(r.attempt())});
      if (TakesChildKey(r)) {
        children.push_back(
            {SqlInt(r.parent_run_id()), SqlInt(r.job_id()), SqlInt(r.shard_index())});
      }
      if (TakesNodeKey(r)) {
        nodes.push_back({SqlInt(r.workflow_run_id()), SqlText(r.workflow_node()),
                         SqlInt(r.workflow_attempt()), SqlInt(r.shard_index()),
                         SqlInt(r.attempt())});
      }
    }
    KeyHolders out;
    for (const auto& [stmt, keys] : {std::pair{&sql.select_runs_by_slot, &slots},
                                     std::pair{&sql.select_runs_by_retry, &retries},
                                     std::pair{&sql.select_runs_by_child, &children},
                                     std::pair{&sql.select_runs_by_node, &nodes}}) {
      if (keys->empty()) continue;
      ASSIGN_OR_RETURN(std::vector<SqlRow> rows, QueryPadded(c, *stmt, *keys));
      for (const SqlRow& row : rows) out.Add(row);
    }
    return out;
  }

  // The id of the run holding one of r's keys (checked in store.h's order), or 0.
  int64_t Find(const v1::Run& r) const {
    if (TakesSlot(r)) {
      if (auto it = slot_.find(SlotOf(r)); it != slot_.end()) return it->second;
    }
    if (TakesRetryKey(r)) {
      if (auto it = retry_.find(RetryOf(r)); it != retry_.end()) return it->second;
    }
    if (TakesChildKey(r)) {
      if (auto it = child_.find(ChildOf(r)); it != child_.end()) return it->second;
    }
    if (TakesNodeKey(r)) {
      if (auto it = node_.find(NodeOf(r)); it != node_.end()) return it->second;
    }
    return 0;
  }

 private:
  // A row of kRunKeyColumns: id, job_id, slot_ms, shard_index, attempt, retry_of, child_of,
  // workflow_run_id, workflow_node, workflow_attempt.
  void Add(const SqlRow& row) {
    const int64_t id = ColInt(row, 0);
    const int64_t job = ColInt(row, 1);
    const int64_t shard = ColInt(row, 3);
    const int64_t attempt = ColInt(row, 4);
    if (!ColIsNull(row, 2)) slot_[{job, ColInt(row, 2), shard, attempt}] = id;
    if (!ColIsNull(row, 5)) retry_[{ColInt(row, 5), attempt}] = id;
    if (!ColIsNull(row, 6)) child_[{ColInt(row, 6), job, shard}] = id;
    if (!ColIsNull(row, 7))
      node_[{ColInt(row, 7), ColStr(row, 8), ColInt(row, 9), shard, attempt}] = id;
  }

  absl::flat_hash_map<SlotKey, int64_t> slot_;
  absl::flat_hash_map<RetryKey, int64_t> retry_;
  absl::flat_hash_map<ChildKey, int64_t> child_;
  absl::flat_hash_map<NodeKey, int64_t> node_;
};

}  // namespace

absl::StatusOr<std::vector<RunInsertOutcome>> SqlStore::InsertRuns(std::vector<v1::Run>& runs) {
  std::vector<RunInsertOutcome> out;
  if (runs.empty()) return out;
  StatsDeltas deltas;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    out.assign(runs.size(), RunInsertOutcome{});
    // Runs with a unique key go in key order, so that two inserters of the
    // same slots (replicas around a takeover) take their unique-index
    // entries in the same order and cannot deadlock; the others after them.
    std::vector<size_t> keyed;
    std::vector<size_t> unkeyed;
    for (size_t i = 0; i < runs.size(); ++i) (TakesAnyKey(runs[i]) ? keyed : unkeyed).push_back(i);
    std::stable_sort(keyed.begin(), keyed.end(), [&](size_t a, size_t b) {
      const v1::Run& x = runs[a];
      const v1::Run& y = runs[b];
      return std::tuple(x.job_id(), TakesSlot(x) ? ToMs(x.scheduled_time()) : -1, x.shard_index(),
                        x.attempt(), x.first_run_id(), x.parent_run_id(), x.workflow_run_id(),
                        x.workflow_node(), x.workflow_attempt()) <
             std::tuple(y.job_id(), TakesSlot(y) ? ToMs(y.scheduled_time()) : -1, y.shard_index(),
                        y.attempt(), y.first_run_id(), y.parent_run_id(), y.workflow_run_id(),
                        y.workflow_node(), y.workflow_attempt());
    });
    if (c.consecutive_insert_ids()) {
      keyed.insert(keyed.end(), unkeyed.begin(), unkeyed.end());
    } else {
      // Nothing to read their ids back by: one INSERT each (they cannot clash).
      for (size_t i : unkeyed) {
        absl::StatusOr<int64_t> id = c.Insert(sql_.insert_run, RunInsertArgs(runs[i]));
        if (!id.ok()) {
          return Annotate(id.status(), absl::StrCat("insert run of job ", runs[i].job_id()));
        }
        out[i] = RunInsertOutcome{true, *id};
      }
    }
    RETURN_IF_ERROR(InsertRunBatch(c, runs, keyed, /*retry=*/false, out));
    // A run queued for a pool's slot joins its pool's queue with it.
    for (size_t i = 0; i < runs.size(); ++i) {
      if (!out[i].inserted || runs[i].status() != v1::RUN_STATUS_QUEUED) continue;
      RETURN_IF_ERROR(
          c.Exec(sql_.insert_pool_queue, {SqlInt(out[i].run_id), SqlText(runs[i].pool()),
                                          SqlInt(runs[i].job_id()), SqlInt(runs[i].priority())})
              .status());
    }
    deltas = StatsDeltas();
    for (size_t i = 0; i < runs.size(); ++i) {
      if (!out[i].inserted) continue;
      const v1::Run& run = runs[i];
      if (IsEnded(run.status())) {
        deltas.Ended(RunFacts{run.job_id(), ToMs(run.trigger_time()), ToMs(run.start_time()),
                              ToMs(run.end_time()), run.status()},
                     /*was_active=*/false);
      } else {
        deltas.Inserted(run.job_id(), ToMs(run.trigger_time()));
      }
    }
    return absl::OkStatus();
  }));
  stats_->Add(deltas);
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!out[i].inserted) continue;
    runs[i].set_id(out[i].run_id);
    if (runs[i].first_run_id() == 0) runs[i].set_first_run_id(out[i].run_id);
    if (runs[i].status() == v1::RUN_STATUS_UNSPECIFIED) runs[i].set_status(v1::RUN_STATUS_PENDING);
  }
  return out;
}

absl::Status SqlStore::InsertRunBatch(SqlConn& c, const std::vector<v1::Run>& runs,
                                      const std::vector<size_t>& which, bool retry,
                                      std::vector<RunInsertOutcome>& out) {
  for (const Batch& b : CutBatches(which.size(), /*padded=*/false)) {
    const std::vector<size_t> part(which.begin() + b.begin, which.begin() + b.begin + b.rows);
    std::vector<SqlValue> args;
    args.reserve(part.size() * 28);
    for (size_t i : part) {
      std::vector<SqlValue> row = RunInsertArgs(runs[i]);
      std::move(row.begin(), row.end(), std::back_inserter(args));
    }
    absl::StatusOr<std::vector<int64_t>> ids =
        c.InsertRows(sql_.insert_runs.For(b.statement_rows), args, b.statement_rows);
    if (ids.ok() && ids->size() == part.size()) {
      for (size_t k = 0; k < part.size(); ++k) out[part[k]] = RunInsertOutcome{true, (*ids)[k]};
      continue;
    }
    if (ids.ok()) {
      // Every run of the part was inserted (all or nothing), so the holder
      // of each one's key is that run.
      ASSIGN_OR_RETURN(KeyHolders holders, KeyHolders::Read(c, sql_, runs, part));
      for (size_t i : part) {
        const int64_t id = holders.Find(runs[i]);
        if (id == 0) return absl::InternalError("inserted run not found by its unique keys");
        out[i] = RunInsertOutcome{true, id};
      }
      continue;
    }
    if (!absl::IsAlreadyExists(ids.status())) {
      return Annotate(ids.status(), absl::StrCat("insert ", part.size(), " runs"));
    }
    if (retry) {
      RETURN_IF_ERROR(InsertRunsOneByOne(c, runs, part, out));
      continue;
    }
    // Some key is taken: report the runs whose key is held, insert the rest.
    ASSIGN_OR_RETURN(KeyHolders holders, KeyHolders::Read(c, sql_, runs, part));
    std::vector<size_t> rest;
    for (size_t i : part) {
      const int64_t holder = holders.Find(runs[i]);
      if (holder != 0) {
        out[i] = RunInsertOutcome{false, holder};
      } else {
        rest.push_back(i);
      }
    }
    RETURN_IF_ERROR(InsertRunBatch(c, runs, rest, /*retry=*/true, out));
  }
  return absl::OkStatus();
}

absl::Status SqlStore::InsertRunsOneByOne(SqlConn& c, const std::vector<v1::Run>& runs,
                                          const std::vector<size_t>& which,
                                          std::vector<RunInsertOutcome>& out) {
  for (size_t i : which) {
    const v1::Run& run = runs[i];
    absl::StatusOr<int64_t> id = c.Insert(sql_.insert_run, RunInsertArgs(run));
    if (absl::IsAlreadyExists(id.status())) {
      // A unique key is taken: report the run that holds it.
      ASSIGN_OR_RETURN(int64_t holder, FindClashingRun(c, run));
      if (holder == 0) return Annotate(id.status(), "run clash without a holder");
      out[i] = RunInsertOutcome{false, holder};
      continue;
    }
    if (!id.ok()) return Annotate(id.status(), absl::StrCat("insert run of job ", run.job_id()));
    out[i] = RunInsertOutcome{true, *id};
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> SqlStore::FindClashingRun(SqlConn& c, const v1::Run& run) {
  // The keys a run can clash on, in the order they are checked.
  std::vector<std::pair<const std::string*, std::vector<SqlValue>>> keys;
  if (TakesSlot(run)) {
    keys.push_back({&sql_.select_slot_holder,
                    {SqlInt(run.job_id()), SqlInt(ToMs(run.scheduled_time())),
                     SqlInt(run.shard_index()), SqlInt(run.attempt())}});
  }
  if (TakesRetryKey(run)) {
    keys.push_back(
        {&sql_.select_retry_holder, {SqlInt(run.first_run_id()), SqlInt(run.attempt())}});
  }
  if (TakesChildKey(run)) {
    keys.push_back(
        {&sql_.select_child_holder,
         {SqlInt(run.parent_run_id()), SqlInt(run.job_id()), SqlInt(run.shard_index())}});
  }
  if (TakesNodeKey(run)) {
    keys.push_back(
        {&sql_.select_node_holder,
         {SqlInt(run.workflow_run_id()), SqlText(run.workflow_node()),
          SqlInt(run.workflow_attempt()), SqlInt(run.shard_index()), SqlInt(run.attempt())}});
  }
  for (const auto& [sql, args] : keys) {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(*sql, args));
    if (!rows.empty()) return ColInt(rows.front(), 0);
  }
  return 0;
}

}  // namespace gnomon::store::internal

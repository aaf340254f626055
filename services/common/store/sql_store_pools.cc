// SqlStore: pools of concurrency slots (the pool table), the runs holding
// their slots (pool_slot, a row per run) and the runs queued for one
// (pool_queue, a row per QUEUED run, written with the run by InsertRuns).
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/batch_sql.h"
#include "services/common/store/pool_store.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {
namespace {

// A row of kPoolColumns.
v1::Pool PoolFromRow(const SqlRow& row) {
  v1::Pool pool;
  pool.set_id(ColInt(row, 0));
  pool.set_name(ColStr(row, 1));
  pool.set_description(ColStr(row, 2));
  pool.set_slots(static_cast<uint32_t>(ColInt(row, 3)));
  SetMs(ColInt(row, 4), pool.mutable_create_time());
  SetMs(ColInt(row, 5), pool.mutable_update_time());
  return pool;
}

absl::Status Missing(const std::string& name) {
  return absl::NotFoundError(absl::StrCat("pool '", name, "' does not exist"));
}

// Whether a slot row whose run is as `row` (select_pool_slots) is still
// held at `now_ms`: its run is there and has not ended, or it ended as
// "executor lost" within kLostRunSlotHoldMs.
bool StillHeld(const SqlRow& row, int64_t now_ms) {
  if (ColIsNull(row, 1)) return false;  // The run is gone (retention).
  const auto status = static_cast<v1::RunStatus>(ColInt(row, 1));
  if (!IsEnded(status)) return true;
  return ColInt(row, 2) == v1::HANDLE_CODE_EXECUTOR_LOST &&
         ColInt(row, 3) + kLostRunSlotHoldMs > now_ms;
}

// The ids of the runs holding the pool's slots at `now_ms`; with `release`,
// the slots of the others are deleted.
absl::StatusOr<std::vector<int64_t>> HeldSlots(SqlConn& c, const Statements& sql,
                                               const std::string& pool, int64_t now_ms,
                                               bool release) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql.select_pool_slots, {SqlText(pool)}));
  std::vector<int64_t> held;
  for (const SqlRow& row : rows) {
    if (StillHeld(row, now_ms)) {
      held.push_back(ColInt(row, 0));
    } else if (release) {
      RETURN_IF_ERROR(c.Exec(sql.delete_pool_slot, {SqlInt(ColInt(row, 0))}).status());
    }
  }
  return held;
}

// The runs `ids` (those that exist), in the order of `ids`, in one read of
// the store's batched select by id.
absl::StatusOr<std::vector<v1::Run>> ReadRuns(SqlConn& c, const Statements& sql,
                                              const std::vector<int64_t>& ids) {
  std::vector<v1::Run> out;
  if (ids.empty()) return out;
  std::vector<SqlRow> keys;
  keys.reserve(ids.size());
  for (int64_t id : ids) keys.push_back({SqlInt(id)});
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, QueryPadded(c, sql.select_runs_by_id, keys));
  absl::flat_hash_map<int64_t, v1::Run> by_id;  // Padding repeats the last id.
  for (const SqlRow& row : rows) by_id.emplace(ColInt(row, 0), RunFromRow(row));
  for (int64_t id : ids) {
    if (auto it = by_id.find(id); it != by_id.end()) out.push_back(std::move(it->second));
  }
  return out;
}

absl::StatusOr<v1::Pool> ReadPool(SqlConn& c, const Statements& sql, const std::string& name,
                                  int64_t now_ms) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql.select_pool, {SqlText(name)}));
  if (rows.empty()) return Missing(name);
  v1::Pool pool = PoolFromRow(rows.front());
  ASSIGN_OR_RETURN(std::vector<int64_t> held, HeldSlots(c, sql, name, now_ms, false));
  ASSIGN_OR_RETURN(std::vector<SqlRow> queued, c.Query(sql.count_pool_queue, {SqlText(name)}));
  pool.set_running(static_cast<uint32_t>(held.size()));
  pool.set_queued(queued.empty() ? 0 : static_cast<uint32_t>(ColInt(queued.front(), 0)));
  return pool;
}

}  // namespace

absl::StatusOr<v1::Pool> SqlStore::CreatePool(const v1::Pool& pool, int64_t now_ms) {
  absl::StatusOr<v1::Pool> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    absl::StatusOr<int64_t> id =
        c.Insert(sql_.insert_pool, {SqlText(pool.name()), SqlText(pool.description()),
                                    SqlInt(pool.slots()), SqlInt(now_ms), SqlInt(now_ms)});
    if (absl::IsAlreadyExists(id.status())) {
      return absl::AlreadyExistsError(
          absl::StrCat("pool.name: a pool named '", pool.name(), "' already exists"));
    }
    RETURN_IF_ERROR(id.status());
    out = ReadPool(c, sql_, pool.name(), now_ms);
    return out.status();
  }));
  return out;
}

absl::StatusOr<v1::Pool> SqlStore::GetPool(std::string_view name, int64_t now_ms) {
  const std::string n(name);
  absl::StatusOr<v1::Pool> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) {
    out = ReadPool(c, sql_, n, now_ms);
    return out.status();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::Pool>> SqlStore::ListPools(int64_t now_ms) {
  std::vector<v1::Pool> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out.clear();
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_pools, {}));
    ASSIGN_OR_RETURN(std::vector<SqlRow> counts, c.Query(sql_.count_pool_queues, {}));
    absl::flat_hash_map<std::string, int64_t> queued;
    for (const SqlRow& row : counts) queued[ColStr(row, 0)] = ColInt(row, 1);
    for (const SqlRow& row : rows) {
      v1::Pool& pool = out.emplace_back(PoolFromRow(row));
      ASSIGN_OR_RETURN(std::vector<int64_t> held, HeldSlots(c, sql_, pool.name(), now_ms, false));
      pool.set_running(static_cast<uint32_t>(held.size()));
      if (auto q = queued.find(pool.name()); q != queued.end()) {
        pool.set_queued(static_cast<uint32_t>(q->second));
      }
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<v1::Pool> SqlStore::UpdatePool(const v1::Pool& pool, int64_t now_ms) {
  absl::StatusOr<v1::Pool> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(ExecResult r,
                     c.Exec(sql_.update_pool, {SqlText(pool.description()), SqlInt(pool.slots()),
                                               SqlInt(now_ms), SqlText(pool.name())}));
    if (r.affected_rows == 0) return Missing(pool.name());
    out = ReadPool(c, sql_, pool.name(), now_ms);
    return out.status();
  }));
  return out;
}

absl::Status SqlStore::DeletePool(std::string_view name) {
  const std::string n(name);
  return db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_pool, {SqlText(n)}));
    if (rows.empty()) return Missing(n);
    ASSIGN_OR_RETURN(int64_t user,
                     FirstJobWhere(c, sql_, [&](const v1::Job& job) { return job.pool() == n; }));
    if (user != 0) {
      return absl::FailedPreconditionError(absl::StrCat("pool '", n, "' is named by job ", user));
    }
    return c.Exec(sql_.delete_pool, {SqlText(n)}).status();
  });
}

absl::StatusOr<PoolQueue> SqlStore::ListPoolQueue(std::string_view name, int limit,
                                                  int64_t now_ms) {
  const std::string n(name);
  PoolQueue out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out = PoolQueue();
    ASSIGN_OR_RETURN(std::vector<int64_t> held, HeldSlots(c, sql_, n, now_ms, false));
    ASSIGN_OR_RETURN(out.running, ReadRuns(c, sql_, held));
    ASSIGN_OR_RETURN(std::vector<SqlRow> queued,
                     c.Query(sql_.select_pool_queue_runs, {SqlText(n), SqlInt(limit)}));
    for (const SqlRow& row : queued) out.queued.push_back(RunFromRow(row));
    ASSIGN_OR_RETURN(std::vector<SqlRow> count, c.Query(sql_.count_pool_queue, {SqlText(n)}));
    out.queued_total = count.empty() ? 0 : static_cast<int32_t>(ColInt(count.front(), 0));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<std::string>> SqlStore::ListQueuedPools(
    const std::vector<int>& partitions) {
  const std::string sql = QueuedPoolsSql(partitions_, partitions);
  std::vector<std::string> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out.clear();
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql, {}));
    for (const SqlRow& row : rows) out.push_back(ColStr(row, 0));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::Run>> SqlStore::GrantPoolSlots(std::string_view pool,
                                                              const EpochOf& epoch_of,
                                                              int64_t now_ms) {
  // Without a pool row nothing limits the queue: let go this many at a time.
  constexpr int64_t kUnlimitedBatch = 1000;
  const std::string name(pool);
  std::vector<v1::Run> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    out.clear();
    std::vector<int64_t> granted;
    ASSIGN_OR_RETURN(std::vector<SqlRow> lock, c.Query(sql_.lock_pool, {SqlText(name)}));
    int64_t free = kUnlimitedBatch;
    if (!lock.empty()) {
      ASSIGN_OR_RETURN(std::vector<int64_t> held, HeldSlots(c, sql_, name, now_ms, true));
      free = ColInt(lock.front(), 0) - static_cast<int64_t>(held.size());
    }
    if (free <= 0) return absl::OkStatus();
    ASSIGN_OR_RETURN(std::vector<SqlRow> head,
                     c.Query(sql_.select_pool_queue_head, {SqlText(name), SqlInt(free)}));
    for (const SqlRow& row : head) {
      const int64_t run_id = ColInt(row, 0);
      const std::optional<int64_t> epoch = epoch_of(ColInt(row, 1));
      if (!epoch) continue;  // Its partition's holder lets it go.
      RETURN_IF_ERROR(c.Exec(sql_.delete_pool_queue, {SqlInt(run_id)}).status());
      ASSIGN_OR_RETURN(ExecResult r, c.Exec(sql_.grant_pool_run,
                                            {SqlInt(now_ms), SqlInt(*epoch), SqlInt(run_id)}));
      if (r.affected_rows == 0) continue;  // No longer QUEUED (killed): a stale queue row.
      RETURN_IF_ERROR(
          c.Exec(sql_.insert_pool_slot, {SqlInt(run_id), SqlText(name), SqlInt(now_ms)}).status());
      granted.push_back(run_id);
    }
    ASSIGN_OR_RETURN(out, ReadRuns(c, sql_, granted));
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace gnomon::store::internal

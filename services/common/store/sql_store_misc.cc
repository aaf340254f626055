// SqlStore: executor registry.
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {

// ---- Registry ---------------------------------------------------------------

absl::Status SqlStore::UpsertExecutor(const v1::ExecutorInfo& info, int64_t now_ms,
                                      int64_t registration_id) {
  const bool has_register = info.has_register_time();
  v1::ExecutorInfo stored = info;
  stored.clear_register_time();
  stored.clear_last_beat_time();
  return db_->Transact(Lane::kControl, [&](SqlConn& c) -> absl::Status {
    absl::StatusOr<ExecResult> r = c.Exec(
        has_register ? sql_.upsert_executor_set_register : sql_.upsert_executor_keep_register,
        {SqlText(info.app_name()), SqlText(info.address()), SqlBytes(stored.SerializeAsString()),
         SqlInt(has_register ? ToMs(info.register_time()) : now_ms), SqlInt(now_ms),
         SqlInt(registration_id)});
    return r.status();
  });
}

absl::Status SqlStore::RemoveExecutor(std::string_view app_name, std::string_view address,
                                      int64_t register_ms, int64_t registration_id) {
  const std::string app(app_name);
  const std::string addr(address);
  return db_->Transact(Lane::kControl, [&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(ExecResult r,
                     c.Exec(sql_.delete_executor, {SqlText(app), SqlText(addr), SqlInt(register_ms),
                                                   SqlInt(registration_id)}));
    if (r.affected_rows == 0) {
      return absl::NotFoundError(
          absl::StrCat("executor ", addr, " of app '", app, "' is not registered"));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<v1::ExecutorInfo>> SqlStore::ListExecutors() {
  std::vector<v1::ExecutorInfo> out;
  RETURN_IF_ERROR(db_->Read(Lane::kControl, [&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_executors, {}));
    for (const SqlRow& row : rows) {
      ASSIGN_OR_RETURN(v1::ExecutorInfo info, ExecutorFromRow(row));
      out.push_back(std::move(info));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<int64_t> SqlStore::PruneExecutors(int64_t before_ms) {
  int64_t pruned = 0;
  RETURN_IF_ERROR(db_->Transact(Lane::kControl, [&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(ExecResult r, c.Exec(sql_.prune_executors, {SqlInt(before_ms)}));
    pruned = r.affected_rows;
    return absl::OkStatus();
  }));
  return pruned;
}

}  // namespace gnomon::store::internal

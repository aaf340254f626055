// SqlStore: the audit log of admin changes. An entry is kept whole as a
// serialized v1.AuditEntry beside the columns it is found by.
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {

absl::Status SqlStore::AppendAudit(const v1::AuditEntry& entry) {
  v1::AuditEntry stored = entry;
  stored.clear_id();
  return db_->Transact([&](SqlConn& c) -> absl::Status {
    return c
        .Insert(sql_.insert_audit, {SqlInt(ToMs(entry.time())), SqlText(entry.object()),
                                    SqlBytes(stored.SerializeAsString())})
        .status();
  });
}

absl::StatusOr<std::vector<v1::AuditEntry>> SqlStore::ListAudit(std::string_view object,
                                                                int64_t before_id, int limit) {
  const std::string o(object);
  std::vector<SqlRow> rows;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> r,
                     c.Query(sql_.select_audit, {SqlInt(before_id), SqlInt(before_id), SqlText(o),
                                                 SqlText(o), SqlInt(limit)}));
    rows = std::move(r);
    return absl::OkStatus();
  }));
  std::vector<v1::AuditEntry> out;
  out.reserve(rows.size());
  for (const SqlRow& row : rows) {
    v1::AuditEntry& e = out.emplace_back();
    if (!e.ParseFromString(ColStr(row, 1))) {
      return absl::InternalError(absl::StrCat("audit entry ", ColInt(row, 0), ": corrupt"));
    }
    e.set_id(ColInt(row, 0));
  }
  return out;
}

absl::StatusOr<int64_t> SqlStore::DeleteAuditBefore(int64_t before_ms, int limit) {
  int64_t deleted = 0;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> ids,
                     c.Query(sql_.select_audit_cutoff, {SqlInt(before_ms), SqlInt(limit)}));
    if (ids.empty()) return absl::OkStatus();
    // Oldest first: everything up to the last id read that is also old enough.
    ASSIGN_OR_RETURN(ExecResult r, c.Exec(sql_.delete_audit_through,
                                          {SqlInt(ColInt(ids.back(), 0)), SqlInt(before_ms)}));
    deleted = r.affected_rows;
    return absl::OkStatus();
  }));
  return deleted;
}

}  // namespace gnomon::store::internal

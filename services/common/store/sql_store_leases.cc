// SqlStore: leases (scheduler partitions, replica presence), timed by the
// database's clock.
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/batch_sql.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {
namespace {

// "replica#incarnation" -> "replica".
std::string_view ReplicaOf(std::string_view holder) {
  const size_t hash = holder.rfind('#');
  return hash == std::string_view::npos ? holder : holder.substr(0, hash);
}

std::vector<SqlValue> Texts(const std::vector<std::string>& names) {
  std::vector<SqlValue> params;
  params.reserve(names.size() + 2);
  for (const std::string& n : names) params.push_back(SqlText(n));
  return params;
}

Lease LeaseFromRow(const SqlRow& row) {
  Lease l;
  l.name = ColStr(row, 0);
  l.holder = ColStr(row, 1);
  l.epoch = ColInt(row, 2);
  l.expires_ms = ColInt(row, 3);
  return l;
}

absl::StatusOr<int64_t> StoreNow(SqlConn& c, const Statements& sql) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql.store_now_ms, {}));
  if (rows.empty()) return absl::InternalError("the store's clock returned no row");
  return ColInt(rows.front(), 0);
}

}  // namespace

absl::StatusOr<Leases> SqlStore::AcquireLeases(const std::vector<std::string>& names,
                                               std::string_view holder, int64_t ttl_ms) {
  const std::string h(holder);
  if (h.empty()) return absl::InvalidArgumentError("lease holder must not be empty");
  Leases out;
  if (names.empty()) return out;
  const std::string in = Placeholders(static_cast<int>(names.size()));
  for (int pass = 0; pass < 2; ++pass) {
    bool missing = false;
    RETURN_IF_ERROR(db_->Transact(Lane::kControl, [&](SqlConn& c) -> absl::Status {
      out = Leases{};
      ASSIGN_OR_RETURN(int64_t now, StoreNow(c, sql_));
      out.now_ms = now;
      ASSIGN_OR_RETURN(
          std::vector<SqlRow> rows,
          c.Query(absl::StrCat(sql_.lock_leases_prefix, in, sql_.lock_suffix), Texts(names)));
      missing = rows.size() < names.size();
      std::vector<std::string> renewed;
      for (const SqlRow& row : rows) {
        Lease l = LeaseFromRow(row);
        const bool mine = l.holder == h;
        const bool taken_over = !mine && !l.holder.empty() && ReplicaOf(l.holder) == ReplicaOf(h);
        if (!mine && !taken_over && !l.holder.empty() && l.expires_ms > out.now_ms) continue;
        l.expires_ms = out.now_ms + ttl_ms;
        if (mine) {
          renewed.push_back(l.name);
        } else {
          l.holder = h;
          ++l.epoch;
          RETURN_IF_ERROR(c.Exec(sql_.update_lease, {SqlText(h), SqlInt(l.epoch),
                                                     SqlInt(l.expires_ms), SqlText(l.name)}));
        }
        out.leases.push_back(std::move(l));
      }
      if (renewed.empty()) return absl::OkStatus();
      std::vector<SqlValue> params = Texts(renewed);
      params.insert(params.begin(), {SqlInt(out.now_ms + ttl_ms), SqlText(h)});
      return c
          .Exec(absl::StrCat(sql_.renew_leases_prefix,
                             Placeholders(static_cast<int>(renewed.size()))),
                params)
          .status();
    }));
    if (!missing || pass == 1) break;
    // First use of some names: create their free rows in a transaction of
    // their own (so the locking one never races another process's insert of
    // the same key), then take them. A new row is expired since now, so
    // pruning (DeleteExpiredLeases) leaves it alone.
    RETURN_IF_ERROR(db_->Transact(Lane::kControl, [&](SqlConn& c) -> absl::Status {
      ASSIGN_OR_RETURN(int64_t now, StoreNow(c, sql_));
      for (const std::string& n : names) {
        RETURN_IF_ERROR(c.Exec(sql_.ensure_lease, {SqlText(n), SqlInt(now)}));
      }
      return absl::OkStatus();
    }));
  }
  return out;
}

absl::Status SqlStore::ReleaseLeases(const std::vector<std::string>& names,
                                     std::string_view holder) {
  if (names.empty()) return absl::OkStatus();
  const std::string sql =
      absl::StrCat(sql_.release_leases_prefix, Placeholders(static_cast<int>(names.size())));
  return db_->Transact(Lane::kControl, [&](SqlConn& c) -> absl::Status {
    // Expired from now on: a presence row's age counts from its release.
    ASSIGN_OR_RETURN(int64_t now, StoreNow(c, sql_));
    std::vector<SqlValue> params = Texts(names);
    params.insert(params.begin(), {SqlInt(now), SqlText(std::string(holder))});
    return c.Exec(sql, params).status();
  });
}

absl::Status SqlStore::DeleteExpiredLeases(const std::vector<std::string>& names,
                                           int64_t expired_before_ms) {
  if (names.empty()) return absl::OkStatus();
  std::vector<SqlValue> params = Texts(names);
  params.insert(params.begin(), SqlInt(expired_before_ms));
  const std::string sql =
      absl::StrCat(sql_.delete_expired_leases_prefix, Placeholders(static_cast<int>(names.size())));
  return db_->Transact(Lane::kControl,
                       [&](SqlConn& c) -> absl::Status { return c.Exec(sql, params).status(); });
}

absl::Status SqlStore::Ping() {
  return db_->Read(Lane::kControl,
                   [&](SqlConn& c) -> absl::Status { return StoreNow(c, sql_).status(); });
}

absl::StatusOr<Leases> SqlStore::ListLeases(std::string_view prefix) {
  for (char ch : prefix) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(ch)) && ch != '/' && ch != '-' &&
        ch != '.' && ch != ':') {
      return absl::InvalidArgumentError("lease prefix may hold only letters, digits, / - . :");
    }
  }
  Leases out;
  RETURN_IF_ERROR(db_->Read(Lane::kControl, [&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(int64_t now, StoreNow(c, sql_));
    out.now_ms = now;
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                     c.Query(sql_.list_leases, {SqlText(std::string(prefix) + "%")}));
    for (const SqlRow& row : rows) out.leases.push_back(LeaseFromRow(row));
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace gnomon::store::internal

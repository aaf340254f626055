// SqlStore: API tokens (SHA-256 digests) and users (password hashes).
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {

// ---- API tokens -------------------------------------------------------------

absl::StatusOr<bool> SqlStore::HasAdminTokens() {
  bool any = false;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.count_admin_tokens, {}));
    any = !rows.empty() && ColInt(rows.front(), 0) > 0;
    return absl::OkStatus();
  }));
  return any;
}

absl::Status SqlStore::CreateAdminToken(std::string_view name, std::string_view sha256_hex,
                                        int64_t now_ms, int64_t expire_ms,
                                        const TokenScope& scope) {
  const std::string n(name);
  const std::string digest(sha256_hex);
  return db_->Transact([&](SqlConn& c) -> absl::Status {
    absl::StatusOr<ExecResult> r =
        c.Exec(sql_.insert_admin_token,
               {SqlText(n), SqlText(digest), SqlInt(now_ms), SqlInt(expire_ms), SqlInt(scope.role),
                SqlText(GrantsToColumn(scope.grants)), SqlText(scope.user)});
    if (absl::IsAlreadyExists(r.status())) {
      return absl::AlreadyExistsError(
          absl::StrCat("a token named '", n, "' (or with the same secret) exists"));
    }
    return r.status();
  });
}

absl::StatusOr<v1::ApiToken> SqlStore::FindAdminToken(std::string_view sha256_hex) {
  ASSIGN_OR_RETURN(std::vector<v1::ApiToken> found,
                   ReadTokens(sql_.select_admin_token, std::string(sha256_hex)));
  if (found.empty()) return absl::NotFoundError("no admin token with that digest");
  return found.front();
}

absl::StatusOr<std::vector<v1::ApiToken>> SqlStore::ListAdminTokens() {
  return ReadTokens(sql_.select_admin_tokens, std::nullopt);
}

absl::StatusOr<v1::ApiToken> SqlStore::RevokeAdminToken(std::string_view name, int64_t now_ms) {
  const std::string n(name);
  v1::ApiToken revoked;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    RETURN_IF_ERROR(c.Exec(sql_.revoke_admin_token, {SqlInt(now_ms), SqlText(n)}));
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                     c.Query(sql_.select_admin_token_by_name, {SqlText(n)}));
    if (rows.empty()) return absl::NotFoundError(absl::StrCat("name: no token named '", n, "'"));
    revoked = TokenFromRow(rows.front());
    return absl::OkStatus();
  }));
  return revoked;
}

absl::StatusOr<std::vector<v1::ApiToken>> SqlStore::ReadTokens(const std::string& sql,
                                                               std::optional<std::string> arg) {
  std::vector<v1::ApiToken> out;
  RETURN_IF_ERROR(db_->Read(Lane::kControl, [&](SqlConn& c) -> absl::Status {
    std::vector<SqlValue> args;
    if (arg) args.push_back(SqlText(*arg));
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql, args));
    for (const SqlRow& row : rows) out.push_back(TokenFromRow(row));
    return absl::OkStatus();
  }));
  return out;
}

// ---- Users ------------------------------------------------------------------

absl::StatusOr<v1::User> SqlStore::CreateUser(const v1::User& user, std::string_view password_hash,
                                              int64_t now_ms) {
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    absl::StatusOr<ExecResult> r =
        c.Exec(sql_.insert_user,
               {SqlText(user.name()), SqlText(std::string(password_hash)), SqlInt(user.role()),
                SqlText(GrantsToColumn(user.grants())), SqlInt(now_ms), SqlInt(now_ms)});
    if (absl::IsAlreadyExists(r.status())) {
      return absl::AlreadyExistsError(absl::StrCat("a user named '", user.name(), "' exists"));
    }
    return r.status();
  }));
  ASSIGN_OR_RETURN(StoredUser created, GetUser(user.name()));
  return created.user;
}

absl::StatusOr<StoredUser> SqlStore::GetUser(std::string_view name) {
  const std::string n(name);
  std::optional<StoredUser> found;
  RETURN_IF_ERROR(db_->Read(Lane::kControl, [&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_user, {SqlText(n)}));
    if (rows.empty()) return absl::OkStatus();
    found.emplace();
    found->user = UserFromRow(rows.front(), &found->password_hash);
    return absl::OkStatus();
  }));
  if (!found) return absl::NotFoundError(absl::StrCat("name: no user named '", n, "'"));
  return *std::move(found);
}

absl::StatusOr<std::vector<v1::User>> SqlStore::ListUsers() {
  std::vector<v1::User> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_users, {}));
    for (const SqlRow& row : rows) out.push_back(UserFromRow(row, nullptr));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<v1::User> SqlStore::UpdateUser(const v1::User& user,
                                              std::optional<std::string> password_hash,
                                              int64_t now_ms) {
  v1::User updated;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    RETURN_IF_ERROR(
        c.Exec(sql_.update_user, {SqlInt(user.role()), SqlText(GrantsToColumn(user.grants())),
                                  SqlInt(now_ms), SqlText(user.name())}));
    if (password_hash) {
      RETURN_IF_ERROR(
          c.Exec(sql_.update_user_password, {SqlText(*password_hash), SqlText(user.name())}));
      // A new password ends every session the old one opened.
      RETURN_IF_ERROR(c.Exec(sql_.revoke_user_tokens, {SqlInt(now_ms), SqlText(user.name())}));
    }
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_user, {SqlText(user.name())}));
    if (rows.empty())
      return absl::NotFoundError(absl::StrCat("name: no user named '", user.name(), "'"));
    updated = UserFromRow(rows.front(), nullptr);
    return absl::OkStatus();
  }));
  return updated;
}

absl::Status SqlStore::DeleteUser(std::string_view name, int64_t now_ms) {
  const std::string n(name);
  return db_->Transact([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(ExecResult r, c.Exec(sql_.delete_user, {SqlText(n)}));
    if (r.affected_rows == 0)
      return absl::NotFoundError(absl::StrCat("name: no user named '", n, "'"));
    return c.Exec(sql_.revoke_user_tokens, {SqlInt(now_ms), SqlText(n)}).status();
  });
}

absl::StatusOr<int64_t> SqlStore::DeleteEndedSessions(int64_t before_ms, int limit) {
  int64_t deleted = 0;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    deleted = 0;
    ASSIGN_OR_RETURN(
        std::vector<SqlRow> names,
        c.Query(sql_.select_ended_sessions, {SqlInt(before_ms), SqlInt(before_ms), SqlInt(limit)}));
    for (const SqlRow& row : names) {
      ASSIGN_OR_RETURN(ExecResult r, c.Exec(sql_.delete_token, {row[0]}));
      deleted += r.affected_rows;
    }
    return absl::OkStatus();
  }));
  return deleted;
}

}  // namespace gnomon::store::internal

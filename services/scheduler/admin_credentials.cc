// AdminCore, credentials: API tokens (a secret shown once, only its SHA-256
// stored; listed without secrets; revoked), users (a role, grants and a
// PBKDF2 password hash) and their login sessions (tokens tied to the user).
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/server/access.h"
#include "services/common/server/authenticator.h"
#include "services/common/server/field_checks.h"
#include "services/common/server/passwords.h"
#include "services/common/server/tokens.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/admin_core.h"

namespace gnomon::scheduler {

using google::protobuf::util::TimeUtil;

namespace {

constexpr absl::Duration kMaxTokenTtl = absl::Hours(24 * 3650);
constexpr absl::Duration kDefaultSessionTtl = absl::Hours(12);
constexpr absl::Duration kMaxSessionTtl = absl::Hours(24 * 30);
constexpr int kMaxGrantedGroups = 100;

absl::Status CheckName(const std::string& field, const std::string& name) {
  return checks::CheckString(field, name, 128, checks::Charset::kName, 1);
}

// A role and its grants: ADMIN reaches every group and takes none; OPERATOR
// and VIEWER need some (all_groups, or up to 100 group ids).
absl::Status CheckRoleAndGrants(const std::string& prefix, v1::Role role,
                                const v1::Grants& grants) {
  const std::string role_field = prefix + "role", grants_field = prefix + "grants";
  if (role != v1::ROLE_ADMIN && role != v1::ROLE_OPERATOR && role != v1::ROLE_VIEWER) {
    return checks::Invalid(role_field, "must be admin, operator or viewer");
  }
  const bool any = grants.all_groups() || !grants.group_ids().empty();
  if (role == v1::ROLE_ADMIN) {
    return any ? checks::Invalid(grants_field, "an admin reaches every group; give no grants")
               : absl::OkStatus();
  }
  if (!any)
    return checks::Invalid(grants_field, "an operator or viewer needs all_groups or group_ids");
  if (grants.all_groups() && !grants.group_ids().empty()) {
    return checks::Invalid(grants_field, "all_groups and group_ids exclude each other");
  }
  RETURN_IF_ERROR(
      checks::CheckCount(grants_field + ".group_ids", grants.group_ids_size(), kMaxGrantedGroups));
  for (int i = 0; i < grants.group_ids_size(); ++i) {
    RETURN_IF_ERROR(checks::CheckRange(checks::Indexed(grants_field + ".group_ids", i),
                                       grants.group_ids(i), 1, INT64_MAX));
  }
  return absl::OkStatus();
}

// The fields of a user in a request; `password` when one is given.
absl::Status CheckUser(const v1::User& u, const std::string& password, bool password_required) {
  return checks::FirstError(
      {CheckName("user.name", u.name()), CheckRoleAndGrants("user.", u.role(), u.grants()),
       checks::CheckOutputTimestamp("user.create_time", u.has_create_time(), u.create_time()),
       checks::CheckOutputTimestamp("user.update_time", u.has_update_time(), u.update_time()),
       password_required || !password.empty() ? CheckPasswordStrength("password", password)
                                              : absl::OkStatus()});
}

}  // namespace

absl::StatusOr<v1::CreateTokenResponse> AdminCore::NewApiToken(const std::string& name,
                                                               int64_t ttl_ms,
                                                               const store::TokenScope& scope) {
  const int64_t now = clock_->NowMillis();
  const int64_t expire = ttl_ms > 0 ? now + ttl_ms : 0;
  v1::CreateTokenResponse resp;
  resp.set_secret(NewToken());
  const std::string digest = Sha256Hex(resp.secret());
  if (absl::Status s = stores_.credentials->CreateAdminToken(name, digest, now, expire, scope);
      !s.ok()) {
    if (absl::IsAlreadyExists(s)) {
      return absl::AlreadyExistsError(
          absl::StrCat("name: a token named ", checks::Prefix(name), " exists"));
    }
    return s;
  }
  v1::ApiToken& t = *resp.mutable_token();  // As stored (TokenFromRow).
  t.set_name(name);
  t.set_fingerprint(digest.substr(0, 16));
  *t.mutable_create_time() = TimeUtil::MillisecondsToTimestamp(now);
  if (expire != 0) *t.mutable_expire_time() = TimeUtil::MillisecondsToTimestamp(expire);
  t.set_role(scope.role);
  *t.mutable_grants() = scope.grants;
  t.set_user(scope.user);
  return resp;
}

absl::StatusOr<v1::CreateTokenResponse> AdminCore::CreateToken(const v1::CreateTokenRequest& req) {
  const v1::Role role = req.role() == v1::ROLE_UNSPECIFIED ? v1::ROLE_ADMIN : req.role();
  RETURN_IF_ERROR(checks::FirstError(
      {CheckName("name", req.name()),
       req.has_ttl() ? checks::CheckDuration("ttl", req.ttl(), absl::Seconds(1), kMaxTokenTtl)
                     : absl::OkStatus(),
       CheckRoleAndGrants("", role, req.grants())}));
  return NewApiToken(req.name(), req.has_ttl() ? TimeUtil::DurationToMilliseconds(req.ttl()) : 0,
                     store::TokenScope{role, req.grants(), ""});
}

absl::StatusOr<v1::ListTokensResponse> AdminCore::ListTokens() {
  ASSIGN_OR_RETURN(std::vector<v1::ApiToken> tokens, stores_.credentials->ListAdminTokens());
  v1::ListTokensResponse resp;
  for (v1::ApiToken& t : tokens) *resp.add_tokens() = std::move(t);
  return resp;
}

absl::StatusOr<v1::ApiToken> AdminCore::RevokeToken(const v1::RevokeTokenRequest& req) {
  RETURN_IF_ERROR(CheckName("name", req.name()));
  return stores_.credentials->RevokeAdminToken(req.name(), clock_->NowMillis());
}

absl::StatusOr<v1::User> AdminCore::CreateUser(const v1::CreateUserRequest& req) {
  RETURN_IF_ERROR(CheckUser(req.user(), req.password(), /*password_required=*/true));
  absl::StatusOr<v1::User> u = stores_.credentials->CreateUser(
      req.user(), HashPassword(req.password()), clock_->NowMillis());
  if (absl::IsAlreadyExists(u.status())) {
    return absl::AlreadyExistsError(
        absl::StrCat("user.name: a user named ", checks::Prefix(req.user().name()), " exists"));
  }
  return u;
}

absl::StatusOr<v1::ListUsersResponse> AdminCore::ListUsers() {
  ASSIGN_OR_RETURN(std::vector<v1::User> users, stores_.credentials->ListUsers());
  v1::ListUsersResponse resp;
  for (v1::User& u : users) *resp.add_users() = std::move(u);
  return resp;
}

absl::StatusOr<v1::User> AdminCore::UpdateUser(const v1::UpdateUserRequest& req) {
  RETURN_IF_ERROR(CheckUser(req.user(), req.password(), /*password_required=*/false));
  std::optional<std::string> hash;
  if (!req.password().empty()) hash = HashPassword(req.password());
  return stores_.credentials->UpdateUser(req.user(), std::move(hash), clock_->NowMillis());
}

absl::Status AdminCore::DeleteUser(const std::string& name) {
  RETURN_IF_ERROR(CheckName("name", name));
  return stores_.credentials->DeleteUser(name, clock_->NowMillis());
}

absl::StatusOr<v1::CreateTokenResponse> AdminCore::Login(const std::string& user,
                                                         const v1::LoginRequest& req) {
  if (req.has_ttl()) {
    RETURN_IF_ERROR(checks::CheckDuration("ttl", req.ttl(), absl::Seconds(1), kMaxSessionTtl));
  }
  const int64_t ttl_ms = req.has_ttl() ? TimeUtil::DurationToMilliseconds(req.ttl())
                                       : absl::ToInt64Milliseconds(kDefaultSessionTtl);
  ASSIGN_OR_RETURN(store::StoredUser u, stores_.credentials->GetUser(user));
  // Recorded for listing; when the session is used, the user's role and
  // grants as they are then apply (Authenticator).
  store::TokenScope scope{u.user.role(), u.user.grants(), user};
  // Unique per session: the user's name and a random suffix.
  return NewApiToken(absl::StrCat("login.", user, ".", NewToken().substr(0, 8)), ttl_ms, scope);
}

absl::StatusOr<std::string> AdminCore::Logout(const std::string& credential,
                                              const std::string& user) {
  const absl::Status not_a_session = absl::FailedPreconditionError(
      "this call's token is not a login session: revoke API tokens with RevokeToken");
  const std::string_view digest = TokenDigestOf(credential);
  if (user.empty() || digest.empty()) return not_a_session;
  absl::StatusOr<v1::ApiToken> token = stores_.credentials->FindAdminToken(digest);
  if (absl::IsNotFound(token.status())) return not_a_session;
  RETURN_IF_ERROR(token.status());
  if (token->user().empty()) return not_a_session;
  RETURN_IF_ERROR(
      stores_.credentials->RevokeAdminToken(token->name(), clock_->NowMillis()).status());
  return token->name();
}

}  // namespace gnomon::scheduler

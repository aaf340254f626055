// CredentialStore: API tokens and users.
//
// Read by the Authenticator on every call; written by the admin API.
//
// One of the role-sized interfaces that together make up the Store
// (store.h); the same SQL store implements them all, and each part of gnomon
// takes only the ones it uses. Conventions (times, errors, thread safety) are
// store.h's.
#ifndef GNOMON_SERVICES_COMMON_STORE_CREDENTIAL_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_CREDENTIAL_STORE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/admin.pb.h"

namespace gnomon::store {

// What an API token may do: a service account's role and grants, or the user
// whose session it is (then the user's role and grants apply).
struct TokenScope {
  v1::Role role = v1::ROLE_ADMIN;
  v1::Grants grants;
  std::string user;
};

// A user as stored.
struct StoredUser {
  v1::User user;
  std::string password_hash;
};

class CredentialStore {
 public:
  virtual ~CredentialStore() = default;

  // ---- API tokens (stored as SHA-256 hex digests, never in clear) ----------
  virtual absl::StatusOr<bool> HasAdminTokens() = 0;
  // AlreadyExists if the name is taken; expire_ms 0: never expires.
  // `scope`: role, grants and (for a login session) user.
  virtual absl::Status CreateAdminToken(std::string_view name, std::string_view sha256_hex,
                                        int64_t now_ms, int64_t expire_ms = 0,
                                        const TokenScope& scope = {}) = 0;
  // The token with that digest, revoked or expired ones too (the caller
  // judges); NotFound if none.
  virtual absl::StatusOr<v1::ApiToken> FindAdminToken(std::string_view sha256_hex) = 0;
  // Every token, by name.
  virtual absl::StatusOr<std::vector<v1::ApiToken>> ListAdminTokens() = 0;
  // Marks it revoked at now_ms (kept revoked if it already was); NotFound
  // if there is no token of that name.
  virtual absl::StatusOr<v1::ApiToken> RevokeAdminToken(std::string_view name, int64_t now_ms) = 0;

  // ---- Users (passwords stored only as hashes) ------------------------------
  // AlreadyExists if the name is taken.
  virtual absl::StatusOr<v1::User> CreateUser(const v1::User& user, std::string_view password_hash,
                                              int64_t now_ms) = 0;
  // The user and its password hash; NotFound if none.
  virtual absl::StatusOr<StoredUser> GetUser(std::string_view name) = 0;
  // Every user, by name.
  virtual absl::StatusOr<std::vector<v1::User>> ListUsers() = 0;
  // Replaces role and grants (and the password hash, if given: then the
  // user's session tokens are revoked, in the same transaction); NotFound if
  // none.
  virtual absl::StatusOr<v1::User> UpdateUser(const v1::User& user,
                                              std::optional<std::string> password_hash,
                                              int64_t now_ms) = 0;
  // Deletes the user and revokes its session tokens, in one transaction;
  // NotFound if none.
  virtual absl::Status DeleteUser(std::string_view name, int64_t now_ms) = 0;
  // Deletes at most `limit` login-session tokens (those of a user) that were
  // revoked or expired before `before_ms`; how many. API tokens are kept
  // (their revocation stays listed).
  virtual absl::StatusOr<int64_t> DeleteEndedSessions(int64_t before_ms, int limit) = 0;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_CREDENTIAL_STORE_H_

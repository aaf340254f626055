// FailingCredentialStore: a CredentialStore that forwards every call to a
// real one (a TempStore) through a StoreCallHook, so a test can count the
// Authenticator's store reads (what its cache saves), make them fail
// (a store outage), or change the store between two reads of one check.
//
//   StoreCallHook hook;
//   FailingCredentialStore credentials(store.get(), &hook);
//   Authenticator auth(&credentials, store.get(), "cluster-token", nullptr, &clock);
//
// Thread safety: as the store it wraps.
#ifndef GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_CREDENTIAL_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_CREDENTIAL_STORE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "services/common/store/credential_store.h"
#include "services/common/store/testing/store_call_hook.h"

namespace gnomon::store::testing {

class FailingCredentialStore final : public CredentialStore {
 public:
  FailingCredentialStore(CredentialStore* inner, StoreCallHook* hook)
      : inner_(inner), hook_(hook) {}

  absl::StatusOr<bool> HasAdminTokens() override {
    return hook_->Forward("HasAdminTokens", [&] { return inner_->HasAdminTokens(); });
  }
  absl::Status CreateAdminToken(std::string_view name, std::string_view sha256_hex, int64_t now_ms,
                                int64_t expire_ms, const TokenScope& scope) override {
    return hook_->Forward("CreateAdminToken", [&] {
      return inner_->CreateAdminToken(name, sha256_hex, now_ms, expire_ms, scope);
    });
  }
  absl::StatusOr<v1::ApiToken> FindAdminToken(std::string_view sha256_hex) override {
    return hook_->Forward("FindAdminToken", [&] { return inner_->FindAdminToken(sha256_hex); });
  }
  absl::StatusOr<std::vector<v1::ApiToken>> ListAdminTokens() override {
    return hook_->Forward("ListAdminTokens", [&] { return inner_->ListAdminTokens(); });
  }
  absl::StatusOr<v1::ApiToken> RevokeAdminToken(std::string_view name, int64_t now_ms) override {
    return hook_->Forward("RevokeAdminToken",
                          [&] { return inner_->RevokeAdminToken(name, now_ms); });
  }
  absl::StatusOr<v1::User> CreateUser(const v1::User& user, std::string_view password_hash,
                                      int64_t now_ms) override {
    return hook_->Forward("CreateUser",
                          [&] { return inner_->CreateUser(user, password_hash, now_ms); });
  }
  absl::StatusOr<StoredUser> GetUser(std::string_view name) override {
    return hook_->Forward("GetUser", [&] { return inner_->GetUser(name); });
  }
  absl::StatusOr<std::vector<v1::User>> ListUsers() override {
    return hook_->Forward("ListUsers", [&] { return inner_->ListUsers(); });
  }
  absl::StatusOr<v1::User> UpdateUser(const v1::User& user,
                                      std::optional<std::string> password_hash,
                                      int64_t now_ms) override {
    return hook_->Forward("UpdateUser",
                          [&] { return inner_->UpdateUser(user, password_hash, now_ms); });
  }
  absl::Status DeleteUser(std::string_view name, int64_t now_ms) override {
    return hook_->Forward("DeleteUser", [&] { return inner_->DeleteUser(name, now_ms); });
  }
  absl::StatusOr<int64_t> DeleteEndedSessions(int64_t before_ms, int limit) override {
    return hook_->Forward("DeleteEndedSessions",
                          [&] { return inner_->DeleteEndedSessions(before_ms, limit); });
  }

 private:
  CredentialStore* const inner_;
  StoreCallHook* const hook_;
};

}  // namespace gnomon::store::testing

#endif  // GNOMON_SERVICES_COMMON_STORE_TESTING_FAILING_CREDENTIAL_STORE_H_

// Authenticator: checks the credentials gRPC calls carry, and the caller's
// role against what the method needs.
//
// Every handler of every gnomond service starts with Authorize, which checks
// the credential method_credentials.h's table requires for the method, before
// the handler reads a message or touches the store. Admin and query calls carry
// "authorization: Bearer <token>": an API token (looked up by SHA-256 digest in
// the store; revoked and expired ones refused, valid ones remembered 5 s with
// their role and grants — a user's session token takes its user's), or for
// the few calls roles make on each other, the cluster token shared by gnomond
// roles. A caller whose role is below the method's RequiredPermission gets
// PermissionDenied. Login carries "authorization: Basic <user:password>",
// tried at most 10 times at once and then once per 6 s per user name.
// Executor-facing calls carry "x-gnomon-app" and "x-gnomon-access-token",
// compared with the token of that app's group — or its previous token until
// that expires (a rotation's grace period).
//
//   Authenticator auth(store, store, cluster_token);  // or (..., &server_metrics)
//   // In a handler of gnomon.v1.Registry, whose C++ name is the RPC's name:
//   absl::StatusOr<Caller> caller = auth.Authorize(*context, v1::Registry::service_full_name(),
//   __func__); if (!caller.ok()) return ToGrpcStatus(caller.status());
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_COMMON_SERVER_AUTHENTICATOR_H_
#define GNOMON_SERVICES_COMMON_SERVER_AUTHENTICATOR_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/server_context.h"
#include "services/common/client/clock.h"
#include "services/common/server/access.h"
#include "services/common/server/method_credentials.h"
#include "services/common/server/rate_limiter.h"
#include "services/common/server/server_metrics.h"
#include "services/common/store/credential_store.h"
#include "services/common/store/job_store.h"

namespace gnomon {

// Who an authorized call comes from.
struct Caller {
  // The caller's group for Credential::kGroupOfApp methods; empty otherwise.
  v1::Group group;
  // Which credential authorized the call, for per-credential accounting
  // (rate limits): "cluster", "admin:<SHA-256 of the token>" or "app:<app>".
  // Never the token itself.
  std::string credential;
  // For group callers: which token it presented (TokenFingerprint), and —
  // if that is the group's previous token (rotated, in its grace period) —
  // when it stops being accepted (unix ms).
  std::string token_fingerprint;
  std::optional<int64_t> token_expires_ms;
  // For bearer and password callers: its role and grants.
  Access access;
  // The user a login session (or a Login call) is for; empty otherwise.
  std::string user;
};

// The one answer to refused credentials, whatever the reason: a caller learns
// neither whether an app exists nor which part of its credentials is wrong.
inline constexpr char kRefusedMessage[] = "missing or invalid credentials";
// The answer (UNAVAILABLE) when the store cannot check credentials: never the
// store's own error, which the caller (not yet authenticated) must not see.
inline constexpr char kUnverifiableMessage[] = "credentials cannot be checked right now; try again";

class Authenticator {
 public:
  // `cluster_token` may be empty (then only admin tokens are accepted).
  // `metrics` (may be null) counts refused credentials.
  // `groups` is read for apps' access tokens.
  Authenticator(store::CredentialStore* credentials, store::JobStore* groups,
                std::string cluster_token, ServerMetrics* metrics = nullptr,
                Clock* clock = &RealClock());

  // Checks the credential RequiredCredential("/service/method") names. Every refusal
  // (missing, malformed or wrong token, unknown app, a method not in the table)
  // is Unauthenticated(kRefusedMessage); the reason is counted in the metrics
  // and logged with the method and app, never the token. A store failure is
  // Unavailable(kUnverifiableMessage), not a refusal; the store's own error
  // is logged, never answered.
  absl::StatusOr<Caller> Authorize(const grpc::ServerContext& context, std::string_view service,
                                   std::string_view method) ABSL_LOCKS_EXCLUDED(mu_);
  // The same with the call's metadata from elsewhere (the HTTP/JSON
  // transport's headers): `metadata(key)` is the value of `key`, or "".
  using MetadataLookup = std::function<std::string(std::string_view key)>;
  absl::StatusOr<Caller> Authorize(const MetadataLookup& metadata, std::string_view service,
                                   std::string_view method) ABSL_LOCKS_EXCLUDED(mu_);
  // Password checks at once, and how long a login waits for one (see password_mu_).
  static constexpr int kPasswordChecksAtOnce = 2;
  static constexpr absl::Duration kPasswordCheckWait = absl::Seconds(1);

  // Forgets the token `caller` presented (after its revocation): this
  // replica refuses it from now on, not only once its cache entry expires.
  void Forget(const Caller& caller) ABSL_LOCKS_EXCLUDED(mu_);
  // The same for every session of `user` (after its password changed or the
  // user was deleted).
  void ForgetUser(std::string_view user) ABSL_LOCKS_EXCLUDED(mu_);

  // For clients: the cluster token to present to other roles.
  const std::string& cluster_token() const { return cluster_token_; }

  // On an empty store, creates the first admin token — `given`, or a new
  // one — and returns it; std::nullopt if admin tokens already exist.
  absl::StatusOr<std::optional<std::string>> BootstrapAdminToken(
      std::optional<std::string> given = std::nullopt);

 private:
  // `cluster`: the cluster token is accepted too.
  absl::StatusOr<Caller> CheckAdmin(const MetadataLookup& context, std::string_view full_method,
                                    bool cluster) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<Caller> CheckGroup(const MetadataLookup& context, std::string_view full_method);
  absl::StatusOr<Caller> CheckPassword(const MetadataLookup& context, std::string_view full_method);
  // The role and grants a valid token gives: its own, or its user's.
  absl::StatusOr<Caller> TokenCaller(const v1::ApiToken& token, std::string digest,
                                     std::string_view full_method);
  // The caller `token` makes of `app`'s group; `full_method` names refusals.
  absl::StatusOr<Caller> GroupCaller(std::string_view app, std::string_view token,
                                     std::string_view full_method);
  // The refusal for `reason`, counted and logged.
  absl::Status Refuse(AuthFailure reason, std::string_view full_method, std::string_view app = "");

  store::CredentialStore* const credentials_;
  store::JobStore* const groups_;

  const std::string cluster_token_;
  ServerMetrics* const metrics_;
  Clock* const clock_;
  absl::Mutex mu_;
  struct Valid {
    int64_t expires_ms;
    Caller caller;
  };
  // Digest -> the caller it made: valid API tokens seen recently.
  absl::flat_hash_map<std::string, Valid> valid_ ABSL_GUARDED_BY(mu_);
  // Failed logins, by user name and client address, and by client address.
  RateLimiter login_failures_;
  RateLimiter client_login_failures_;
  // Password checks (PBKDF2, about 80 ms of a core each) running now. A
  // login with a made-up name costs a full check, by design (the time taken
  // must not tell whether a user exists), so a flood of them is bounded
  // here instead: at most kPasswordChecksAtOnce run at once, and a login
  // that cannot start one within kPasswordCheckWait is refused
  // RESOURCE_EXHAUSTED. A flood then costs at most that many cores.
  absl::Mutex password_mu_;
  int password_checks_ ABSL_GUARDED_BY(password_mu_) = 0;
};

// The SHA-256 digest (hex) of the API or login-session token a caller's
// `credential` (Caller::credential) names; "" for any other credential.
std::string_view TokenDigestOf(std::string_view credential);

// A MetadataLookup key that is no metadata entry: the caller's address
// (ClientAddress).
inline constexpr std::string_view kClientAddressKey = ":client-address";
// The value of metadata `key` (or of kClientAddressKey), or empty.
std::string MetadataValue(const grpc::ServerContext& context, std::string_view key);
// The address the call came from, without the port: the peer's, or for a
// call through gnomond's HTTP/JSON gateway, the HTTP client's.
std::string ClientAddress(const grpc::ServerContext& context);
// The call's metadata copied into a lookup that outlives the call's context
// (a long-lived stream checks its credentials again from it later).
Authenticator::MetadataLookup CopiedMetadata(const grpc::ServerContextBase& context);

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_AUTHENTICATOR_H_

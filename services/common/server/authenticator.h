// Authenticator: checks the credentials gRPC calls carry.
//
// Admin and query calls carry "authorization: Bearer <token>": an admin token
// (looked up by SHA-256 digest in the store) or the cluster token shared by
// gnomond roles. Executor-facing calls carry "x-gnomon-access-token", compared
// with the token of the executor's group.
//
//   Authenticator auth(store, cluster_token);  // or (store, token, &server_metrics)
//   if (absl::Status s = auth.CheckAdmin(*context); !s.ok()) return ToGrpcStatus(s);
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_COMMON_SERVER_AUTHENTICATOR_H_
#define GNOMON_SERVICES_COMMON_SERVER_AUTHENTICATOR_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/server_context.h"
#include "services/common/client/clock.h"
#include "services/common/server/server_metrics.h"
#include "services/common/store/store.h"

namespace gnomon {

class Authenticator {
 public:
  // `cluster_token` may be empty (then only admin tokens are accepted).
  // `metrics` (may be null) counts refused credentials.
  Authenticator(store::Store* store, std::string cluster_token, ServerMetrics* metrics = nullptr,
                Clock* clock = &RealClock());

  // Unauthenticated unless the call carries a valid admin or cluster token.
  absl::Status CheckAdmin(const grpc::ServerContext& context) ABSL_LOCKS_EXCLUDED(mu_);
  // The group of `app_name` if the call carries its access token; NotFound
  // for an unknown app, Unauthenticated for a missing or wrong token.
  absl::StatusOr<v1::Group> CheckGroup(const grpc::ServerContext& context,
                                       std::string_view app_name);
  // For clients: the cluster token to present to other roles.
  const std::string& cluster_token() const { return cluster_token_; }

  // On an empty store, creates the first admin token and returns it (the only
  // time it exists in clear); std::nullopt if admin tokens already exist.
  absl::StatusOr<std::optional<std::string>> BootstrapAdminToken();

 private:
  store::Store* const store_;
  // The status refusing credentials for `reason`, counted.
  absl::Status Refuse(AuthFailure reason, absl::Status status);

  const std::string cluster_token_;
  ServerMetrics* const metrics_;
  Clock* const clock_;
  absl::Mutex mu_;
  // Digest -> cache expiry (ms): valid admin tokens seen recently.
  absl::flat_hash_map<std::string, int64_t> valid_ ABSL_GUARDED_BY(mu_);
};

// The value of metadata `key`, or empty.
std::string MetadataValue(const grpc::ServerContext& context, std::string_view key);

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_AUTHENTICATOR_H_

// ServerMetrics: metrics of gnomond's gRPC server under grpc-ecosystem's
// names, so stock gRPC dashboards and alerts work — grpc_server_started_total,
// grpc_server_handled_total{grpc_service,grpc_method,grpc_type,grpc_code}
// and grpc_server_handling_seconds (an interceptor on every service) — and
// failed authentications by reason (counted by Authenticator). With
// `legacy_names` (gnomond --metrics-legacy-names, for one release while
// dashboards move) the old gnomon_rpc_requests_total and
// gnomon_rpc_request_duration_seconds are exported as well.
//
//   ServerMetrics server_metrics(*metrics);
//   GrpcServer server(&server_metrics);
//   Authenticator auth(store, store, cluster_token, &server_metrics);
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_COMMON_SERVER_SERVER_METRICS_H_
#define GNOMON_SERVICES_COMMON_SERVER_SERVER_METRICS_H_

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/time/time.h"
#include "grpcpp/support/server_interceptor.h"
#include "grpcpp/support/status.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "services/common/metrics/metrics_registry.h"

namespace gnomon {

enum class AuthFailure {
  kMissingCredentials,  // No token in the call's metadata.
  kMalformed,           // An authorization header that is not "Bearer <token>".
  kInvalidAdminToken,   // A bearer token that is neither an admin token nor the cluster token.
  kUnknownApp,          // An executor of an app no group has.
  kWrongAccessToken,    // An executor with the wrong group token.
  kWrongPassword,       // A login with an unknown user or a wrong password.
  kLoginThrottled,      // A login for a user name tried too often lately.
  kCount
};
// The metric label of `reason` ("missing_credentials", ...).
const char* AuthFailureName(AuthFailure reason);

// The (service, method) labels of a full gRPC method name
// ("/gnomon.v1.JobAdmin/CreateJob" -> ("gnomon.v1.JobAdmin", "CreateJob")):
// ("other", "other") for a method gnomon does not serve, so a client cannot
// make label values up.
std::pair<std::string, std::string> RpcLabels(const char* full_method);
// grpc_code's value: grpc-go's name of `code` ("OK", "NotFound", ...).
const char* GrpcCodeLabel(grpc::StatusCode code);

class ServerMetrics {
 public:
  explicit ServerMetrics(metrics::MetricsRegistry& metrics, bool legacy_names = false);

  // For grpc::ServerBuilder::experimental().SetInterceptorCreators.
  std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface> InterceptorFactory();
  // A call of `type` (grpc_type: "unary", "server_stream", ...) started;
  // it ended with `code`, `took` after it started.
  void Started(const char* full_method, const char* type);
  void Handled(const char* full_method, const char* type, grpc::StatusCode code,
               absl::Duration took);
  void AuthFailed(AuthFailure reason) { auth_failures_[static_cast<size_t>(reason)]->Increment(); }

 private:
  prometheus::Family<prometheus::Counter>& started_;
  prometheus::Family<prometheus::Counter>& handled_;
  prometheus::Family<prometheus::Histogram>& handling_;
  // Only with legacy_names.
  prometheus::Family<prometheus::Counter>* const legacy_requests_;
  prometheus::Family<prometheus::Histogram>* const legacy_durations_;
  std::array<prometheus::Counter*, static_cast<size_t>(AuthFailure::kCount)> auth_failures_{};
};

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_SERVER_METRICS_H_

#include "services/common/server/server_metrics.h"

#include <iterator>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "google/protobuf/descriptor.h"
#include "services/common/metrics/buckets.h"

namespace gnomon {
namespace {

using grpc::experimental::InterceptionHookPoints;
using grpc::experimental::ServerRpcInfo;

// grpc-ecosystem's grpc_type of a call.
const char* TypeLabel(ServerRpcInfo::Type type) {
  switch (type) {
    case ServerRpcInfo::Type::UNARY:
      return "unary";
    case ServerRpcInfo::Type::CLIENT_STREAMING:
      return "client_stream";
    case ServerRpcInfo::Type::SERVER_STREAMING:
      return "server_stream";
    case ServerRpcInfo::Type::BIDI_STREAMING:
      return "bidi_stream";
  }
  return "unary";
}

// One call: counted as started when gRPC creates it, as handled when its
// status is sent.
class CallInterceptor final : public grpc::experimental::Interceptor {
 public:
  CallInterceptor(ServerMetrics* metrics, ServerRpcInfo* info)
      : metrics_(metrics), info_(info), start_(absl::Now()) {
    metrics_->Started(info_->method(), TypeLabel(info_->type()));
  }

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      metrics_->Handled(info_->method(), TypeLabel(info_->type()),
                        methods->GetSendStatus().error_code(), absl::Now() - start_);
    }
    methods->Proceed();
  }

 private:
  ServerMetrics* const metrics_;
  ServerRpcInfo* const info_;
  const absl::Time start_;
};

class CallInterceptorFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  explicit CallInterceptorFactory(ServerMetrics* metrics) : metrics_(metrics) {}
  grpc::experimental::Interceptor* CreateServerInterceptor(ServerRpcInfo* info) override {
    return new CallInterceptor(metrics_, info);
  }

 private:
  ServerMetrics* const metrics_;
};

constexpr const char* kAuthFailureNames[] = {
    "missing_credentials", "malformed",      "invalid_admin_token", "unknown_app",
    "wrong_access_token",  "wrong_password", "login_throttled"};
static_assert(std::size(kAuthFailureNames) == static_cast<size_t>(AuthFailure::kCount));

}  // namespace

const char* GrpcCodeLabel(grpc::StatusCode code) {
  // As grpc-go's codes.Code.String(), which grpc-ecosystem's dashboards use.
  static constexpr const char* kNames[] = {
      "OK",       "Canceled",       "Unknown",          "InvalidArgument",   "DeadlineExceeded",
      "NotFound", "AlreadyExists",  "PermissionDenied", "ResourceExhausted", "FailedPrecondition",
      "Aborted",  "OutOfRange",     "Unimplemented",    "Internal",          "Unavailable",
      "DataLoss", "Unauthenticated"};
  const auto i = static_cast<size_t>(code);
  return i < std::size(kNames) ? kNames[i] : "Unknown";
}

const char* AuthFailureName(AuthFailure reason) {
  return kAuthFailureNames[static_cast<size_t>(reason)];
}

std::pair<std::string, std::string> RpcLabels(const char* full_method) {
  const std::pair<std::string, std::string> other = {"other", "other"};
  if (full_method == nullptr || full_method[0] != '/') return other;
  std::pair<std::string, std::string> parts =
      absl::StrSplit(full_method + 1, absl::MaxSplits('/', 1));
  // gnomon's services and reflection are in the generated descriptor pool;
  // the health service is gRPC's own.
  const bool known = google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
                         absl::StrCat(parts.first, ".", parts.second)) != nullptr ||
                     (parts.first == "grpc.health.v1.Health" &&
                      (parts.second == "Check" || parts.second == "Watch"));
  return known ? parts : other;
}

ServerMetrics::ServerMetrics(metrics::MetricsRegistry& m, bool legacy_names)
    : started_(m.CounterFamily("grpc_server_started_total",
                               "RPCs started on the server, by service, method and type.")),
      handled_(m.CounterFamily(
          "grpc_server_handled_total",
          "RPCs completed on the server, by service, method, type and status code.")),
      handling_(m.HistogramFamily(
          "grpc_server_handling_seconds",
          "How long RPCs took until the server sent their status, by service, method and type.")),
      legacy_requests_(legacy_names ? &m.CounterFamily("gnomon_rpc_requests_total",
                                                       "Deprecated: grpc_server_handled_total.")
                                    : nullptr),
      legacy_durations_(legacy_names
                            ? &m.HistogramFamily("gnomon_rpc_request_duration_seconds",
                                                 "Deprecated: grpc_server_handling_seconds.")
                            : nullptr) {
  for (size_t i = 0; i < auth_failures_.size(); ++i) {
    auth_failures_[i] =
        &m.Counter("gnomon_auth_failures_total",
                   "Calls refused because their credentials did not authenticate, by reason.",
                   {{"reason", kAuthFailureNames[i]}});
  }
}

std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
ServerMetrics::InterceptorFactory() {
  return std::make_unique<CallInterceptorFactory>(this);
}

void ServerMetrics::Started(const char* full_method, const char* type) {
  auto [service, method] = RpcLabels(full_method);
  started_.Add({{"grpc_service", service}, {"grpc_method", method}, {"grpc_type", type}})
      .Increment();
}

void ServerMetrics::Handled(const char* full_method, const char* type, grpc::StatusCode code,
                            absl::Duration took) {
  // Not on the fire path (admin and query calls, stream ends): a labelled
  // lookup per call is cheap enough, and codes are not known up front.
  auto [service, method] = RpcLabels(full_method);
  handled_
      .Add({{"grpc_service", service},
            {"grpc_method", method},
            {"grpc_type", type},
            {"grpc_code", GrpcCodeLabel(code)}})
      .Increment();
  handling_
      .Add({{"grpc_service", service}, {"grpc_method", method}, {"grpc_type", type}},
           metrics::LatencyBuckets())
      .Observe(absl::ToDoubleSeconds(took));
  if (legacy_requests_ != nullptr) {
    legacy_requests_
        ->Add({{"service", service},
               {"method", method},
               {"code", absl::StatusCodeToString(static_cast<absl::StatusCode>(code))}})
        .Increment();
    if (std::string_view(type) == "unary") {
      legacy_durations_->Add({{"service", service}, {"method", method}}, metrics::LatencyBuckets())
          .Observe(absl::ToDoubleSeconds(took));
    }
  }
}

}  // namespace gnomon

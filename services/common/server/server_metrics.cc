#include "services/common/server/server_metrics.h"

#include <iterator>

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

// One call: started when gRPC creates it, recorded when its status is sent.
class CallInterceptor final : public grpc::experimental::Interceptor {
 public:
  CallInterceptor(ServerMetrics* metrics, ServerRpcInfo* info)
      : metrics_(metrics), info_(info), start_(absl::Now()) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_STATUS)) {
      std::optional<absl::Duration> took;
      if (info_->type() == ServerRpcInfo::Type::UNARY) took = absl::Now() - start_;
      metrics_->Handled(info_->method(), methods->GetSendStatus().error_code(), took);
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

ServerMetrics::ServerMetrics(metrics::MetricsRegistry& m)
    : requests_(
          m.CounterFamily("gnomon_rpc_requests_total",
                          "gRPC calls this server answered, by service, method and status code.")),
      durations_(
          m.HistogramFamily("gnomon_rpc_request_duration_seconds",
                            "How long unary gRPC calls took to answer, by service and method.")) {
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

void ServerMetrics::Handled(const char* full_method, grpc::StatusCode code,
                            std::optional<absl::Duration> took) {
  // Not on the fire path (admin and query calls, stream ends): a labelled
  // lookup per call is cheap enough, and codes are not known up front.
  auto [service, method] = RpcLabels(full_method);
  requests_
      .Add({{"service", service},
            {"method", method},
            {"code", absl::StatusCodeToString(static_cast<absl::StatusCode>(code))}})
      .Increment();
  if (took) {
    durations_.Add({{"service", service}, {"method", method}}, metrics::LatencyBuckets())
        .Observe(absl::ToDoubleSeconds(*took));
  }
}

}  // namespace gnomon

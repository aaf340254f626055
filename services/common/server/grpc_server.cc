#include "services/common/server/grpc_server.h"

#include "absl/status/status.h"
#include "absl/time/clock.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "services/common/server/health_monitor.h"
#include "services/common/status/status_macros.h"

namespace gnomon {

GrpcServer::~GrpcServer() {
  if (server_ != nullptr) Shutdown(absl::ZeroDuration());
}

absl::StatusOr<int> GrpcServer::Start(const std::string& address, const tls::TlsOptions& tls) {
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ServerCredentials> credentials,
                   tls::ServerCredentials(tls));
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, credentials, &port);
  // Ping idle clients so broken executor sessions are detected in seconds,
  // and allow clients' keepalive pings at that rate.
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, 10'000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5'000);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1'000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  builder.SetMaxReceiveMessageSize(16 * 1024 * 1024);
  for (grpc::Service* s : services_) builder.RegisterService(s);
  if (metrics_ != nullptr) {
    std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
        interceptors;
    interceptors.push_back(metrics_->InterceptorFactory());
    builder.experimental().SetInterceptorCreators(std::move(interceptors));
  }
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port == 0) {
    server_.reset();
    return absl::UnavailableError("cannot listen on " + address);
  }
  if (auto* health = server_->GetHealthCheckService()) {
    health->SetServingStatus(true);
    for (const std::string& name : names_) health->SetServingStatus(name, true);
    health->SetServingStatus(kLivenessService, true);
  }
  return port;
}

void GrpcServer::Shutdown(absl::Duration grace) {
  if (server_ == nullptr) return;
  if (auto* health = server_->GetHealthCheckService()) health->SetServingStatus(false);
  server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  server_->Wait();
  server_.reset();
}

grpc::ChannelArguments DefaultChannelArguments() {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10'000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5'000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 200);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2'000);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 200);
  return args;
}

absl::StatusOr<tls::Dialer> DefaultDialer(const tls::TlsOptions& tls) {
  return tls::MakeDialer(tls, DefaultChannelArguments());
}

}  // namespace gnomon

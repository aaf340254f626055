// Shared gRPC server bootstrap: health service, reflection, keepalive, and a
// listening address that may use port 0.
//
//   GrpcServer server;  // or GrpcServer server(&server_metrics): every call counted
//   server.AddService(&my_service, v1::JobAdmin::service_full_name());
//   absl::StatusOr<int> port = server.Start("127.0.0.1:0");
//   ...
//   server.Shutdown(absl::Seconds(5));
//
// Thread safety: AddService/Start/Shutdown from one thread; the server itself
// serves calls on gRPC's threads.
#ifndef GNOMON_SERVICES_COMMON_SERVER_GRPC_SERVER_H_
#define GNOMON_SERVICES_COMMON_SERVER_GRPC_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "services/common/server/server_metrics.h"
#include "services/common/tls/tls_credentials.h"

namespace gnomon {

class GrpcServer {
 public:
  // `metrics` (may be null) records every call the server answers.
  explicit GrpcServer(ServerMetrics* metrics = nullptr) : metrics_(metrics) {}
  GrpcServer(const GrpcServer&) = delete;
  GrpcServer& operator=(const GrpcServer&) = delete;
  ~GrpcServer();

  // `name` is the full service name health checks use ("gnomon.v1.JobAdmin").
  void AddService(grpc::Service* service, std::string name) {
    services_.push_back(service);
    names_.push_back(std::move(name));
  }
  // Binds and starts; returns the bound port. Marks every service SERVING in
  // grpc.health.v1.Health (the empty name and "liveness" too) until a
  // HealthMonitor says otherwise. Plaintext unless `tls` is enabled; fails
  // (naming the file) on TLS files that are missing or do not match.
  absl::StatusOr<int> Start(const std::string& address, const tls::TlsOptions& tls = {});
  // Marks NOT_SERVING, then stops, cancelling calls still open after `grace`.
  void Shutdown(absl::Duration grace);
  grpc::Server* server() { return server_.get(); }

 private:
  ServerMetrics* const metrics_;
  std::vector<grpc::Service*> services_;
  std::vector<std::string> names_;
  std::unique_ptr<grpc::Server> server_;
};

// Client channel arguments shared by gnomon's clients: keepalive so a dead peer
// is noticed in seconds, and reconnect backoff bounded to a few seconds.
grpc::ChannelArguments DefaultChannelArguments();
// Channels with those arguments and TLS per `tls` (plaintext when it is not
// enabled, which cannot fail).
absl::StatusOr<tls::Dialer> DefaultDialer(const tls::TlsOptions& tls = {});

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_GRPC_SERVER_H_

// MetricsServer: serves a MetricsRegistry as /metrics over HTTP, on its own
// listener beside gRPC, through gnomon's own HttpServer whether TLS is on
// or off (so the families are the same either way), gzip-compressed when
// the scraper accepts it (Prometheus does).
//
//   auto metrics = std::make_shared<MetricsRegistry>();
//   absl::StatusOr<std::unique_ptr<MetricsServer>> server =
//       MetricsServer::Start("127.0.0.1:0", metrics);
//   if (!server.ok()) return server.status();
//   (*server)->address();  // "127.0.0.1:45123": curl http://127.0.0.1:45123/metrics
//
// With `tls.enabled` it serves HTTPS only (not prometheus::Exposer:
// civetweb's TLS crashes in its workers on Debian 12's civetweb 1.15):
// client certificates required with `tls.require_client_cert`, renewed
// files picked up.
//
// Thread safety: thread-safe; scrapes are served on the servers' threads.
#ifndef GNOMON_SERVICES_COMMON_METRICS_METRICS_SERVER_H_
#define GNOMON_SERVICES_COMMON_METRICS_METRICS_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "services/common/http/http_server.h"
#include "services/common/metrics/metrics_registry.h"
#include "services/common/tls/tls_credentials.h"

namespace gnomon::metrics {

class MetricsServer {
 public:
  // Listens on `address` (host:port; port 0 picks a free one). Unavailable
  // if it cannot bind.
  static absl::StatusOr<std::unique_ptr<MetricsServer>> Start(
      const std::string& address, std::shared_ptr<MetricsRegistry> registry,
      const tls::TlsOptions& tls = {});
  ~MetricsServer();

  // host:port it listens on, with the bound port.
  const std::string& address() const { return address_; }

 private:
  MetricsServer() = default;

  std::unique_ptr<http::HttpServer> http_;  // Its handler holds the registry.
  std::string address_;
};

}  // namespace gnomon::metrics

#endif  // GNOMON_SERVICES_COMMON_METRICS_METRICS_SERVER_H_

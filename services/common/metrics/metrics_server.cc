#include "services/common/metrics/metrics_server.h"

#include <exception>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "prometheus/exposer.h"
#include "prometheus/text_serializer.h"
#include "services/common/status/status_macros.h"

namespace gnomon::metrics {

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const std::string& address, std::shared_ptr<MetricsRegistry> registry,
    const tls::TlsOptions& tls) {
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  if (tls.enabled) {
    auto serve = [registry](const http::HttpRequest& req, http::HttpResponse& resp) {
      if (req.method != "GET" || req.path != "/metrics") {
        resp.Send(404, "text/plain; charset=utf-8", "only /metrics is served here\n");
        return;
      }
      resp.Send(200, "text/plain; version=0.0.4; charset=utf-8",
                prometheus::TextSerializer().Serialize(registry->Collect()));
    };
    // Scrapes are rare and small: few connections, each given little time.
    http::HttpLimits limits;
    limits.max_connections = 16;
    limits.max_body_bytes = 0;
    limits.idle_timeout = absl::Seconds(5);
    ASSIGN_OR_RETURN(std::unique_ptr<http::HttpServer> https,
                     http::HttpServer::Start(address, std::move(serve), tls, "metrics", limits));
    server->https_ = std::move(https);  // Its handler holds the registry.
    server->address_ =
        absl::StrCat(address.substr(0, address.rfind(':')), ":", server->https_->port());
    return server;
  }
  try {
    // Exposer (civetweb) throws when it cannot bind; nothing else here does.
    server->exposer_ = std::make_unique<prometheus::Exposer>(address);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve metrics on ", address, ": ", e.what()));
  }
  const std::vector<int> ports = server->exposer_->GetListeningPorts();
  if (ports.empty())
    return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", address));
  server->registry_ = std::move(registry);
  server->exposer_->RegisterCollectable(server->registry_);
  server->address_ = absl::StrCat(address.substr(0, address.rfind(':')), ":", ports.front());
  return server;
}

MetricsServer::~MetricsServer() = default;

}  // namespace gnomon::metrics

#include "services/common/metrics/metrics_server.h"

#include <zlib.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "prometheus/text_serializer.h"
#include "services/common/status/status_macros.h"

namespace gnomon::metrics {

namespace {

// `text` gzip-compressed (RFC 1952), nullopt if zlib fails.
std::optional<std::string> Gzip(const std::string& text) {
  z_stream z{};
  // 15 + 16: a gzip wrapper rather than zlib's; level 1: scrapes are frequent.
  if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return std::nullopt;
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int r = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (r != Z_STREAM_END) return std::nullopt;
  return out;
}

// Whether an Accept-Encoding header value accepts gzip (not "gzip;q=0").
bool AcceptsGzip(const std::string& accept_encoding) {
  for (absl::string_view coding : absl::StrSplit(accept_encoding, ',')) {
    std::vector<absl::string_view> parts = absl::StrSplit(coding, ';');
    if (absl::StripAsciiWhitespace(parts[0]) != "gzip") continue;
    return parts.size() < 2 || absl::StripAsciiWhitespace(parts[1]) != "q=0";
  }
  return false;
}

}  // namespace

absl::StatusOr<std::unique_ptr<MetricsServer>> MetricsServer::Start(
    const std::string& address, std::shared_ptr<MetricsRegistry> registry,
    const tls::TlsOptions& tls) {
  std::unique_ptr<MetricsServer> server(new MetricsServer());
  // One server for HTTP and HTTPS (gnomon's own; civetweb's TLS crashes),
  // so both serve the same families and both compress.
  auto serve = [registry](const http::HttpRequest& req, http::HttpResponse& resp) {
    if (req.method != "GET" || req.path != "/metrics") {
      resp.Send(404, "text/plain; charset=utf-8", "only /metrics is served here\n");
      return;
    }
    constexpr std::string_view kType = "text/plain; version=0.0.4; charset=utf-8";
    const std::string text = prometheus::TextSerializer().Serialize(registry->Collect());
    if (AcceptsGzip(req.Header("accept-encoding"))) {
      if (std::optional<std::string> gz = Gzip(text)) {
        resp.Send(200, kType, *gz, {{"Content-Encoding", "gzip"}, {"Vary", "Accept-Encoding"}});
        return;
      }
    }
    resp.Send(200, kType, text, {{"Vary", "Accept-Encoding"}});
  };
  // Scrapes are rare and small: few connections, each given little time.
  http::HttpLimits limits;
  limits.max_connections = 16;
  limits.max_body_bytes = 0;
  limits.idle_timeout = absl::Seconds(5);
  ASSIGN_OR_RETURN(std::unique_ptr<http::HttpServer> http,
                   http::HttpServer::Start(address, std::move(serve), tls, "metrics", limits));
  server->http_ = std::move(http);  // Its handler holds the registry.
  server->address_ =
      absl::StrCat(address.substr(0, address.rfind(':')), ":", server->http_->port());
  return server;
}

MetricsServer::~MetricsServer() = default;

}  // namespace gnomon::metrics

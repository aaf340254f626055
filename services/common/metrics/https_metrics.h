// HttpsMetrics: /metrics over HTTPS, served with OpenSSL on a thread of its
// own — MetricsServer's listener when TLS is on. (civetweb's TLS, under
// prometheus::Exposer, crashes in its workers on Debian 12's civetweb 1.15.)
//
//   absl::StatusOr<std::unique_ptr<HttpsMetrics>> s = HttpsMetrics::Start("0.0.0.0:9090", registry, tls);
//   (*s)->port();   // curl --cacert ca.crt https://HOST:PORT/metrics
//
// The certificate, key and CA files are re-read when a connection arrives
// and `tls.reload_interval` has passed since the last look; changed and
// valid files serve that and later connections (a half-written pair waits
// for the next look). Connections are answered one at a time, each given
// at most 5 s: scrapes are rare and small, and a stuck client cannot hold
// the listener longer than that.
//
// Thread safety: Start/the destructor from one thread; serving is internal.
#ifndef GNOMON_SERVICES_COMMON_METRICS_HTTPS_METRICS_H_
#define GNOMON_SERVICES_COMMON_METRICS_HTTPS_METRICS_H_

#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "prometheus/collectable.h"
#include "services/common/tls/server_context.h"
#include "services/common/tls/tls_credentials.h"

namespace gnomon::metrics {

class HttpsMetrics {
 public:
  static absl::StatusOr<std::unique_ptr<HttpsMetrics>> Start(const std::string& address,
                                                             std::shared_ptr<prometheus::Collectable> registry,
                                                             const tls::TlsOptions& tls);
  ~HttpsMetrics();
  HttpsMetrics(const HttpsMetrics&) = delete;
  HttpsMetrics& operator=(const HttpsMetrics&) = delete;

  int port() const { return port_; }

 private:
  HttpsMetrics() = default;
  // Serves until the destructor wakes it (owner: the serving thread).
  void Serve();
  void Answer(int fd);

  std::shared_ptr<prometheus::Collectable> registry_;
  std::unique_ptr<tls::ServerTlsContext> tls_;
  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: written by the destructor.
  int port_ = 0;
  std::thread thread_;
};

}  // namespace gnomon::metrics

#endif  // GNOMON_SERVICES_COMMON_METRICS_HTTPS_METRICS_H_

// ServerTlsContext: an OpenSSL server context from TlsOptions' PEM files,
// re-read when they change — for the listeners gnomon serves with OpenSSL
// itself (HTTPS /metrics, the HTTP/JSON API) rather than through gRPC.
//
//   absl::StatusOr<std::unique_ptr<ServerTlsContext>> tls =
//       ServerTlsContext::Create(options, "http");
//   std::shared_ptr<SSL_CTX> ctx = (*tls)->Current();  // per connection
//
// Current() looks at the files when `reload_interval` has passed since the
// last look; changed and valid files serve that and later connections (a
// half-written pair waits for the next look). TLS 1.2 at least; with
// require_client_cert, clients must present a certificate ca_file signed.
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_COMMON_TLS_SERVER_CONTEXT_H_
#define GNOMON_SERVICES_COMMON_TLS_SERVER_CONTEXT_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/tls/tls_credentials.h"

struct ssl_ctx_st;

namespace gnomon::tls {

class ServerTlsContext {
 public:
  // `what` names the listener in log lines ("metrics", "http").
  static absl::StatusOr<std::unique_ptr<ServerTlsContext>> Create(const TlsOptions& options,
                                                                  std::string what);

  // The context to accept the next connection with.
  std::shared_ptr<ssl_ctx_st> Current() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  ServerTlsContext(TlsOptions options, std::string what)
      : options_(std::move(options)), what_(std::move(what)) {}

  const TlsOptions options_;
  const std::string what_;
  absl::Mutex mu_;
  std::shared_ptr<ssl_ctx_st> ctx_ ABSL_GUARDED_BY(mu_);
  std::string served_files_ ABSL_GUARDED_BY(mu_);
  absl::Time last_look_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace gnomon::tls

#endif  // GNOMON_SERVICES_COMMON_TLS_SERVER_CONTEXT_H_

// gnomond's TLS flags (--tls-cert, --tls-key, --tls-ca, ...) turned into the
// options of its listener and of the channels it makes: to a registry
// elsewhere (Membership's watch) and to executors (dispatch, beats).
//
//   absl::StatusOr<gnomon::GnomondTls> tls = gnomon::TlsFromFlags();
//   server.Start(listen, tls->server);
//   options.executor_dial = tls->executor_dial;
//
// Thread safety: call from main after flags are parsed.
#ifndef GNOMON_SERVICES_GNOMOND_TLS_FLAGS_H_
#define GNOMON_SERVICES_GNOMOND_TLS_FLAGS_H_

#include "absl/status/statusor.h"
#include "services/common/tls/tls_credentials.h"

namespace gnomon {

struct GnomondTls {
  tls::TlsOptions server;
  tls::TlsOptions
      metrics;           // The same files; client certificates per --metrics-require-client-cert.
  tls::TlsOptions http;  // The same files; client certificates per --http-require-client-cert.
  tls::Dialer registry_dial;
  tls::Dialer executor_dial;
};

// Fails (naming the flag or file) on an incomplete or unreadable set.
absl::StatusOr<GnomondTls> TlsFromFlags();

}  // namespace gnomon

#endif  // GNOMON_SERVICES_GNOMOND_TLS_FLAGS_H_

// gnomond's TLS flags (--tls-cert, --tls-key, --tls-ca, ...) turned into the
// options of its listener and of the one channel it makes: to a registry
// elsewhere (Membership's watch). gnomond dials no executor: executors
// connect to it.
//
//   absl::StatusOr<gnomon::GnomondTls> tls = gnomon::TlsFromFlags();
//   server.Start(listen, tls->server);
//   options.registry_dial = tls->registry_dial;
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
};

// Fails (naming the flag or file) on an incomplete or unreadable set.
absl::StatusOr<GnomondTls> TlsFromFlags();

}  // namespace gnomon

#endif  // GNOMON_SERVICES_GNOMOND_TLS_FLAGS_H_

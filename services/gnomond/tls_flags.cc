#include "services/gnomond/tls_flags.h"

#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "services/common/server/grpc_server.h"
#include "services/common/status/status_macros.h"

ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate chain: gnomond serves gRPC over TLS only (plaintext is refused), which "
          "is how executors know they reach gnomond, and presents it to registries that require "
          "client certificates. Empty: plaintext everywhere.");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls-cert.");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM roots that verify the registry gnomond dials and, with "
          "--tls-require-client-cert, its clients (executors included; empty: the system's "
          "roots).");
ABSL_FLAG(bool, tls_require_client_cert, false,
          "Mutual TLS: refuse clients without a certificate signed by --tls-ca.");
ABSL_FLAG(std::string, tls_server_name, "",
          "Name the certificate of --registry-endpoint must carry (empty: the host dialled).");
ABSL_FLAG(
    bool, http_require_client_cert, false,
    "With --tls-cert, the HTTP API (--http-listen) is served over HTTPS; this also refuses clients "
    "without a certificate signed by --tls-ca (browsers then need one installed).");
ABSL_FLAG(bool, metrics_require_client_cert, false,
          "With --tls-cert, /metrics is served over HTTPS; this also refuses scrapers without a "
          "certificate signed by --tls-ca.");
ABSL_FLAG(absl::Duration, tls_reload_interval, absl::Seconds(60),
          "How often the TLS files are re-read (rotated certificates need no restart).");

namespace gnomon {

absl::StatusOr<GnomondTls> TlsFromFlags() {
  tls::TlsOptions base;
  base.cert_file = absl::GetFlag(FLAGS_tls_cert);
  base.key_file = absl::GetFlag(FLAGS_tls_key);
  base.ca_file = absl::GetFlag(FLAGS_tls_ca);
  base.enabled = !base.cert_file.empty();
  base.reload_interval = absl::GetFlag(FLAGS_tls_reload_interval);
  if (!base.enabled && (!base.key_file.empty() || !base.ca_file.empty())) {
    return absl::InvalidArgumentError("--tls-key and --tls-ca need --tls-cert");
  }
  if (base.enabled && base.key_file.empty())
    return absl::InvalidArgumentError("--tls-cert needs --tls-key");
  GnomondTls out;
  out.server = base;
  out.server.require_client_cert = absl::GetFlag(FLAGS_tls_require_client_cert);
  if (out.server.require_client_cert && base.ca_file.empty()) {
    return absl::InvalidArgumentError("--tls-require-client-cert needs --tls-ca");
  }
  out.metrics = base;
  out.metrics.require_client_cert = absl::GetFlag(FLAGS_metrics_require_client_cert);
  if (out.metrics.require_client_cert && (!base.enabled || base.ca_file.empty())) {
    return absl::InvalidArgumentError(
        "--metrics-require-client-cert needs --tls-cert and --tls-ca");
  }
  out.http = base;
  out.http.require_client_cert = absl::GetFlag(FLAGS_http_require_client_cert);
  if (out.http.require_client_cert && (!base.enabled || base.ca_file.empty())) {
    return absl::InvalidArgumentError("--http-require-client-cert needs --tls-cert and --tls-ca");
  }
  tls::TlsOptions registry = base;
  registry.server_name = absl::GetFlag(FLAGS_tls_server_name);
  ASSIGN_OR_RETURN(tls::Dialer registry_dial, DefaultDialer(registry));
  out.registry_dial = std::move(registry_dial);
  return out;
}

}  // namespace gnomon

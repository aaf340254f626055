// TLS for gnomon's gRPC listeners and clients, from PEM files that are
// watched and reloaded when they change (cert-manager and kubelet replace
// Secret files in place; nothing restarts). One set of options describes
// either side:
//
//   tls::TlsOptions o{.cert_file = "tls.crt", .key_file = "tls.key", .ca_file = "ca.crt",
//                     .require_client_cert = true};
//   absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> server = tls::ServerCredentials(o);
//   absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> client = tls::ChannelCredentials(o);
//   absl::StatusOr<tls::Dialer> dial = tls::MakeDialer(o, grpc::ChannelArguments());
//   auto stub = v1::Registry::NewStub((*dial)("gnomon:7070"));
//
// Without `enabled` both return plaintext (insecure) credentials. The files
// are read once up front so that a missing file, a file that is not PEM or
// a key that does not match its certificate is an error at start, naming
// the file; afterwards gRPC re-reads them every `reload_interval`.
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_COMMON_TLS_TLS_CREDENTIALS_H_
#define GNOMON_SERVICES_COMMON_TLS_TLS_CREDENTIALS_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::tls {

struct TlsOptions {
  bool enabled = false;
  // This side's certificate chain and private key: required to serve; a
  // client presents them to servers that require client certificates.
  std::string cert_file;
  std::string key_file;
  // Roots that verify the peer: the server's certificate (client; empty:
  // the system's roots) or clients' certificates (server, with
  // require_client_cert).
  std::string ca_file;
  // Server: refuse clients without a certificate signed by ca_file (mTLS).
  bool require_client_cert = false;
  // Client: the name the server's certificate must carry; empty: the host
  // dialled. "*" verifies the chain only, not the name (executors register
  // by pod IP, which their certificates do not name).
  std::string server_name;
  absl::Duration reload_interval = absl::Seconds(60);
};

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(
    const TlsOptions& options);
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(
    const TlsOptions& options);
// Makes a channel to a target ("host:port").
using Dialer = std::function<std::shared_ptr<grpc::Channel>(const std::string& target)>;
// Channels with `options`' credentials and `args` (plus the server name to
// verify). Fails as ChannelCredentials does.
absl::StatusOr<Dialer> MakeDialer(const TlsOptions& options, grpc::ChannelArguments args);

}  // namespace gnomon::tls

#endif  // GNOMON_SERVICES_COMMON_TLS_TLS_CREDENTIALS_H_

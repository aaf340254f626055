#include "services/common/tls/tls_credentials.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_certificate_verifier.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "services/common/status/status_macros.h"
#include "services/common/tls/pem_check.h"

namespace gnomon::tls {
namespace {

using grpc::experimental::CertificateProviderInterface;
using grpc::experimental::FileWatcherCertificateProvider;

unsigned int RefreshSeconds(const TlsOptions& o) {
  return static_cast<unsigned int>(std::max<int64_t>(1, absl::ToInt64Seconds(o.reload_interval)));
}

// Watches the files given: identity (cert and key) and/or roots.
std::shared_ptr<CertificateProviderInterface> Provider(const TlsOptions& o) {
  if (!o.cert_file.empty()) {
    return std::make_shared<FileWatcherCertificateProvider>(o.key_file, o.cert_file, o.ca_file,
                                                            RefreshSeconds(o));
  }
  if (!o.ca_file.empty())
    return std::make_shared<FileWatcherCertificateProvider>(o.ca_file, RefreshSeconds(o));
  return nullptr;
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(const TlsOptions& o) {
  if (!o.enabled) return grpc::InsecureServerCredentials();
  if (o.cert_file.empty() || o.key_file.empty()) {
    return absl::InvalidArgumentError("tls: serving TLS needs a certificate file and a key file");
  }
  if (o.require_client_cert && o.ca_file.empty()) {
    return absl::InvalidArgumentError(
        "tls: requiring client certificates needs a CA file to verify them");
  }
  RETURN_IF_ERROR(CheckFiles(o.cert_file, o.key_file, o.ca_file));
  grpc::experimental::TlsServerCredentialsOptions options(Provider(o));
  options.watch_identity_key_cert_pairs();
  if (o.require_client_cert) {
    options.watch_root_certs();
    options.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  } else {
    options.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  }
  return grpc::experimental::TlsServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ChannelCredentials(const TlsOptions& o) {
  if (!o.enabled) return grpc::InsecureChannelCredentials();
  if (o.cert_file.empty() != o.key_file.empty()) {
    return absl::InvalidArgumentError(
        "tls: a client certificate needs both its certificate file and key file");
  }
  RETURN_IF_ERROR(CheckFiles(o.cert_file, o.key_file, o.ca_file));
  grpc::experimental::TlsChannelCredentialsOptions options;
  if (auto provider = Provider(o); provider != nullptr) {
    options.set_certificate_provider(provider);
    if (!o.cert_file.empty()) options.watch_identity_key_cert_pairs();
    if (!o.ca_file.empty()) options.watch_root_certs();
  }
  options.set_verify_server_certs(true);
  if (o.server_name == "*") {
    // The chain is still verified against the roots; only the name is not.
    options.set_certificate_verifier(
        std::make_shared<grpc::experimental::NoOpCertificateVerifier>());
    options.set_check_call_host(false);
  }
  return grpc::experimental::TlsCredentials(options);
}

absl::StatusOr<Dialer> MakeDialer(const TlsOptions& o, grpc::ChannelArguments args) {
  ASSIGN_OR_RETURN(std::shared_ptr<grpc::ChannelCredentials> creds, ChannelCredentials(o));
  if (o.enabled && !o.server_name.empty() && o.server_name != "*")
    args.SetSslTargetNameOverride(o.server_name);
  return Dialer([creds = std::move(creds), args = std::move(args)](const std::string& target) {
    return grpc::CreateCustomChannel(target, creds, args);
  });
}

}  // namespace gnomon::tls

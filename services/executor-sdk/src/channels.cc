#include "services/executor-sdk/src/channels.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "services/common/client/auth_metadata.h"

namespace gnomon::executor::internal {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path) {
  if (path.empty()) return std::string();
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read TLS file ", path));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

const char* CodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK: return "OK";
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::UNKNOWN: return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED: return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE: return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS: return "DATA_LOSS";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "UNKNOWN_CODE";
  }
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ClientCredentials(
    const TlsOptions& tls) {
  if (!tls.enabled()) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  absl::StatusOr<std::string> ca = ReadPem(tls.ca_file);
  if (!ca.ok()) return ca.status();
  absl::StatusOr<std::string> cert = ReadPem(tls.cert_file);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem(tls.key_file);
  if (!key.ok()) return key.status();
  ssl.pem_root_certs = *ca;
  ssl.pem_cert_chain = *cert;
  ssl.pem_private_key = *key;
  return grpc::SslCredentials(ssl);
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(
    const TlsOptions& tls) {
  if (tls.cert_file.empty()) return grpc::InsecureServerCredentials();
  absl::StatusOr<std::string> cert = ReadPem(tls.cert_file);
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem(tls.key_file);
  if (!key.ok()) return key.status();
  absl::StatusOr<std::string> ca = ReadPem(tls.ca_file);
  if (!ca.ok()) return ca.status();
  grpc::SslServerCredentialsOptions ssl(
      ca->empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                  : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  ssl.pem_root_certs = *ca;
  ssl.pem_key_cert_pairs.push_back({*key, *cert});
  return grpc::SslServerCredentials(ssl);
}

std::shared_ptr<grpc::Channel> MakeChannel(const std::string& endpoint,
                                           const std::shared_ptr<grpc::ChannelCredentials>& creds) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  return grpc::CreateCustomChannel(endpoint, creds, args);
}

bool TokenMatches(const grpc::ServerContext& context, const std::string& token) {
  const auto& md = context.client_metadata();
  auto it = md.find(grpc::string_ref(kAccessTokenKey.data(), kAccessTokenKey.size()));
  if (it == md.end() || token.empty()) return false;
  const grpc::string_ref& got = it->second;
  // Constant time in the token's length: every byte is compared.
  unsigned char diff = got.size() == token.size() ? 0 : 1;
  for (size_t i = 0; i < token.size(); ++i) {
    unsigned char g = i < got.size() ? static_cast<unsigned char>(got.data()[i]) : 0;
    diff |= static_cast<unsigned char>(g ^ static_cast<unsigned char>(token[i]));
  }
  return diff == 0;
}

std::string StatusText(const grpc::Status& status) {
  return absl::StrCat(CodeName(status.error_code()), ": ", status.error_message());
}

}  // namespace gnomon::executor::internal

#include "services/common/tls/server_context.h"

#include <openssl/ssl.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "services/common/client/log.h"
#include "services/common/status/status_macros.h"
#include "services/common/tls/pem_check.h"

namespace gnomon::tls {
namespace {

// The files' contents as one string (to notice a change).
absl::StatusOr<std::string> Contents(const TlsOptions& tls) {
  std::string all;
  for (const std::string* f : {&tls.cert_file, &tls.key_file, &tls.ca_file}) {
    if (f->empty()) continue;
    ASSIGN_OR_RETURN(std::string c, ReadFile(*f));
    absl::StrAppend(&all, c.size(), ":", c);
  }
  return all;
}

absl::StatusOr<std::shared_ptr<SSL_CTX>> NewContext(const TlsOptions& tls) {
  RETURN_IF_ERROR(CheckFiles(tls.cert_file, tls.key_file, tls.ca_file));
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (ctx == nullptr) return absl::InternalError("tls: cannot create an OpenSSL context");
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), tls.cert_file.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx.get(), tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("tls: cannot use ", tls.cert_file, " with ", tls.key_file));
  }
  if (tls.require_client_cert) {
    if (SSL_CTX_load_verify_locations(ctx.get(), tls.ca_file.c_str(), nullptr) != 1) {
      return absl::InvalidArgumentError(absl::StrCat("tls: cannot load ", tls.ca_file));
    }
    SSL_CTX_set_client_CA_list(ctx.get(), SSL_load_client_CA_file(tls.ca_file.c_str()));
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  return ctx;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ServerTlsContext>> ServerTlsContext::Create(
    const TlsOptions& options, std::string what) {
  ASSIGN_OR_RETURN(std::string files, Contents(options));
  ASSIGN_OR_RETURN(std::shared_ptr<SSL_CTX> ctx, NewContext(options));
  std::unique_ptr<ServerTlsContext> c(new ServerTlsContext(options, std::move(what)));
  absl::MutexLock l(&c->mu_);
  c->ctx_ = std::move(ctx);
  c->served_files_ = std::move(files);
  c->last_look_ = absl::Now();
  return c;
}

std::shared_ptr<SSL_CTX> ServerTlsContext::Current() {
  absl::MutexLock l(&mu_);
  const absl::Time now = absl::Now();
  if (now - last_look_ < options_.reload_interval) return ctx_;
  last_look_ = now;
  absl::StatusOr<std::string> files = Contents(options_);
  if (!files.ok() || *files == served_files_) return ctx_;
  absl::StatusOr<std::shared_ptr<SSL_CTX>> ctx = NewContext(options_);
  if (!ctx.ok()) {
    GNOMON_LOG(WARNING) << what_ << ": the changed TLS files are not usable yet: " << ctx.status();
    return ctx_;
  }
  ctx_ = *std::move(ctx);
  served_files_ = *std::move(files);
  GNOMON_LOG(INFO) << what_ << ": serving the renewed certificate";
  return ctx_;
}

}  // namespace gnomon::tls

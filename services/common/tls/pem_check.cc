#include "services/common/tls/pem_check.h"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"

namespace gnomon::tls {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

std::unique_ptr<BIO, BioFree> Bio(const std::string& pem) {
  return std::unique_ptr<BIO, BioFree>(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

absl::StatusOr<std::unique_ptr<X509, X509Free>> FirstCertificate(const std::string& path) {
  ASSIGN_OR_RETURN(std::string pem, ReadFile(path));
  auto bio = Bio(pem);
  std::unique_ptr<X509, X509Free> cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (cert == nullptr)
    return absl::InvalidArgumentError(absl::StrCat("tls: no PEM certificate in ", path));
  return cert;
}

}  // namespace

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("tls: cannot read ", path));
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

absl::Status CheckFiles(const std::string& cert_file, const std::string& key_file,
                        const std::string& ca_file) {
  if (!ca_file.empty()) {
    RETURN_IF_ERROR(FirstCertificate(ca_file));
  }
  if (cert_file.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(auto cert, FirstCertificate(cert_file));
  ASSIGN_OR_RETURN(std::string pem, ReadFile(key_file));
  auto bio = Bio(pem);
  std::unique_ptr<EVP_PKEY, KeyFree> key(
      PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (key == nullptr)
    return absl::InvalidArgumentError(absl::StrCat("tls: no PEM private key in ", key_file));
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tls: the key in ", key_file, " does not match the certificate in ", cert_file));
  }
  return absl::OkStatus();
}

}  // namespace gnomon::tls

// Up-front checks of TLS files, so that a bad path or file fails at start
// with its name instead of every handshake failing later.
//
//   absl::Status s = tls::CheckFiles("tls.crt", "tls.key", "ca.crt");  // "" skips a file
//
// Thread safety: pure function.
#ifndef GNOMON_SERVICES_COMMON_TLS_PEM_CHECK_H_
#define GNOMON_SERVICES_COMMON_TLS_PEM_CHECK_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace gnomon::tls {

// The certificate file holds at least one PEM certificate, the key file a
// PEM private key matching its first certificate, the CA file at least one
// certificate. InvalidArgument (or NotFound for a file that cannot be read)
// naming the file.
// The file's contents; NotFound naming it if it cannot be read.
absl::StatusOr<std::string> ReadFile(const std::string& path);

absl::Status CheckFiles(const std::string& cert_file, const std::string& key_file,
                        const std::string& ca_file);

}  // namespace gnomon::tls

#endif  // GNOMON_SERVICES_COMMON_TLS_PEM_CHECK_H_

// The first admin token of an empty store, kept out of logs when a file is
// given (--admin-token-file):
//  * the file holds a token (an operator's Secret, mounted): that token is
//    the first admin token; nothing is printed;
//  * the file does not exist: a new token is written to it (mode 0600)
//    before its digest is stored, and only the file's path is printed;
//  * no file: a new token is printed once (a developer's machine).
//
//   if (absl::Status s = BootstrapAdminToken(auth, file, std::cout); !s.ok()) ...
//
// Thread safety: call once from main.
#ifndef GNOMON_SERVICES_GNOMOND_BOOTSTRAP_TOKEN_H_
#define GNOMON_SERVICES_GNOMOND_BOOTSTRAP_TOKEN_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "services/common/server/authenticator.h"

namespace gnomon {

absl::Status BootstrapAdminToken(Authenticator& auth, const std::string& file, std::ostream& out);

}  // namespace gnomon

#endif  // GNOMON_SERVICES_GNOMOND_BOOTSTRAP_TOKEN_H_

#include "services/gnomond/bootstrap_token.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "services/common/server/tokens.h"
#include "services/common/status/status_macros.h"

namespace gnomon {
namespace {

constexpr size_t kMinTokenBytes = 32;

// The token in `file`, nullopt if there is no such file; an error if it is
// too short or not printable.
absl::StatusOr<std::optional<std::string>> TokenIn(const std::string& file) {
  std::ifstream in(file);
  if (!in) return std::optional<std::string>();
  std::stringstream s;
  s << in.rdbuf();
  // Secrets made from files often end in a newline.
  std::string token(absl::StripAsciiWhitespace(s.str()));
  if (token.size() < kMinTokenBytes ||
      !std::all_of(token.begin(), token.end(), [](char c) { return c > ' ' && c < 127; })) {
    return absl::InvalidArgumentError(absl::StrCat("--admin-token-file: ", file,
                                                   " must hold one token of at least ",
                                                   kMinTokenBytes, " printable characters"));
  }
  return std::optional<std::string>(token);
}

// Writes `token` to `file`, readable by this user only, all or nothing.
absl::Status WriteToken(const std::string& file, const std::string& token) {
  const std::string staged = file + ".new";
  const mode_t old = ::umask(077);
  {
    std::ofstream out(staged, std::ios::trunc);
    out << token << "\n";
    out.close();
    if (!out) {
      ::umask(old);
      return absl::UnavailableError(absl::StrCat("--admin-token-file: cannot write ", staged));
    }
  }
  ::umask(old);
  if (std::rename(staged.c_str(), file.c_str()) != 0) {
    return absl::UnavailableError(absl::StrCat("--admin-token-file: cannot write ", file));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status BootstrapAdminToken(Authenticator& auth, const std::string& file, std::ostream& out) {
  std::optional<std::string> given;
  bool written = false;
  if (!file.empty()) {
    ASSIGN_OR_RETURN(std::optional<std::string> in, TokenIn(file));
    given = std::move(in);
    if (!given) {
      // Written before it is stored: a crash in between leaves a file whose
      // token the next start stores, never a stored token nobody has.
      given = NewToken();
      RETURN_IF_ERROR(WriteToken(file, *given));
      written = true;
    }
  }
  ASSIGN_OR_RETURN(std::optional<std::string> created, auth.BootstrapAdminToken(given));
  if (!created.has_value()) return absl::OkStatus();  // The store has tokens already.
  if (file.empty()) {
    out << "gnomond: created the first admin token (shown only now; keep it): " << *created
        << std::endl;
  } else {
    out << "gnomond: the first admin token is the one " << (written ? "written to " : "read from ")
        << file << " (not shown here)" << std::endl;
  }
  return absl::OkStatus();
}

}  // namespace gnomon

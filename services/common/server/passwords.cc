#include "services/common/server/passwords.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <cstdlib>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "services/common/server/tokens.h"

namespace gnomon {
namespace {

constexpr char kScheme[] = "pbkdf2-sha256";
constexpr int kSaltBytes = 16, kHashBytes = 32;
// Refuse absurd stored costs (a corrupted row must not stall a login thread).
constexpr int kMaxIterations = 10'000'000;

std::string Derive(std::string_view password, std::string_view salt, int iterations) {
  unsigned char out[kHashBytes];
  if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()),
                        reinterpret_cast<const unsigned char*>(salt.data()),
                        static_cast<int>(salt.size()), iterations, EVP_sha256(), kHashBytes,
                        out) != 1) {
    std::abort();  // Only on allocation failure inside OpenSSL.
  }
  return std::string(reinterpret_cast<const char*>(out), kHashBytes);
}

}  // namespace

std::string HashPassword(std::string_view password, int iterations) {
  unsigned char salt[kSaltBytes];
  if (RAND_bytes(salt, sizeof(salt)) != 1) std::abort();  // No CSPRNG, no secrets.
  const std::string s(reinterpret_cast<const char*>(salt), sizeof(salt));
  return absl::StrCat(kScheme, "$", iterations, "$", absl::Base64Escape(s), "$",
                      absl::Base64Escape(Derive(password, s, iterations)));
}

bool VerifyPassword(std::string_view password, std::string_view stored) {
  std::vector<absl::string_view> parts =
      absl::StrSplit(absl::string_view(stored.data(), stored.size()), '$');
  int iterations = 0;
  std::string salt, hash;
  if (parts.size() != 4 || parts[0] != kScheme || !absl::SimpleAtoi(parts[1], &iterations) ||
      iterations < 1 || iterations > kMaxIterations || !absl::Base64Unescape(parts[2], &salt) ||
      !absl::Base64Unescape(parts[3], &hash) || hash.size() != kHashBytes) {
    return false;
  }
  return SecretsEqual(Derive(password, salt, iterations), hash);
}

absl::Status CheckPasswordStrength(std::string_view field, std::string_view password) {
  if (password.size() < 12)
    return absl::InvalidArgumentError(absl::StrCat(std::string(field), ": at least 12 bytes"));
  if (password.size() > 1024) {
    return absl::InvalidArgumentError(absl::StrCat(std::string(field), ": at most 1024 bytes"));
  }
  for (char c : password) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(field), ": must not contain control characters"));
    }
  }
  return absl::OkStatus();
}

}  // namespace gnomon

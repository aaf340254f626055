// Passwords: salted PBKDF2-HMAC-SHA256 hashes, the only form a user's
// password is stored in.
//
//   std::string stored = HashPassword("correct horse battery staple");
//   bool ok = VerifyPassword("correct horse battery staple", stored);  // true
//
// The stored form is "pbkdf2-sha256$<iterations>$<salt>$<hash>" (base64), so
// the cost can be raised later without invalidating existing hashes.
// Hashing takes a deliberate ~0.1–0.5 s of CPU per call (600,000 iterations,
// OWASP's 2023 figure), which is what makes guessing slow; callers limit how
// often a user name may be tried.
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_COMMON_SERVER_PASSWORDS_H_
#define GNOMON_SERVICES_COMMON_SERVER_PASSWORDS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace gnomon {

inline constexpr int kPasswordIterations = 600'000;

// A new salted hash of `password`; `iterations` only for tests.
std::string HashPassword(std::string_view password, int iterations = kPasswordIterations);
// Whether `password` matches `stored` (a HashPassword result), in constant
// time; false for a malformed `stored`.
bool VerifyPassword(std::string_view password, std::string_view stored);
// InvalidArgument naming `field` unless 12 to 1024 bytes with no control
// characters; never echoes the password.
absl::Status CheckPasswordStrength(std::string_view field, std::string_view password);

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_PASSWORDS_H_

// Secret tokens: generation and the SHA-256 digests the store keeps instead.
//
//   std::string token = NewToken();          // 43 url-safe characters, 256 bits
//   std::string digest = Sha256Hex(token);    // what CreateAdminToken stores
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_COMMON_SERVER_TOKENS_H_
#define GNOMON_SERVICES_COMMON_SERVER_TOKENS_H_

#include <string>
#include <string_view>

namespace gnomon {

// A new random token with 256 bits of entropy from the OS CSPRNG.
std::string NewToken();
// Lower-case hex SHA-256 of `data`.
std::string Sha256Hex(std::string_view data);
// Constant-time comparison, for comparing secrets.
bool SecretsEqual(std::string_view a, std::string_view b);
// Names a token without revealing it: a prefix of its SHA-256 (16 hex
// digits), e.g. which of a group's tokens an executor presented.
std::string TokenFingerprint(std::string_view token);

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_TOKENS_H_

// Names of the gRPC metadata entries that carry gnomon credentials.
//
// Executor-facing calls (Registry.Session, Executor.*, LogService.ReportResults)
// carry the group's access token; admin and query calls carry a bearer token.
//
//   context.AddMetadata(std::string(kAccessTokenKey), token);
//   context.AddMetadata(std::string(kAuthorizationKey), BearerValue(admin_token));
//
// Thread safety: constants and pure functions.
#ifndef GNOMON_SERVICES_COMMON_CLIENT_AUTH_METADATA_H_
#define GNOMON_SERVICES_COMMON_CLIENT_AUTH_METADATA_H_

#include <string>
#include <string_view>

namespace gnomon {

inline constexpr std::string_view kAccessTokenKey = "x-gnomon-access-token";
inline constexpr std::string_view kAuthorizationKey = "authorization";
// The app name an executor speaks for on LogService.ReportResults.
inline constexpr std::string_view kAppNameKey = "x-gnomon-app";

// The address of an HTTP/JSON client, set by gnomond's own gateway on its
// in-process calls (trusted only on those: see ClientAddress).
inline constexpr std::string_view kHttpClientKey = "x-gnomon-http-client";

inline std::string BearerValue(std::string_view token) { return "Bearer " + std::string(token); }

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_CLIENT_AUTH_METADATA_H_

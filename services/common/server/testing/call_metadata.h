// Call metadata for Authenticator::Authorize in unit tests, as clients send
// it: an admin caller's bearer token, or an executor's app and access token.
//
//   auth.Authorize(BearerMetadata("ops-token"), v1::JobAdmin::service_full_name(), "GetJob");
//
// Thread safety: the lookups copy what they are given.
#ifndef GNOMON_SERVICES_COMMON_SERVER_TESTING_CALL_METADATA_H_
#define GNOMON_SERVICES_COMMON_SERVER_TESTING_CALL_METADATA_H_

#include <string>
#include <string_view>
#include <utility>

#include "services/common/client/auth_metadata.h"
#include "services/common/server/authenticator.h"

namespace gnomon::testing {

inline Authenticator::MetadataLookup BearerMetadata(std::string token) {
  return [token = std::move(token)](std::string_view key) {
    return key == kAuthorizationKey ? BearerValue(token) : std::string();
  };
}

inline Authenticator::MetadataLookup AppMetadata(std::string app, std::string token) {
  return [app = std::move(app), token = std::move(token)](std::string_view key) {
    return key == kAppNameKey ? app : key == kAccessTokenKey ? token : std::string();
  };
}

}  // namespace gnomon::testing

#endif  // GNOMON_SERVICES_COMMON_SERVER_TESTING_CALL_METADATA_H_

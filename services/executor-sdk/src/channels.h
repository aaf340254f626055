// Channel and credential helpers shared by the registry session, the result
// reporter and the Executor server, plus the access-token check.
//
//   auto creds = ClientCredentials(options.tls);   // insecure without TLS files
//   auto channel = MakeChannel("127.0.0.1:7070", *creds);
//   if (!TokenMatches(context, token)) return UNAUTHENTICATED;
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_CHANNELS_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_CHANNELS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gnomon/executor/options.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::executor::internal {

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ClientCredentials(
    const TlsOptions& tls);
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(
    const TlsOptions& tls);
// A channel that fails fast and notices dead peers (keepalive), since the
// callers run their own reconnect loops.
std::shared_ptr<grpc::Channel> MakeChannel(const std::string& endpoint,
                                           const std::shared_ptr<grpc::ChannelCredentials>& creds);

// Constant-time comparison of the call's x-gnomon-access-token with `token`.
bool TokenMatches(const grpc::ServerContext& context, const std::string& token);

// Human text for a status, e.g. "UNAVAILABLE: failed to connect".
std::string StatusText(const grpc::Status& status);

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_CHANNELS_H_

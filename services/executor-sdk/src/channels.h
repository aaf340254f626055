// Channel and credential helpers shared by the registry session, the result
// reporter and the scheduler connections.
//
//   absl::StatusOr<Dialer> dial = ClientDialer(options.tls);  // plaintext without TLS files
//   std::shared_ptr<grpc::Channel> channel = (*dial)("127.0.0.1:7070");
//   // Dials resolved addresses of "gnomond:7070", verifying the name "gnomond":
//   absl::StatusOr<Dialer> by_ip = ClientDialer(options.tls, "gnomond");
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_CHANNELS_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_CHANNELS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gnomon/executor/options.h"
#include "grpcpp/grpcpp.h"
#include "services/common/tls/tls_credentials.h"

namespace gnomon::executor::internal {

// Makes a channel to an endpoint: one that fails fast and notices dead
// peers (keepalive), since the callers run their own reconnect loops.
using Dialer = tls::Dialer;

// The SDK's public TLS options as common's.
tls::TlsOptions CommonTls(const TlsOptions& tls);
// Fails (naming the file) if a TLS file is missing, not PEM, or a key does
// not match its certificate. With TLS, gnomond's certificate must carry
// tls.server_name if set, else `verify_name` if given (for channels dialled
// to an address resolved from that name), else the host dialled.
absl::StatusOr<Dialer> ClientDialer(const TlsOptions& tls, const std::string& verify_name = "");

// Before a reconnect attempt on `channel`: a channel whose last connection
// failed keeps answering with that failure until gRPC's own backoff ends
// (seconds after the peer is back), so a restarted gnomond would be reached
// late. The SDK's reconnect loops pace attempts themselves: this clears
// gRPC's backoff and waits up to `limit` for the connection (the attempt
// then reports whatever is still wrong).
void ReadyForAttempt(grpc::Channel* channel, absl::Duration limit = absl::Seconds(2));

// Where the scheduler streams go: the scheduler endpoints, or else the
// registry's (one gnomond serves all roles by default).
const std::vector<std::string>& SchedulerEndpoints(const ConnectionOptions& connection);

// Where results and run logs go: the log endpoints, or else the registry's
// (one gnomond serves all roles by default).
const std::vector<std::string>& LogEndpoints(const ConnectionOptions& connection);

// The peer refused the credentials or the request (UNAUTHENTICATED,
// PERMISSION_DENIED, INVALID_ARGUMENT): retrying alone will not help.
bool IsRefusal(const grpc::Status& status);
// The peer refused the credentials (UNAUTHENTICATED, PERMISSION_DENIED): the
// app name or the access token is wrong, not the request.
bool IsCredentialRefusal(const grpc::Status& status);

// Human text for a status, e.g. "UNAVAILABLE: failed to connect".
std::string StatusText(const grpc::Status& status);

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_CHANNELS_H_

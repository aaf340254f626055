// StreamCredentials: keeps checking, while a long-lived call is open, the
// credential that opened it. Authorize runs once, when a call opens; a
// stream can then stay open for hours (a console following a run's log, a
// scheduler watching executors, an executor's session). Without a second
// look, a token revoked meanwhile, a user deleted or demoted, or a group's
// token rotated out would keep what it had. Check asks the Authenticator
// again, as a new call with the same metadata would, and the stream ends
// with the refusal it gets.
//
//   absl::StatusOr<Caller> caller = auth->Authorize(*context, service, __func__);
//   if (!caller.ok()) return ToGrpcStatus(caller.status());
//   StreamCredentials creds(auth, *context, service, __func__, *caller);
//   while (... the stream is open ...) {
//     if (absl::Status s = creds.Check(); !s.ok()) return ToGrpcStatus(s);
//     ...
//   }
//
// How soon a stream ends: API tokens and sessions are remembered by the
// Authenticator for 5 s, and a stream checks every `every` (kBearerRecheck,
// 1 s), so a revoked token's streams end within 6 s of the revocation. A
// group's access token is read from the store on each check, so executors'
// streams check every kGroupRecheck (10 s).
//
// Thread safety: one per stream, used by the thread serving it.
#ifndef GNOMON_SERVICES_COMMON_SERVER_STREAM_CREDENTIALS_H_
#define GNOMON_SERVICES_COMMON_SERVER_STREAM_CREDENTIALS_H_

#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/server_context.h"
#include "services/common/client/clock.h"
#include "services/common/server/authenticator.h"

namespace gnomon {

// How often a stream opened with an API token or a session checks it again.
inline constexpr absl::Duration kBearerRecheck = absl::Seconds(1);
// How often an executor's stream checks its group's access token again.
inline constexpr absl::Duration kGroupRecheck = absl::Seconds(10);

class StreamCredentials {
 public:
  // `opened`: the Caller Authorize gave when the call opened.
  StreamCredentials(Authenticator* auth, Authenticator::MetadataLookup metadata,
                    std::string_view service, std::string_view method, Caller opened,
                    absl::Duration every, Clock* clock = &RealClock());
  // The metadata of a gRPC call (which outlives this).
  StreamCredentials(Authenticator* auth, const grpc::ServerContext& context,
                    std::string_view service, std::string_view method, Caller opened,
                    absl::Duration every, Clock* clock = &RealClock());

  // What the stream reads, checked again when the caller's access changes (a
  // user's grants narrowed while it streams): OK if `access` still reaches it.
  using Reach = std::function<absl::Status(const Access& access)>;

  // OK while the credential is accepted; otherwise the refusal a new call
  // with it would get now — UNAUTHENTICATED (a token revoked or expired, a
  // user deleted, a group's token rotated out), PERMISSION_DENIED (a user
  // demoted below the method, or, through `reach`, no longer granted what the
  // stream reads). Asks the Authenticator at most once per `every`; between,
  // OK. A store that cannot answer is no refusal: OK, asked again next time.
  absl::Status Check(const Reach& reach = nullptr);
  // The caller as the last accepted check saw it (token_expires_ms of a
  // group's previous token, a user's access now).
  const Caller& caller() const { return caller_; }

 private:
  Authenticator* const auth_;
  const Authenticator::MetadataLookup metadata_;
  const std::string service_;
  const std::string method_;
  const absl::Duration every_;
  Clock* const clock_;
  Caller caller_;
  absl::Time next_;
};

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_STREAM_CREDENTIALS_H_

// Field checks of Registry requests: the messages of a Session stream and
// WatchExecutors. Errors are InvalidArgument "<field>: <problem>" with the
// field's path in its message ("register.handlers[2]", "beat.load").
//
//   if (absl::Status s = ValidateRegister(reg); !s.ok()) return ToGrpcStatus(s);
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_REGISTRY_SESSION_VALIDATION_H_
#define GNOMON_SERVICES_REGISTRY_SESSION_VALIDATION_H_

#include "absl/status/status.h"
#include "gnomon/v1/registry.pb.h"

namespace gnomon::registry {

absl::Status ValidateRegister(const v1::Register& reg);
absl::Status ValidateBeat(const v1::Beat& beat);
absl::Status ValidateDeregister(const v1::Deregister& deregister);
absl::Status ValidateWatchRequest(const v1::WatchExecutorsRequest& request);

}  // namespace gnomon::registry

#endif  // GNOMON_SERVICES_REGISTRY_SESSION_VALIDATION_H_

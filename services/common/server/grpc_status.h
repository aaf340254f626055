// Conversion between absl::Status (libraries) and grpc::Status (adapters).
//
//   return ToGrpcStatus(core_.CreateJob(request));
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_COMMON_SERVER_GRPC_STATUS_H_
#define GNOMON_SERVICES_COMMON_SERVER_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace gnomon {

inline grpc::Status ToGrpcStatus(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

inline absl::Status FromGrpcStatus(const grpc::Status& s) {
  if (s.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_GRPC_STATUS_H_

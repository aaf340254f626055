// Listening sockets for the servers gnomon runs itself (not through gRPC).
//
//   absl::StatusOr<int> fd = Listen("127.0.0.1:0", "http");
//   int port = BoundPort(*fd);
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_COMMON_TLS_LISTEN_H_
#define GNOMON_SERVICES_COMMON_TLS_LISTEN_H_

#include <string>

#include "absl/status/statusor.h"

namespace gnomon::tls {

// Binds and listens on "host:port" ("[::]:9090", "0.0.0.0:0", ":8080");
// returns the fd (close-on-exec). `what` names the listener in errors.
absl::StatusOr<int> Listen(const std::string& address, const std::string& what, int backlog = 64);
// The port a listening fd is bound to.
int BoundPort(int fd);

}  // namespace gnomon::tls

#endif  // GNOMON_SERVICES_COMMON_TLS_LISTEN_H_

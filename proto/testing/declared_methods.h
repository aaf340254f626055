// Every RPC declared in gnomon's protos, read from the generated descriptors,
// for tests that must cover each one (a new RPC is included automatically).
//
//   absl::StatusOr<std::vector<const MethodDescriptor*>> methods = DeclaredMethods();
//   for (const MethodDescriptor* m : *methods) ...  // m->service()->full_name(), m->name()
//
// Thread safety: thread-safe (reads the immutable generated pool).
#ifndef GNOMON_PROTO_TESTING_DECLARED_METHODS_H_
#define GNOMON_PROTO_TESTING_DECLARED_METHODS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "google/protobuf/descriptor.h"

namespace gnomon::testing {

// The methods of every service of every file in proto/CMakeLists.txt's
// GNOMON_PROTOS; an error names a file missing from the generated pool.
absl::StatusOr<std::vector<const google::protobuf::MethodDescriptor*>> DeclaredMethods();

}  // namespace gnomon::testing

#endif  // GNOMON_PROTO_TESTING_DECLARED_METHODS_H_

// The gnomon/v1 descriptors with their source info — the comments of every
// service, method, message and field — as a serialized
// google.protobuf.FileDescriptorSet (imports included), embedded at build
// time (proto/CMakeLists.txt): the generated code's descriptor pool has no
// comments, and the OpenAPI document wants them.
//
//   google::protobuf::FileDescriptorSet set;
//   set.ParseFromString(std::string(gnomon::proto::CommentedDescriptorSet()));
//
// Thread safety: a constant.
#ifndef GNOMON_PROTO_DOCS_COMMENTED_DESCRIPTORS_H_
#define GNOMON_PROTO_DOCS_COMMENTED_DESCRIPTORS_H_

#include "absl/strings/string_view.h"

namespace gnomon::proto {

absl::string_view CommentedDescriptorSet();

}  // namespace gnomon::proto

#endif  // GNOMON_PROTO_DOCS_COMMENTED_DESCRIPTORS_H_

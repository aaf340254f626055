// FindInvalidUtf8: which string field of a serialized message holds bytes
// that are not UTF-8. protobuf's parser refuses such a message (proto3
// `string` fields must be UTF-8) without saying which field; this reads the
// wire bytes again against the message's descriptor to name it, for a
// refusal like every other one ("items[2].log.lines[0].text: not valid
// UTF-8", see services/common/server/field_checks.h).
//
//   if (!message.ParseFromString(bytes)) {
//     if (std::optional<std::string> field = FindInvalidUtf8(bytes, *message.GetDescriptor()))
//       return InvalidArgument(*field + ": not valid UTF-8");
//   }
//
// Paths: field names joined by '.', an element of a repeated field by its
// position among the elements on the wire ("requests[3].job.author"), a map's
// key and value by the map's name ("register.labels.key", as the map's checks
// name them). Only fields protobuf checks are looked at (proto3 `string`s);
// the fields are read in wire order and the search stops where the bytes are
// malformed, as the parser does, so the field named is the one it refused.
//
// Thread safety: pure function.
#ifndef GNOMON_PROTO_DECODING_INVALID_UTF8_H_
#define GNOMON_PROTO_DECODING_INVALID_UTF8_H_

#include <optional>
#include <string>
#include <string_view>

#include "google/protobuf/descriptor.h"

namespace gnomon::proto {

// The path of the first string field of `wire` (a serialized `type`) that is
// not valid UTF-8, or nullopt (all valid, or malformed before one is found).
std::optional<std::string> FindInvalidUtf8(std::string_view wire,
                                           const google::protobuf::Descriptor& type);

}  // namespace gnomon::proto

#endif  // GNOMON_PROTO_DECODING_INVALID_UTF8_H_

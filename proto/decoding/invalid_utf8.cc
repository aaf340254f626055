#include "proto/decoding/invalid_utf8.h"

#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/wire_format_lite.h"

namespace gnomon::proto {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::FileDescriptor;
using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;

// protobuf's default recursion limit: a deeper message does not parse anyway.
constexpr int kMaxDepth = 100;

enum class Scan { kFound, kValid, kMalformed };

// The fields the parser checks: proto3 strings (map keys and values included).
bool ChecksUtf8(const FieldDescriptor& f) {
  return f.type() == FieldDescriptor::TYPE_STRING &&
         f.file()->syntax() == FileDescriptor::SYNTAX_PROTO3;
}

// Reads `in` (a serialized `type`, up to its limit) field by field.
Scan ScanMessage(CodedInputStream& in, const Descriptor& type, const std::string& prefix, int depth,
                 std::string* path) {
  absl::flat_hash_map<const FieldDescriptor*, int> seen;  // Elements of repeated fields so far.
  for (;;) {
    const uint32_t tag = in.ReadTag();
    if (tag == 0) return in.ConsumedEntireMessage() ? Scan::kValid : Scan::kMalformed;
    const FieldDescriptor* f = type.FindFieldByNumber(WireFormatLite::GetTagFieldNumber(tag));
    // Anything else is skipped as the parser reads it: scalars, packed
    // numbers, bytes, unknown fields, a known field of another wire type.
    if (f == nullptr ||
        WireFormatLite::GetTagWireType(tag) != WireFormatLite::WIRETYPE_LENGTH_DELIMITED ||
        !(ChecksUtf8(*f) || f->type() == FieldDescriptor::TYPE_MESSAGE)) {
      if (!WireFormatLite::SkipField(&in, tag)) return Scan::kMalformed;
      continue;
    }
    std::string name = prefix.empty() ? f->name() : absl::StrCat(prefix, ".", f->name());
    if (f->is_repeated() && !f->is_map()) absl::StrAppend(&name, "[", seen[f]++, "]");
    uint32_t length = 0;
    if (!in.ReadVarint32(&length)) return Scan::kMalformed;
    if (f->type() != FieldDescriptor::TYPE_MESSAGE) {
      std::string bytes;
      if (!in.ReadString(&bytes, static_cast<int>(length))) return Scan::kMalformed;
      if (!google::protobuf::internal::IsStructurallyValidUTF8(bytes)) {
        *path = std::move(name);
        return Scan::kFound;
      }
      continue;
    }
    if (depth >= kMaxDepth || static_cast<int>(length) < 0) return Scan::kMalformed;
    const CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(length));
    const Scan inner = ScanMessage(in, *f->message_type(), name, depth + 1, path);
    if (inner != Scan::kValid) return inner;
    in.PopLimit(limit);
  }
}

}  // namespace

std::optional<std::string> FindInvalidUtf8(std::string_view wire, const Descriptor& type) {
  if (wire.size() > static_cast<size_t>(INT32_MAX)) return std::nullopt;
  CodedInputStream in(reinterpret_cast<const uint8_t*>(wire.data()), static_cast<int>(wire.size()));
  std::string path;
  if (ScanMessage(in, type, "", 0, &path) == Scan::kFound) return path;
  return std::nullopt;
}

}  // namespace gnomon::proto

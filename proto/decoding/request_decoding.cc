#include "proto/decoding/request_decoding.h"

#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/descriptor.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/proto_buffer_writer.h"
#include "proto/decoding/invalid_utf8.h"

namespace gnomon::proto {
namespace {

// The watches, by the message each is on.
struct Watches {
  absl::Mutex mu;
  absl::flat_hash_map<const google::protobuf::MessageLite*, ReadFailureWatch*> by_message
      ABSL_GUARDED_BY(mu);
};

Watches& AllWatches() {
  static auto* watches = new Watches;
  return *watches;
}

// Why `wire` (which did not parse as `msg`) was refused; `requests`: name a
// field of a request type.
grpc::Status Explain(const std::string& wire, const google::protobuf::MessageLite& msg,
                     bool requests) {
  const google::protobuf::Descriptor* type =
      google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(msg.GetTypeName());
  if (type != nullptr && (!requests || IsRequestType(type->full_name()))) {
    if (std::optional<std::string> field = FindInvalidUtf8(wire, *type)) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, *field + ": not valid UTF-8");
    }
  }
  return grpc::Status(grpc::StatusCode::INTERNAL, msg.InitializationErrorString());
}

grpc::Status Decode(grpc::ByteBuffer* buffer, google::protobuf::MessageLite* msg, bool requests) {
  if (buffer == nullptr) return grpc::Status(grpc::StatusCode::INTERNAL, "No payload");
  bool parsed = false;
  {
    grpc::ProtoBufferReader reader(buffer);
    if (!reader.status().ok()) return reader.status();
    parsed = msg->ParseFromZeroCopyStream(&reader);
  }
  grpc::Status result;
  if (!parsed) {
    // Only a refused message is read again, whole.
    grpc::Slice flat;
    result = buffer->DumpToSingleSlice(&flat);
    if (result.ok()) {
      result = Explain(std::string(reinterpret_cast<const char*>(flat.begin()), flat.size()), *msg,
                       requests);
    }
    if (result.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      ReadFailureWatch::Record(msg, result);
    }
  }
  buffer->Clear();
  return result;
}

}  // namespace

grpc::Status EncodeMessage(const google::protobuf::MessageLite& msg, grpc::ByteBuffer* buffer,
                           bool* own_buffer) {
  return grpc::GenericSerialize<grpc::ProtoBufferWriter, google::protobuf::MessageLite>(msg, buffer,
                                                                                        own_buffer);
}

grpc::Status DecodeRequest(grpc::ByteBuffer* buffer, google::protobuf::MessageLite* msg) {
  return Decode(buffer, msg, /*requests=*/false);
}

grpc::Status DecodeMessage(grpc::ByteBuffer* buffer, google::protobuf::MessageLite* msg) {
  return Decode(buffer, msg, /*requests=*/true);
}

ReadFailureWatch::ReadFailureWatch(const google::protobuf::MessageLite* into) : into_(into) {
  Watches& w = AllWatches();
  absl::MutexLock l(&w.mu);
  w.by_message[into_] = this;
}

ReadFailureWatch::~ReadFailureWatch() {
  Watches& w = AllWatches();
  absl::MutexLock l(&w.mu);
  w.by_message.erase(into_);
}

grpc::Status ReadFailureWatch::Take() {
  Watches& w = AllWatches();
  absl::MutexLock l(&w.mu);
  return std::exchange(failed_, grpc::Status::OK);
}

void ReadFailureWatch::Record(const google::protobuf::MessageLite* into, grpc::Status status) {
  Watches& w = AllWatches();
  absl::MutexLock l(&w.mu);
  auto it = w.by_message.find(into);
  if (it != w.by_message.end()) it->second->failed_ = std::move(status);
}

}  // namespace gnomon::proto

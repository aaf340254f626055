#include "proto/decoding/request_decoding.h"

#include <string>

#include "absl/strings/str_replace.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "gtest/gtest.h"

namespace gnomon::proto {
namespace {

grpc::ByteBuffer Buffer(const std::string& bytes) {
  grpc::Slice slice(bytes);
  return grpc::ByteBuffer(&slice, 1);
}

// A SessionRequest whose register.address is not UTF-8.
std::string BadSession() {
  v1::SessionRequest req;
  req.mutable_register_()->set_app_name("app");
  req.mutable_register_()->set_address("<bad>");
  return absl::StrReplaceAll(req.SerializeAsString(), {{"<bad>", "\xff\xfe\xfd\xfc\xfb"}});
}

// gRPC decodes what a gnomon service reads through DecodeRequest: the
// specialization from request_traits.h is the one the generated code uses.
TEST(RequestDecodingTest, GrpcDecodesRequestsWithIt) {
  grpc::ByteBuffer buffer = Buffer(BadSession());
  v1::SessionRequest req;
  grpc::Status s = grpc::SerializationTraits<v1::SessionRequest>::Deserialize(&buffer, &req);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), "register.address: not valid UTF-8");
  EXPECT_EQ(buffer.Length(), 0u);  // Cleared, as gRPC's own does.
}

// Synchronous unary handlers (and stubs) decode as MessageLite: requests are
// named, anything else (a response a client reads) is decoded as gRPC does.
TEST(RequestDecodingTest, AsMessageLiteOnlyRequestsAreNamed) {
  using Traits = grpc::SerializationTraits<google::protobuf::MessageLite>;
  grpc::ByteBuffer request = Buffer(BadSession());
  v1::SessionRequest req;
  grpc::Status s = Traits::Deserialize(&request, &req);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), "register.address: not valid UTF-8");

  v1::Group group;
  group.set_app_name("<bad>");
  grpc::ByteBuffer response =
      Buffer(absl::StrReplaceAll(group.SerializeAsString(), {{"<bad>", "\xff\xff\xff\xff\xff"}}));
  s = Traits::Deserialize(&response, &group);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(s.error_message(), "");

  EXPECT_TRUE(IsRequestType("gnomon.v1.CreateJobRequest"));
  EXPECT_TRUE(IsRequestType("gnomon.v1.ReportResultsRequest"));
  EXPECT_FALSE(IsRequestType("gnomon.v1.Group"));
}

TEST(RequestDecodingTest, ValidRequestsDecodeAndEncode) {
  v1::CreateJobRequest in;
  in.mutable_job()->set_author("ä");
  grpc::ByteBuffer buffer;
  bool own = false;
  ASSERT_TRUE(grpc::SerializationTraits<v1::CreateJobRequest>::Serialize(in, &buffer, &own).ok());
  EXPECT_TRUE(own);
  v1::CreateJobRequest out;
  ASSERT_TRUE(grpc::SerializationTraits<v1::CreateJobRequest>::Deserialize(&buffer, &out).ok());
  EXPECT_EQ(out.job().author(), "ä");
}

TEST(RequestDecodingTest, OtherFailuresStayInternal) {
  const std::string bad = BadSession();
  grpc::ByteBuffer buffer = Buffer(bad.substr(0, bad.size() - 2));  // Truncated.
  v1::SessionRequest req;
  grpc::Status s = DecodeRequest(&buffer, &req);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INTERNAL);
}

TEST(RequestDecodingTest, AWatchLearnsWhyAReadFailed) {
  v1::SessionRequest watched, other;
  ReadFailureWatch watch(&watched);
  EXPECT_TRUE(watch.Take().ok());
  grpc::ByteBuffer b1 = Buffer(BadSession());
  EXPECT_FALSE(DecodeRequest(&b1, &other).ok());  // Not watched: nothing recorded.
  EXPECT_TRUE(watch.Take().ok());
  grpc::ByteBuffer b2 = Buffer(BadSession());
  EXPECT_FALSE(DecodeRequest(&b2, &watched).ok());
  grpc::Status s = watch.Take();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message(), "register.address: not valid UTF-8");
  EXPECT_TRUE(watch.Take().ok());  // Taken once.
  // A failure that is not the client's (INTERNAL) is not recorded.
  const std::string bad = BadSession();
  grpc::ByteBuffer b3 = Buffer(bad.substr(0, bad.size() - 2));
  EXPECT_FALSE(DecodeRequest(&b3, &watched).ok());
  EXPECT_TRUE(watch.Take().ok());
}

}  // namespace
}  // namespace gnomon::proto

#include "proto/decoding/invalid_utf8.h"

#include <string>

#include "absl/strings/str_replace.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/log.pb.h"
#include "gnomon/v1/registry.pb.h"
#include "google/protobuf/struct.pb.h"
#include "gtest/gtest.h"

namespace gnomon::proto {
namespace {

// Stands for an invalid value, so the message serializes without protobuf's
// complaint; Wire() puts the invalid bytes (as many) in its place.
constexpr char kBad[] = "<bad>";

// `m` serialized, every kBad made invalid UTF-8 (a lead byte without its
// continuation, then an orphan continuation byte).
std::string Wire(const google::protobuf::Message& m) {
  return absl::StrReplaceAll(m.SerializeAsString(), {{kBad, "\xc3(b\x80>"}});
}

template <typename M>
std::optional<std::string> Find(const M& m) {
  return FindInvalidUtf8(Wire(m), *M::descriptor());
}

TEST(FindInvalidUtf8Test, ValidMessageHasNone) {
  v1::CreateJobRequest req;
  req.mutable_job()->set_author("ünïcödé ✓");
  req.mutable_job()->mutable_schedule()->mutable_cron()->set_expression("0 0 * * * ?");
  EXPECT_TRUE(v1::CreateJobRequest().ParseFromString(Wire(req)));
  EXPECT_EQ(Find(req), std::nullopt);
  EXPECT_EQ(FindInvalidUtf8("", *v1::CreateJobRequest::descriptor()), std::nullopt);
}

TEST(FindInvalidUtf8Test, NamesTheFieldTheParserRefuses) {
  v1::CreateJobRequest req;
  req.mutable_job()->set_author(kBad);
  EXPECT_FALSE(v1::CreateJobRequest().ParseFromString(Wire(req)));
  EXPECT_EQ(Find(req), "job.author");
}

TEST(FindInvalidUtf8Test, NestedInRepeatedAndOneofs) {
  v1::ReportResultsRequest req;
  req.add_items()->mutable_started()->set_executor_address("a");
  v1::RunLogLines* log = req.add_items()->mutable_log();  // A oneof member.
  log->add_lines()->set_text("fine");
  log->add_lines()->set_text("fine too");
  log->add_lines()->set_text(kBad);
  log->add_lines()->set_text(kBad);  // Only the first is named.
  EXPECT_EQ(Find(req), "items[1].log.lines[2].text");
}

TEST(FindInvalidUtf8Test, OneofThroughSeveralLevels) {
  v1::CreateJobRequest req;
  req.mutable_job()->mutable_schedule()->mutable_cron()->set_time_zone(kBad);
  EXPECT_EQ(Find(req), "job.schedule.cron.time_zone");
}

TEST(FindInvalidUtf8Test, RepeatedStrings) {
  v1::SessionRequest req;
  req.mutable_register_()->add_handlers("a");
  req.mutable_register_()->add_handlers(kBad);
  EXPECT_EQ(Find(req), "register.handlers[1]");
}

TEST(FindInvalidUtf8Test, MapKeysAndValuesByTheMapsName) {
  v1::SessionRequest key;
  (*key.mutable_register_()->mutable_labels())["zone"] = "a";
  (*key.mutable_register_()->mutable_labels())[kBad] = "b";
  EXPECT_EQ(Find(key), "register.labels.key");
  v1::SessionRequest value;
  (*value.mutable_register_()->mutable_labels())["zone"] = kBad;
  EXPECT_EQ(Find(value), "register.labels.value");
}

TEST(FindInvalidUtf8Test, SkipsPackedNumbersBytesAndUnknownFields) {
  v1::CreateJobRequest req;
  for (int64_t id : {1, 300, 70000}) req.mutable_job()->add_child_job_ids(id);
  req.mutable_job()->set_author(kBad);
  EXPECT_EQ(Find(req), "job.author");

  // A bytes field may hold anything.
  v1::ReportResultsRequest bytes;
  bytes.add_items()->mutable_started()->set_receipt(kBad);
  EXPECT_TRUE(v1::ReportResultsRequest().ParseFromString(Wire(bytes)));
  EXPECT_EQ(Find(bytes), std::nullopt);

  // Field 99 (unknown) holding invalid bytes: kept, not checked, by the parser too.
  const std::string unknown = std::string("\x9a\x06\x05") + "\xc3(b\x80>";
  EXPECT_TRUE(v1::CreateJobRequest().ParseFromString(unknown));
  EXPECT_EQ(FindInvalidUtf8(unknown, *v1::CreateJobRequest::descriptor()), std::nullopt);
}

TEST(FindInvalidUtf8Test, WellKnownTypes) {
  v1::UpdateGroupRequest req;
  req.mutable_update_mask()->add_paths("title");
  req.mutable_update_mask()->add_paths(kBad);
  EXPECT_EQ(Find(req), "update_mask.paths[1]");
}

TEST(FindInvalidUtf8Test, MalformedBeforeTheStringHasNone) {
  v1::CreateJobRequest req;
  req.mutable_job()->set_author(kBad);
  const std::string wire = Wire(req);
  // Cut inside the string: the message is malformed, not invalid UTF-8.
  EXPECT_EQ(FindInvalidUtf8(wire.substr(0, wire.size() - 2), *v1::CreateJobRequest::descriptor()),
            std::nullopt);
  // A truncated varint first.
  EXPECT_EQ(FindInvalidUtf8("\x08\xff" + wire, *v1::CreateJobRequest::descriptor()), std::nullopt);
  // A nested length past the end.
  EXPECT_EQ(FindInvalidUtf8("\x0a\x7f\x22", *v1::CreateJobRequest::descriptor()), std::nullopt);
  // Malformed after the string: the parser stops at the string first.
  EXPECT_EQ(FindInvalidUtf8(wire + "\x08", *v1::CreateJobRequest::descriptor()), "job.author");
}

// google.protobuf.Value nests itself (list_value.values[i]).
google::protobuf::Value Nested(int depth) {
  google::protobuf::Value v;
  v.set_string_value(kBad);
  for (int i = 0; i < depth; ++i) {
    google::protobuf::Value outer;
    *outer.mutable_list_value()->add_values() = std::move(v);
    v = std::move(outer);
  }
  return v;
}

TEST(FindInvalidUtf8Test, AsDeepAsTheParserReads) {
  std::string path;
  for (int i = 0; i < 3; ++i) path += "list_value.values[0].";
  EXPECT_EQ(Find(Nested(3)), path + "string_value");
  // Deeper than protobuf's recursion limit (100): refused as too deep.
  EXPECT_FALSE(google::protobuf::Value().ParseFromString(Wire(Nested(60))));
  EXPECT_EQ(Find(Nested(60)), std::nullopt);
}

}  // namespace
}  // namespace gnomon::proto

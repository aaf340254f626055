// The OpenAPI document, parsed back: every served method of the services has
// its operation (read from the descriptors, so a new RPC is covered with no
// change here), schemas follow protobuf's JSON mapping, and every $ref resolves.
// tests/support/openapi_valid_test.sh checks it against the OpenAPI 3.0 schema.
#include "services/common/http/openapi.h"

#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "services/common/http/json_tree.h"

namespace gnomon::http {
namespace {

// openapi.cc's note on 64-bit integers, which follows a field's comment.
constexpr char kInt64NoteForTest[] =
    "64-bit integer, printed as a decimal string; numbers are accepted on input.";

using google::protobuf::Value;

const std::vector<std::string> kServices = {"gnomon.v1.JobAdmin", "gnomon.v1.LogService",
                                            "gnomon.v1.Registry"};

// The document, as a Value holding an object.
Value Parse(const std::string& json) {
  Value doc;
  auto status = google::protobuf::util::JsonStringToMessage(json, doc.mutable_struct_value());
  EXPECT_TRUE(status.ok()) << status.ToString();
  return doc;
}

// v at a path of object keys (a reference into v); a null Value if any is missing.
const Value& At(const Value& v, const std::vector<std::string>& path) {
  static const Value* const kMissing = new Value();
  const Value* at = &v;
  for (const std::string& key : path) {
    if (!at->has_struct_value() || !at->struct_value().fields().contains(key)) return *kMissing;
    at = &at->struct_value().fields().at(key);
  }
  return *at;
}

std::string StrAt(const Value& v, const std::vector<std::string>& path) {
  return At(v, path).string_value();
}

const google::protobuf::ServiceDescriptor& Service(const std::string& name) {
  const auto* s = google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(name);
  EXPECT_NE(s, nullptr) << name;
  return *s;
}

// Every "$ref" value anywhere under v.
void CollectRefs(const Value& v, std::vector<std::string>& refs) {
  if (v.has_struct_value()) {
    for (const auto& [key, field] : v.struct_value().fields()) {
      if (key == "$ref") refs.push_back(field.string_value());
      CollectRefs(field, refs);
    }
  } else if (v.has_list_value()) {
    for (const Value& item : v.list_value().values()) CollectRefs(item, refs);
  }
}

class OpenApiTest : public ::testing::Test {
 protected:
  // Built first, so the generated descriptors are linked in before Service().
  std::string json_ = OpenApiJson(kServices, "1.2.3");
  Value doc_ = Parse(json_);
};

TEST_F(OpenApiTest, Header) {
  EXPECT_EQ(StrAt(doc_, {"openapi"}), "3.0.3");
  EXPECT_EQ(StrAt(doc_, {"info", "title"}), "gnomon");
  EXPECT_EQ(StrAt(doc_, {"info", "version"}), "1.2.3");
  EXPECT_EQ(StrAt(doc_, {"components", "securitySchemes", "bearerAuth", "scheme"}), "bearer");
  EXPECT_EQ(StrAt(doc_, {"components", "securitySchemes", "basicAuth", "scheme"}), "basic");
}

TEST_F(OpenApiTest, SameTextEveryTime) { EXPECT_EQ(OpenApiJson(kServices, "1.2.3"), json_); }

TEST_F(OpenApiTest, PathsAndServedMethods) {
  const auto& log = Service("gnomon.v1.LogService");
  EXPECT_EQ(HttpPath(*log.FindMethodByName("StreamRunLog")), "/v1/LogService/StreamRunLog");
  EXPECT_TRUE(ServedOverHttp(*log.FindMethodByName("StreamRunLog")));
  EXPECT_TRUE(ServedOverHttp(*log.FindMethodByName("GetRun")));
  EXPECT_FALSE(ServedOverHttp(*log.FindMethodByName("ReportResults")));
  EXPECT_FALSE(ServedOverHttp(*Service("gnomon.v1.Registry").FindMethodByName("Session")));
}

TEST_F(OpenApiTest, EveryServedMethodHasItsOperation) {
  const auto& paths = At(doc_, {"paths"}).struct_value().fields();
  size_t served = 0;
  for (const std::string& name : kServices) {
    const auto& service = Service(name);
    for (int i = 0; i < service.method_count(); ++i) {
      const auto& method = *service.method(i);
      const std::string path = "/v1/" + service.name() + "/" + method.name();
      if (method.client_streaming()) {  // Not ServedOverHttp: this checks it too.
        EXPECT_FALSE(paths.contains(path)) << path;
        continue;
      }
      ++served;
      ASSERT_TRUE(paths.contains(path)) << path;
      EXPECT_EQ(StrAt(doc_, {"paths", path, "post", "operationId"}),
                service.name() + "_" + method.name());
      EXPECT_EQ(At(doc_, {"paths", path, "post", "tags"}).list_value().values(0).string_value(),
                service.name());
      // 200 and an Error for any other status.
      EXPECT_TRUE(At(doc_, {"paths", path, "post", "responses", "200"}).has_struct_value()) << path;
      EXPECT_EQ(StrAt(doc_, {"paths", path, "post", "responses", "default", "content",
                             "application/json", "schema", "$ref"}),
                "#/components/schemas/Error");
      EXPECT_EQ(StrAt(doc_, {"paths", path, "post", "requestBody", "content", "application/json",
                             "schema", "$ref"}),
                "#/components/schemas/" + method.input_type()->full_name());
      const std::string scheme =
          method.full_name() == "gnomon.v1.JobAdmin.Login" ? "basicAuth" : "bearerAuth";
      const Value& security = At(doc_, {"paths", path, "post", "security"});
      ASSERT_EQ(security.list_value().values_size(), 1) << path;
      EXPECT_THAT(security.list_value().values(0).struct_value().fields(), ::testing::SizeIs(1))
          << path;
      EXPECT_TRUE(security.list_value().values(0).struct_value().fields().contains(scheme)) << path;
    }
  }
  EXPECT_EQ(paths.size(), served);
  EXPECT_FALSE(paths.contains("/v1/Registry/Session"));
  EXPECT_FALSE(paths.contains("/v1/LogService/ReportResults"));
  EXPECT_TRUE(paths.contains("/v1/JobAdmin/CreateJob"));
  EXPECT_TRUE(paths.contains("/v1/Registry/WatchExecutors"));
  EXPECT_TRUE(At(doc_, {"paths", "/v1/JobAdmin/Login", "post", "security"})
                  .list_value()
                  .values(0)
                  .struct_value()
                  .fields()
                  .contains("basicAuth"));
}

TEST_F(OpenApiTest, StreamingRepliesAreServerSentEvents) {
  const Value& ok =
      At(doc_, {"paths", "/v1/LogService/StreamRunLog", "post", "responses", "200", "content"});
  ASSERT_TRUE(ok.struct_value().fields().contains("text/event-stream"));
  EXPECT_FALSE(ok.struct_value().fields().contains("application/json"));
  EXPECT_EQ(StrAt(ok, {"text/event-stream", "schema", "type"}), "string");
  EXPECT_EQ(StrAt(ok, {"text/event-stream", "schema", "x-gnomon-stream-message", "$ref"}),
            "#/components/schemas/gnomon.v1.LogLine");
  EXPECT_THAT(
      StrAt(doc_, {"paths", "/v1/LogService/StreamRunLog", "post", "description"}),
      ::testing::AllOf(::testing::HasSubstr("event: end"), ::testing::HasSubstr("event: error")));
  EXPECT_EQ(StrAt(doc_, {"paths", "/v1/JobAdmin/CreateJob", "post", "responses", "200", "content",
                         "application/json", "schema", "$ref"}),
            "#/components/schemas/gnomon.v1.Job");
}

TEST_F(OpenApiTest, MethodsMessagesAndFieldsCarryTheirProtoComments) {
  // proto/gnomon/v1/admin.proto and common.proto, as written there.
  EXPECT_EQ(StrAt(doc_, {"paths", "/v1/JobAdmin/KillRun", "post", "description"}),
            "Kill a running run.");
  EXPECT_THAT(StrAt(doc_, {"paths", "/v1/JobAdmin/CreatePool", "post", "description"}),
              ::testing::HasSubstr("Pools of concurrency slots (Job.pool)"));
  EXPECT_THAT(StrAt(doc_, {"components", "schemas", "gnomon.v1.Pool", "description"}),
              ::testing::HasSubstr("A pool of concurrency slots shared by jobs"));
  const Value& job = At(doc_, {"components", "schemas", "gnomon.v1.Job", "properties"});
  EXPECT_THAT(StrAt(job, {"priority", "description"}),
              ::testing::HasSubstr("a higher priority gets a free slot\nfirst"));
  EXPECT_EQ(StrAt(job, {"groupId", "description"}),
            absl::StrCat("The executor group that runs it. ", kInt64NoteForTest));
}

TEST_F(OpenApiTest, SchemasFollowTheJsonMapping) {
  const Value& job = At(doc_, {"components", "schemas", "gnomon.v1.Job", "properties"});
  EXPECT_EQ(StrAt(job, {"id", "type"}), "string");
  EXPECT_EQ(StrAt(job, {"id", "format"}), "int64");
  EXPECT_EQ(StrAt(job, {"groupId", "format"}), "int64");  // json_name, not group_id.
  EXPECT_EQ(StrAt(job, {"childJobIds", "type"}), "array");
  EXPECT_EQ(StrAt(job, {"childJobIds", "items", "format"}), "int64");
  EXPECT_EQ(StrAt(job, {"createTime", "type"}), "string");
  EXPECT_EQ(StrAt(job, {"createTime", "format"}), "date-time");
  EXPECT_EQ(StrAt(job, {"timeout", "type"}), "string");  // Duration: "1.5s".
  EXPECT_EQ(StrAt(job, {"routeStrategy", "type"}), "string");
  std::vector<std::string> names;
  for (const Value& v : At(job, {"routeStrategy", "enum"}).list_value().values())
    names.push_back(v.string_value());
  EXPECT_THAT(names, ::testing::Contains("ROUTE_STRATEGY_FIRST"));
  const auto* route = google::protobuf::DescriptorPool::generated_pool()->FindEnumTypeByName(
      "gnomon.v1.RouteStrategy");
  ASSERT_NE(route, nullptr);
  EXPECT_EQ(names.size(), static_cast<size_t>(route->value_count()));
  // A message field of a oneof: a $ref, wrapped to carry the oneof's description.
  EXPECT_EQ(At(job, {"script", "allOf"})
                .list_value()
                .values(0)
                .struct_value()
                .fields()
                .at("$ref")
                .string_value(),
            "#/components/schemas/gnomon.v1.ScriptTask");
  EXPECT_THAT(StrAt(job, {"script", "description"}), ::testing::HasSubstr("oneof task"));
}

TEST_F(OpenApiTest, EverySchemaHasEveryFieldByJsonName) {
  for (const auto& [name, schema] : At(doc_, {"components", "schemas"}).struct_value().fields()) {
    if (name == "Error") continue;
    const auto* message =
        google::protobuf::DescriptorPool::generated_pool()->FindMessageTypeByName(name);
    ASSERT_NE(message, nullptr) << name;
    std::set<std::string> want, got;
    for (int i = 0; i < message->field_count(); ++i) want.insert(message->field(i)->json_name());
    for (const auto& [field, unused] : At(schema, {"properties"}).struct_value().fields()) {
      got.insert(field);
    }
    EXPECT_EQ(got, want) << name;
  }
}

TEST_F(OpenApiTest, EveryRefResolves) {
  std::vector<std::string> refs;
  CollectRefs(doc_, refs);
  EXPECT_THAT(refs, ::testing::Not(::testing::IsEmpty()));
  const auto& schemas = At(doc_, {"components", "schemas"}).struct_value().fields();
  const std::string prefix = "#/components/schemas/";
  for (const std::string& ref : refs) {
    ASSERT_EQ(ref.rfind(prefix, 0), 0u) << ref;
    EXPECT_TRUE(schemas.contains(ref.substr(prefix.size()))) << ref;
  }
}

TEST(OpenApiUnknownService, LeftOut) {
  const Value doc = Parse(OpenApiJson({"gnomon.v1.NoSuchService"}, "0"));
  EXPECT_TRUE(At(doc, {"paths"}).struct_value().fields().empty());
}

TEST(JsonTree, PrintsSortedAndEscaped) {
  using json::Arr;
  using json::Obj;
  using json::Str;
  const Value v =
      Obj({{"b", Arr({Str("q\"\\\n\x01 é"), json::Num(0), json::Num(1.5), json::Bool(true)})},
           {"a", Obj({})},
           {"c", Arr({})}});
  const std::string text = json::PrintSorted(v);
  EXPECT_LT(text.find("\"a\""), text.find("\"b\""));
  EXPECT_LT(text.find("\"b\""), text.find("\"c\""));
  EXPECT_THAT(text, ::testing::HasSubstr(R"("q\"\\\n\u0001 é")"));
  EXPECT_EQ(Parse(text).DebugString(), v.DebugString());
}

}  // namespace
}  // namespace gnomon::http

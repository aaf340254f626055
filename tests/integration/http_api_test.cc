// The HTTP/JSON API (docs/http-api.md) on a real gnomond: the same calls as
// gRPC in protobuf's JSON mapping, the same authentication first, validation,
// authorization, and errors as {"code", "message"} with the matching HTTP
// status; a run's live log as Server-Sent Events; /openapi.json.
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.pb.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/http_get.h"
#include "tests/support/subprocess.h"

namespace gnomon {
namespace {

using testing::HttpCall;
using testing::HttpResult;

class HttpApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    std::optional<std::string> url = cluster_.HttpUrl();
    ASSERT_TRUE(url) << cluster_.Output();
    base_ = *url;
  }
  HttpResult Post(const std::string& method, const std::string& json, const std::string& token) {
    std::vector<std::string> headers;
    if (!token.empty()) headers.push_back("Authorization: Bearer " + token);
    return HttpCall("POST", base_ + "/v1/" + method, json, headers);
  }
  HttpResult Admin(const std::string& method, const std::string& json) {
    return Post(method, json, cluster_.admin_token());
  }
  template <typename M>
  M Parse(const HttpResult& r) {
    M m;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(r.body, &m).ok()) << r.body;
    return m;
  }

  // A stand-in for the built console: an index page and a hashed asset.
  static std::string ConsoleDir(const testing::TempDir& dir) {
    ::mkdir((dir.path() + "/assets").c_str(), 0755);
    std::ofstream(dir.path() + "/index.html") << "<!doctype html><title>gnomon</title>";
    std::ofstream(dir.path() + "/assets/app-1234.js") << "console.log('hi')";
    return dir.path();
  }

  testing::TempDir console_;
  testing::GnomonCluster cluster_{
      {"--http-listen=127.0.0.1:0", "--console-dir=" + ConsoleDir(console_)}};
  std::string base_;
};

TEST_F(HttpApiTest, CallsAreTheGrpcCallsInJson) {
  HttpResult created =
      Admin("JobAdmin/CreateGroup", R"({"group": {"appName": "http-app", "title": "HTTP"}})");
  ASSERT_EQ(created.status, 200) << created.body;
  EXPECT_EQ(created.content_type, "application/json");
  v1::Group group = Parse<v1::Group>(created);
  EXPECT_EQ(group.app_name(), "http-app");
  EXPECT_FALSE(group.access_token().empty());
  EXPECT_NE(created.body.find(absl::StrCat("\"id\":\"", group.id(), "\"")), std::string::npos)
      << "64-bit ids are JSON strings: " << created.body;

  HttpResult job = Admin("JobAdmin/CreateJob", absl::StrCat(R"({"job": {"groupId": ")", group.id(),
                                                            R"(", "bean": {"handler": "demo"},
                     "schedule": {"cron": {"expression": "0 0 6 * * ?", "timeZone": "Europe/Berlin"}}}})"));
  ASSERT_EQ(job.status, 200) << job.body;
  v1::Job j = Parse<v1::Job>(job);
  HttpResult got =
      Admin("JobAdmin/GetJob", absl::StrCat(R"({"jobId": )", j.id(), "}"));  // A number works too.
  ASSERT_EQ(got.status, 200) << got.body;
  EXPECT_EQ(Parse<v1::Job>(got).schedule().cron().time_zone(), "Europe/Berlin");
  HttpResult list = Admin("JobAdmin/ListJobs", "");  // An empty body is the empty request.
  ASSERT_EQ(list.status, 200) << list.body;
  EXPECT_EQ(Parse<v1::ListJobsResponse>(list).jobs_size(), 1);
  // Changes through HTTP are audited like any other.
  v1::ListAuditResponse audit = Parse<v1::ListAuditResponse>(Admin("JobAdmin/ListAudit", ""));
  ASSERT_GE(audit.entries_size(), 2);
  EXPECT_EQ(audit.entries(0).method(), "CreateJob");
}

TEST_F(HttpApiTest, ErrorsCarryTheGrpcCodeAndTheMatchingStatus) {
  struct Case {
    const char* what;
    HttpResult r;
    long status;
    const char* code;
    const char* message;
  };
  v1::CreateTokenResponse viewer;
  ASSERT_TRUE(
      cluster_.CtlJson({"token", "create", "dash", "--role", "viewer", "--all-groups"}, &viewer));
  const std::vector<Case> cases = {
      {"no token", Post("JobAdmin/ListJobs", "", ""), 401, "UNAUTHENTICATED",
       "missing or invalid credentials"},
      // Authenticated first: a bad body from a stranger is still 401.
      {"no token, bad body", Post("JobAdmin/CreateJob", "{not json", ""), 401, "UNAUTHENTICATED",
       "missing or invalid credentials"},
      {"wrong token", Post("JobAdmin/ListJobs", "", "nope"), 401, "UNAUTHENTICATED",
       "missing or invalid credentials"},
      {"bad body", Admin("JobAdmin/CreateJob", "{not json"), 400, "INVALID_ARGUMENT", "body: "},
      {"unknown field", Admin("JobAdmin/GetJob", R"({"jobIdd": 1})"), 400, "INVALID_ARGUMENT",
       "body: "},
      {"invalid field", Admin("JobAdmin/CreateGroup", R"({"group": {"appName": "bad/name"}})"), 400,
       "INVALID_ARGUMENT", "group.app_name: "},
      // Bytes that are not UTF-8 in a string, named as gRPC names them.
      {"not UTF-8", Admin("JobAdmin/CreateJob", "{\"job\": {\"author\": \"a\xc3(\"}}"), 400,
       "INVALID_ARGUMENT", "job.author: not valid UTF-8"},
      {"not UTF-8, nested",
       Admin("JobAdmin/BatchCreateJobs",
             R"({"requests": [{"job": {}}, {"job": {"alarm": {"emails": ["a@b.c", ")"
             "\xff\xfe"
             R"("]}}}]})"),
       400, "INVALID_ARGUMENT", "requests[1].job.alarm.emails[1]: not valid UTF-8"},
      {"not found", Admin("JobAdmin/GetJob", R"({"jobId": "999"})"), 404, "NOT_FOUND", ""},
      {"role", Post("JobAdmin/CreateGroup", R"({"group": {"appName": "x"}})", viewer.secret()), 403,
       "PERMISSION_DENIED", "role viewer may not call CreateGroup"},
      {"no such method", Admin("JobAdmin/Nope", ""), 404, "NOT_FOUND", "no such method"},
      // Executors' streams are gRPC only.
      {"client stream", Admin("Registry/Session", ""), 404, "NOT_FOUND", "no such method"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.r.status, c.status) << c.what << ": " << c.r.body;
    google::protobuf::Struct error;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(c.r.body, &error).ok())
        << c.what << ": " << c.r.body;
    EXPECT_EQ(error.fields().at("code").string_value(), c.code) << c.what;
    EXPECT_EQ(error.fields().at("message").string_value().rfind(c.message, 0), 0u)
        << c.what << ": " << c.r.body;
  }
  HttpResult get = HttpCall("GET", base_ + "/v1/JobAdmin/ListJobs", "");
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(cluster_.gnomond()->WaitFor(absl::ZeroDuration()), std::nullopt);  // Still up.
}

// A run's log followed live: one event per line, then `event: end` when the
// run ends.
TEST_F(HttpApiTest, ARunsLogStreamsAsServerSentEvents) {
  v1::Group group;
  ASSERT_TRUE(cluster_.CtlJson({"group", "create", "sse-app"}, &group));
  auto executor = cluster_.StartExecutor("sse-app", group.access_token());
  ASSERT_TRUE(executor->WaitForLine("started as", absl::Seconds(30))) << executor->Output();
  v1::Job job;
  ASSERT_TRUE(cluster_.CtlJson(
      {"job", "create", "--group", absl::StrCat(group.id()), "--handler", "demo", "--manual"},
      &job));
  // Until the executor has registered, a trigger finds no executor.
  v1::TriggerJobResponse fired;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  HttpResult trigger;
  do {
    trigger = Admin("JobAdmin/TriggerJob", absl::StrCat(R"({"jobId": ")", job.id(), "\"}"));
    if (trigger.status == 200) break;
    cluster_.PollInterval(absl::Milliseconds(200));
  } while (absl::Now() < deadline);
  ASSERT_EQ(trigger.status, 200) << trigger.body;
  fired = Parse<v1::TriggerJobResponse>(trigger);
  ASSERT_EQ(fired.run_ids_size(), 1);
  HttpResult stream =
      Admin("LogService/StreamRunLog",
            absl::StrCat(R"({"runId": ")", fired.run_ids(0), R"(", "follow": true})"));
  ASSERT_EQ(stream.status, 200) << stream.body;
  EXPECT_EQ(stream.content_type, "text/event-stream");
  EXPECT_NE(stream.body.find("data: {\"lineNumber\":\"1\""), std::string::npos) << stream.body;
  EXPECT_NE(stream.body.find("event: end\ndata: {}\n\n"), std::string::npos) << stream.body;
  // The run ended, with the lines the stream showed.
  v1::GetRunResponse run;
  ASSERT_TRUE(cluster_.CtlJson({"run", "get", absl::StrCat(fired.run_ids(0))}, &run));
  EXPECT_EQ(run.run().status(), v1::RUN_STATUS_SUCCEEDED);
  for (const v1::LogLine& l : run.log_lines()) {
    EXPECT_NE(stream.body.find(l.text().substr(0, 20)), std::string::npos) << l.text();
  }
}

TEST_F(HttpApiTest, TheOpenApiDocumentDescribesEveryPath) {
  HttpResult doc = HttpCall("GET", base_ + "/openapi.json", "");
  ASSERT_EQ(doc.status, 200);
  google::protobuf::Struct parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(doc.body, &parsed).ok());
  const auto& paths = parsed.fields().at("paths").struct_value().fields();
  EXPECT_TRUE(paths.count("/v1/JobAdmin/CreateJob"));
  EXPECT_TRUE(paths.count("/v1/LogService/StreamRunLog"));
  EXPECT_FALSE(paths.count("/v1/Registry/Session"));
}

TEST_F(HttpApiTest, WhoAmITellsTheCallersRoleAndGrants) {
  v1::CreateTokenResponse viewer;
  ASSERT_TRUE(
      cluster_.CtlJson({"token", "create", "dash", "--role", "viewer", "--group", "7"}, &viewer));
  HttpResult me = Post("JobAdmin/WhoAmI", "{}", viewer.secret());
  ASSERT_EQ(me.status, 200) << me.body;
  v1::WhoAmIResponse who = Parse<v1::WhoAmIResponse>(me);
  EXPECT_EQ(who.role(), v1::ROLE_VIEWER);
  ASSERT_EQ(who.grants().group_ids_size(), 1);
  EXPECT_EQ(who.grants().group_ids(0), 7);
  EXPECT_EQ(Parse<v1::WhoAmIResponse>(Admin("JobAdmin/WhoAmI", "")).role(), v1::ROLE_ADMIN);
}

// The console's files: its pages for any route of the app, hashed assets
// cached, nothing outside its directory.
TEST_F(HttpApiTest, TheConsoleIsServedFromItsDirectory) {
  for (const char* path : {"/", "/jobs/12", "/runs"}) {
    HttpResult page = HttpCall("GET", base_ + path, "");
    EXPECT_EQ(page.status, 200) << path;
    EXPECT_EQ(page.content_type, "text/html; charset=utf-8") << path;
    EXPECT_NE(page.body.find("<title>gnomon</title>"), std::string::npos) << path;
  }
  HttpResult asset = HttpCall("GET", base_ + "/assets/app-1234.js", "");
  EXPECT_EQ(asset.status, 200);
  EXPECT_EQ(asset.content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(HttpCall("GET", base_ + "/assets/missing.js", "").status, 404);
  EXPECT_EQ(
      HttpCall("GET", base_ + "/a/../../../../etc/passwd", "", {}, {}, /*path_as_is=*/true).status,
      404);
  // The API is not a file.
  EXPECT_EQ(HttpCall("GET", base_ + "/v1/JobAdmin/ListJobs", "").status, 405);
}

}  // namespace
}  // namespace gnomon

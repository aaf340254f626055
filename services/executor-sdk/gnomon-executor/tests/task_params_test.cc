// Job params of the http and command handlers: strict JSON, clear messages
// naming the field, no long value repeated.
#include "services/executor-sdk/gnomon-executor/task_params.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace gnomon::generic_executor {
namespace {

void ExpectInvalid(const absl::Status& s, const std::string& naming) {
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find(naming), std::string::npos) << "expected '" << naming << "' in " << s;
}

TEST(HttpTaskParamsTest, FullTaskParses) {
  absl::StatusOr<v1::HttpTask> task = ParseHttpTask(R"({
    "method": "post", "url": "https://api.example.com/v1/x?a=1",
    "headers": {"Content-Type": "application/json", "X-Empty": ""},
    "body": "{\"day\":1}", "timeout": "2.5s", "expectedStatuses": [200, 202],
    "maxResponseBytes": 100, "followRedirects": true, "maxRedirects": 2})");
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->method(), "POST");
  EXPECT_EQ(task->url(), "https://api.example.com/v1/x?a=1");
  EXPECT_EQ(task->headers().at("Content-Type"), "application/json");
  EXPECT_EQ(task->body(), "{\"day\":1}");
  EXPECT_EQ(ToDuration(task->timeout()), absl::Milliseconds(2500));
  EXPECT_EQ(task->expected_statuses_size(), 2);
  EXPECT_TRUE(task->follow_redirects());
}

TEST(HttpTaskParamsTest, SnakeCaseNamesAndDefaults) {
  absl::StatusOr<v1::HttpTask> task =
      ParseHttpTask(R"({"url": "http://a.example", "expected_statuses": [204]})");
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->method(), "GET");
  EXPECT_FALSE(task->has_timeout());
  EXPECT_EQ(task->expected_statuses(0), 204);
}

TEST(HttpTaskParamsTest, UnknownFieldIsRefusedByName) {
  ExpectInvalid(ParseHttpTask(R"({"url": "http://a.example", "expectStatus": [200]})").status(),
                "expectStatus");
}

TEST(HttpTaskParamsTest, MissingOrEmptyUrl) {
  ExpectInvalid(ParseHttpTask(R"({"method": "GET"})").status(), "url is required");
  ExpectInvalid(ParseHttpTask("").status(), "empty");
  ExpectInvalid(ParseHttpTask("not json").status(), "gnomon.v1.HttpTask");
  ExpectInvalid(ParseHttpTask(R"(["http://a.example"])").status(), "gnomon.v1.HttpTask");
}

TEST(HttpTaskParamsTest, BadMethodIsRefusedWithoutItsWholeValue) {
  ExpectInvalid(ParseHttpTask(R"({"url": "http://a.example", "method": "TRACE"})").status(),
                "method 'TRACE' is not one of");
  const std::string long_method(5000, 'X');
  absl::Status s =
      ParseHttpTask(absl::StrCat(R"({"url": "http://a.example", "method": ")", long_method, "\"}"))
          .status();
  ExpectInvalid(s, "method");
  EXPECT_LT(s.message().size(), 400u) << "a long value was echoed";
}

TEST(HttpTaskParamsTest, HeadersAreCheckedForInjection) {
  ExpectInvalid(
      ParseHttpTask(R"({"url": "http://a.example", "headers": {"X-A": "1\r\nX-Evil: 2"}})")
          .status(),
      "X-A holds a CR, LF or NUL");
  ExpectInvalid(
      ParseHttpTask(R"({"url": "http://a.example", "headers": {"Bad Name": "1"}})").status(),
      "not a header name");
  ExpectInvalid(
      ParseHttpTask(R"({"url": "http://a.example", "headers": {"host": "internal"}})").status(),
      "host is set by the executor");
}

TEST(HttpTaskParamsTest, RangesAreChecked) {
  ExpectInvalid(ParseHttpTask(R"({"url": "http://a.example", "body": "x"})").status(),
                "body must be empty for GET");
  ExpectInvalid(ParseHttpTask(R"({"url": "http://a.example", "timeout": "0s"})").status(),
                "timeout");
  ExpectInvalid(ParseHttpTask(R"({"url": "http://a.example", "timeout": "7200s"})").status(),
                "timeout");
  ExpectInvalid(ParseHttpTask(R"({"url": "http://a.example", "expectedStatuses": [42]})").status(),
                "expected_statuses: 42");
  ExpectInvalid(
      ParseHttpTask(R"({"url": "http://a.example", "maxResponseBytes": 2000000})").status(),
      "max_response_bytes");
  ExpectInvalid(ParseHttpTask(R"({"url": "http://a.example", "maxRedirects": 3})").status(),
                "follow_redirects");
  ExpectInvalid(ParseHttpTask(R"({"url": "http://a.example", "timeout": 5})").status(), "timeout");
}

TEST(CommandTaskParamsTest, FullTaskParses) {
  absl::StatusOr<v1::CommandTask> task = ParseCommandTask(R"({
    "argv": ["/usr/bin/env", "-0"], "env": {"REPORT_DAY": "today"},
    "workingDir": "/tmp", "timeout": "90s", "successExitCodes": [0, 3]})");
  ASSERT_TRUE(task.ok()) << task.status();
  EXPECT_EQ(task->argv_size(), 2);
  EXPECT_EQ(task->env().at("REPORT_DAY"), "today");
  EXPECT_EQ(task->working_dir(), "/tmp");
  EXPECT_EQ(ToDuration(task->timeout()), absl::Seconds(90));
  EXPECT_EQ(task->success_exit_codes(1), 3);
}

TEST(CommandTaskParamsTest, RefusesWhatWouldEscapeTheAllowList) {
  ExpectInvalid(ParseCommandTask(R"({"argv": []})").status(), "argv is required");
  ExpectInvalid(ParseCommandTask(R"({"command": "rm -rf /"})").status(), "command");
  for (const char* name : {"GNOMON_ACCESS_TOKEN", "LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV",
                           "PYTHONPATH", "NODE_OPTIONS", "GLIBC_TUNABLES", "BASH_FUNC_x%%"}) {
    ExpectInvalid(
        ParseCommandTask(absl::StrCat(R"({"argv": ["/bin/true"], "env": {")", name, R"(": "x"}})"))
            .status(),
        "env: ");
  }
  ExpectInvalid(ParseCommandTask(R"({"argv": ["/bin/true"], "env": {"1X": "x"}})").status(),
                "not a variable name");
  ExpectInvalid(ParseCommandTask(R"({"argv": ["/bin/true", "a\u0000b"]})").status(),
                "argv[1] holds a NUL");
  ExpectInvalid(ParseCommandTask(R"({"argv": ["/bin/true"], "workingDir": "tmp"})").status(),
                "working_dir must be an absolute path");
  ExpectInvalid(ParseCommandTask(R"({"argv": ["/bin/true"], "successExitCodes": [256]})").status(),
                "success_exit_codes: 256");
}

TEST(CommandTaskParamsTest, OrdinaryVariablesAreAllowed) {
  for (const char* name : {"PATH", "HOME", "REPORT_DAY", "_X", "MY_LD_PRELOAD"}) {
    EXPECT_FALSE(IsRefusedEnvironmentName(name)) << name;
  }
}

}  // namespace
}  // namespace gnomon::generic_executor

// The http and command handlers in a real SDK executor (fake registry, log
// service and Dispatch), against a loopback HTTP server and real programs.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "services/common/curl/curl_util.h"
#include "services/executor-sdk/gnomon-executor/command_handler.h"
#include "services/executor-sdk/gnomon-executor/http_handler.h"
#include "services/executor-sdk/tests/test_env.h"
#include "services/scheduler/alarm/testing/test_servers.h"

namespace gnomon::generic_executor {
namespace {

using executor::Executor;
using executor::kTestWait;
using executor::testing::BeanRun;
using executor::testing::DispatchClient;
using scheduler::alarm::loopback::HttpServer;

struct Outcome {
  int code = 0;
  std::string message;
  std::string log;
};

class HandlersTest : public executor::SdkTest {
 protected:
  // An executor with `http` allowed `allow` (names resolved by `dns`) and
  // `command` allowed /bin/ and /usr/bin/.
  void StartWith(const std::string& allow,
                 std::map<std::string, std::vector<std::string>> dns = {}) {
    curl::CurlGlobalInit();
    HttpHandlerOptions http{*DestinationAllowList::Parse(allow)};
    http.resolver = [dns](const std::string& host) -> absl::StatusOr<std::vector<IpAddress>> {
      auto it = dns.find(host);
      if (it == dns.end()) return absl::UnavailableError("no such host " + host);
      std::vector<IpAddress> out;
      for (const std::string& ip : it->second) out.push_back(*IpAddress::Parse(ip));
      return out;
    };
    executor_ = StartExecutor(Options(), [&](Executor& e) {
      ASSERT_TRUE(e.RegisterHandler("http", HttpHandler(std::move(http))).ok());
      ASSERT_TRUE(
          e.RegisterHandler("command", CommandHandler(*CommandAllowList::Parse("/bin/,/usr/bin/"),
                                                      absl::Milliseconds(200)))
              .ok());
    });
  }

  Outcome Run(const std::string& handler, const std::string& params,
              absl::Duration timeout = absl::ZeroDuration()) {
    const int64_t id = ++next_run_;
    DispatchClient dispatch(dispatch_);
    auto answer = dispatch.Send(
        BeanRun(id, id, handler, params, v1::BLOCK_STRATEGY_SERIAL_EXECUTION, timeout));
    EXPECT_TRUE(answer && answer->has_accepted());
    auto result = logs_.WaitForResult(id, kTestWait);
    EXPECT_TRUE(result);
    Outcome out;
    if (!result) return out;
    out.code = result->handle_code();
    out.message = result->handle_message();
    for (const v1::LogLine& line : logs_.lines(id)) absl::StrAppend(&out.log, line.text(), "\n");
    return out;
  }

  std::unique_ptr<Executor> executor_;
  int64_t next_run_ = 0;
};

TEST_F(HandlersTest, PostWithHeadersAndBodyReachesTheServer) {
  HttpServer server;
  StartWith("127.0.0.1");
  Outcome out = Run(
      "http", absl::StrCat(R"({"method": "POST", "url": ")", server.Url("/hook?k=secret"),
                           R"(", "headers": {"X-Job": "nightly", "Content-Type": "text/plain"},)",
                           R"( "body": "hello body"})"));
  EXPECT_EQ(out.code, 200) << out.message << out.log;
  EXPECT_TRUE(absl::StrContains(out.message, "HTTP 200 from POST")) << out.message;
  EXPECT_FALSE(absl::StrContains(out.message, "secret")) << "the query reached the message";
  EXPECT_TRUE(absl::StrContains(out.log, "\nok\n")) << "response body not logged: " << out.log;
  std::vector<HttpServer::Request> requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/hook?k=secret");
  EXPECT_EQ(requests[0].headers["x-job"], "nightly");
  EXPECT_EQ(requests[0].headers["content-type"], "text/plain");
  EXPECT_EQ(requests[0].body, "hello body");
  EXPECT_TRUE(absl::StartsWith(requests[0].headers["user-agent"], "gnomon-executor"));
}

TEST_F(HandlersTest, UnexpectedStatusFailsWithIt) {
  HttpServer server;
  server.SetStatuses({}, 503);
  StartWith("127.0.0.1");
  Outcome out = Run("http", absl::StrCat(R"({"url": ")", server.Url("/x"), R"("})"));
  EXPECT_EQ(out.code, 500);
  EXPECT_TRUE(absl::StrContains(out.message, "HTTP 503")) << out.message;
  EXPECT_TRUE(absl::StrContains(out.message, "expected 2xx")) << out.message;
  // An explicitly expected status succeeds.
  out = Run("http",
            absl::StrCat(R"({"url": ")", server.Url("/x"), R"(", "expectedStatuses": [503]})"));
  EXPECT_EQ(out.code, 200) << out.message;
}

TEST_F(HandlersTest, DestinationsOutsideTheListAreNeverContacted) {
  HttpServer server;
  // localhost would reach the server, but only the address is listed; the
  // rebinding name is allowed but resolves to loopback, which is not listed.
  StartWith("127.0.0.2,*.rebind.test", {{"a.rebind.test", {"127.0.0.1"}}});
  const std::string port = absl::StrCat(server.port());
  for (const std::string& url : std::vector<std::string>{
           "http://localhost:" + port + "/", "http://127.0.0.1:" + port + "/",
           "http://a.rebind.test:" + port + "/",
           std::string("http://169.254.169.254/latest/meta-data/"),
           "http://[::ffff:127.0.0.1]:" + port + "/", "ftp://127.0.0.2:" + port + "/",
           std::string("file:///etc/passwd")}) {
    Outcome out = Run("http", absl::StrCat(R"({"url": ")", url, R"("})"));
    EXPECT_EQ(out.code, 500) << url;
    EXPECT_TRUE(absl::StrContains(out.message, "not allowed") ||
                absl::StrContains(out.message, "only http:// and https://"))
        << url << ": " << out.message;
  }
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(HandlersTest, EmptyAllowListRefusesEveryRequest) {
  HttpServer server;
  StartWith("");
  Outcome out = Run("http", absl::StrCat(R"({"url": ")", server.Url("/"), R"("})"));
  EXPECT_EQ(out.code, 500);
  EXPECT_TRUE(absl::StrContains(out.message, "--http-allow")) << out.message;
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(HandlersTest, AllowedNameIsPinnedToTheCheckedAddress) {
  HttpServer server;
  StartWith("svc.test,127.0.0.1", {{"svc.test", {"127.0.0.1"}}});
  Outcome out = Run("http", absl::StrCat(R"({"url": "http://svc.test:)", server.port(), R"(/p"})"));
  EXPECT_EQ(out.code, 200) << out.message << out.log;
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].headers["host"], absl::StrCat("svc.test:", server.port()));
}

TEST_F(HandlersTest, RedirectsAreNotFollowedUnlessAskedAndEachHopIsChecked) {
  HttpServer target;
  HttpServer redirector;
  redirector.SetStatuses({}, 302);
  redirector.SetResponseHeaders({"Location: " + target.Url("/landed")});
  StartWith("127.0.0.1");
  Outcome out = Run("http", absl::StrCat(R"({"url": ")", redirector.Url("/r"), R"("})"));
  EXPECT_EQ(out.code, 500);
  EXPECT_TRUE(absl::StrContains(out.message, "HTTP 302")) << out.message;
  EXPECT_TRUE(absl::StrContains(out.message, "follow_redirects")) << out.message;
  EXPECT_TRUE(target.requests().empty());

  out =
      Run("http",
          absl::StrCat(R"({"method": "POST", "body": "b", "url": ")", redirector.Url("/r"),
                       R"(", "followRedirects": true, "headers": {"Authorization": "Bearer t"}})"));
  EXPECT_EQ(out.code, 200) << out.message << out.log;
  ASSERT_EQ(target.requests().size(), 1u);
  EXPECT_EQ(target.requests()[0].method, "GET");  // 302 after POST
  EXPECT_EQ(target.requests()[0].target, "/landed");
  // Another port is another origin: the credentials stay behind.
  EXPECT_EQ(target.requests()[0].headers.count("authorization"), 0u);

  // A hop to a destination outside the list is refused before it is made.
  redirector.SetResponseHeaders({"Location: http://169.254.169.254/latest/meta-data/"});
  out = Run("http",
            absl::StrCat(R"({"url": ")", redirector.Url("/r"), R"(", "followRedirects": true})"));
  EXPECT_EQ(out.code, 500);
  EXPECT_TRUE(absl::StrContains(out.message, "redirect refused")) << out.message;
}

TEST_F(HandlersTest, BadParamsFailNamingTheField) {
  StartWith("127.0.0.1");
  Outcome out = Run("http", R"({"url": "http://127.0.0.1:1/", "colour": "blue"})");
  EXPECT_EQ(out.code, 500);
  EXPECT_TRUE(absl::StrContains(out.message, "colour")) << out.message;
  out = Run("command", R"({"argv": ["/bin/true"], "env": {"LD_PRELOAD": "/tmp/x.so"}})");
  EXPECT_EQ(out.code, 500);
  EXPECT_TRUE(absl::StrContains(out.message, "LD_PRELOAD")) << out.message;
}

TEST_F(HandlersTest, CommandsRunWithoutAShellAndTheirExitCodeDecides) {
  StartWith("");
  Outcome out = Run("command", R"({"argv": ["/bin/echo", "hi", "$HOME", ";", "id"]})");
  EXPECT_EQ(out.code, 200) << out.message << out.log;
  EXPECT_TRUE(absl::StrContains(out.log, "\nhi $HOME ; id\n")) << out.log;

  out = Run("command", R"({"argv": ["/bin/sh", "-c", "exit 3"]})");
  EXPECT_EQ(out.code, 500);
  EXPECT_TRUE(absl::StrContains(out.message, "exited with code 3")) << out.message;
  out = Run("command", R"({"argv": ["/bin/sh", "-c", "exit 3"], "successExitCodes": [0, 3]})");
  EXPECT_EQ(out.code, 200) << out.message;

  out =
      Run("command", R"({"argv": ["/bin/sh", "-c", "echo $JOB_DAY; pwd"], "env": {"JOB_DAY": "mon"},
                           "workingDir": "/tmp"})");
  EXPECT_EQ(out.code, 200) << out.message;
  EXPECT_TRUE(absl::StrContains(out.log, "\nmon\n/tmp\n")) << out.log;
}

TEST_F(HandlersTest, CommandsOutsideTheListOrMissingAreRefused) {
  StartWith("");
  Outcome out = Run("command", R"({"argv": ["/sbin/reboot"]})");
  EXPECT_EQ(out.code, 500);
  EXPECT_TRUE(absl::StrContains(out.message, "not allowed by this executor's --command-allow"))
      << out.message;
  out = Run("command", R"({"argv": ["/bin/../sbin/reboot"]})");
  EXPECT_EQ(out.code, 500);
  EXPECT_TRUE(absl::StrContains(out.message, "absolute path without")) << out.message;
  out = Run("command", R"({"argv": ["/usr/bin/no-such-program-here"]})");
  EXPECT_EQ(out.code, 500);
  EXPECT_TRUE(absl::StrContains(out.message, "does not exist")) << out.message;
}

TEST_F(HandlersTest, CommandTimeoutStopsIt) {
  StartWith("");
  absl::Time start = absl::Now();
  Outcome out = Run("command", R"({"argv": ["/bin/sleep", "30"], "timeout": "0.3s"})");
  EXPECT_EQ(out.code, 500);
  EXPECT_TRUE(absl::StrContains(out.message, "timeout")) << out.message;
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
}

TEST(PrintableUtf8Test, KeepsTextReplacesTheRest) {
  EXPECT_EQ(PrintableUtf8("plain\ttext\r\nnext"), "plain\ttext\nnext");
  EXPECT_EQ(PrintableUtf8("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
  EXPECT_EQ(PrintableUtf8(std::string("a\0b\x01", 4)), "a?b?");
  EXPECT_EQ(PrintableUtf8("\xff\xc3(\xed\xa0\x80"),
            "?"
            "?(???");
  EXPECT_EQ(PrintableUtf8("cut \xe2\x82"), "cut ??");
}

}  // namespace
}  // namespace gnomon::generic_executor

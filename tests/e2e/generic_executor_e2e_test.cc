// gnomon-executor against a real gnomond (SQLite): jobs for its `http` and
// `command` handlers are created and triggered with gnomonctl, and their
// runs' records say what happened. The executor allows http only to
// 127.0.0.1 and commands only under /bin/ and /usr/bin/; a loopback HTTP
// server stands for the service a job calls.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "services/scheduler/alarm/testing/test_servers.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/subprocess.h"

#ifndef GENERIC_EXECUTOR_PATH
#error "GENERIC_EXECUTOR_PATH must name the gnomon-executor binary"
#endif

namespace gnomon {
namespace {

using scheduler::alarm::loopback::HttpServer;

class GenericExecutorE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    ASSERT_TRUE(cluster_.CtlJson({"group", "create", "ops"}, &group_));
    // The token through the environment, as an operator passes a secret.
    executor_ = std::make_unique<testing::Subprocess>(
        std::vector<std::string>{GENERIC_EXECUTOR_PATH, "--app=ops",
                                 absl::StrCat("--registry=", cluster_.addresses()),
                                 absl::StrCat("--spool-dir=", cluster_.dir(), "/spool-ops"),
                                 absl::StrCat("--log-dir=", cluster_.dir(), "/logs-ops"),
                                 "--http-allow=127.0.0.1", "--command-allow=/bin/,/usr/bin/"},
        std::map<std::string, std::string>{{"GNOMON_ACCESS_TOKEN", group_.access_token()}});
    ASSERT_TRUE(executor_->WaitForLine("gnomon-executor started as", absl::Seconds(30)))
        << executor_->Output();
    v1::ListExecutorsResponse online;
    ASSERT_TRUE(cluster_.AwaitOnline(group_.id(), 1, absl::Seconds(60), &online))
        << online.DebugString() << executor_->Output();
  }

  // Creates a manual job for `handler` with `params`, triggers it once and
  // waits for the run to end: its record, with the log in `log`.
  v1::Run RunJob(const std::string& handler, const std::string& params, std::string* log) {
    v1::Job job;
    EXPECT_TRUE(cluster_.CtlJson(
        {"job", "create", "--group", absl::StrCat(group_.id()), "--name",
         absl::StrCat(handler, "-", ++jobs_), "--handler", handler, "--params", params, "--manual"},
        &job));
    v1::TriggerJobResponse triggered;
    EXPECT_TRUE(cluster_.CtlJson({"job", "trigger", absl::StrCat(job.id())}, &triggered));
    if (triggered.run_ids_size() != 1) return {};
    const std::string run_id = absl::StrCat(triggered.run_ids(0));
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    v1::GetRunResponse detail;
    while (true) {
      EXPECT_TRUE(cluster_.CtlJson({"run", "get", run_id}, &detail));
      const v1::RunStatus s = detail.run().status();
      if (s == v1::RUN_STATUS_SUCCEEDED || s == v1::RUN_STATUS_FAILED) break;
      if (absl::Now() > deadline) {
        ADD_FAILURE() << "run " << run_id << " did not end: " << detail.DebugString()
                      << executor_->Output();
        break;
      }
      cluster_.PollInterval(absl::Milliseconds(100));
    }
    log->clear();
    for (const auto& l : detail.log_lines()) absl::StrAppend(log, l.text(), "\n");
    return detail.run();
  }

  testing::GnomonCluster cluster_;
  v1::Group group_;
  std::unique_ptr<testing::Subprocess> executor_;
  int jobs_ = 0;
};

TEST_F(GenericExecutorE2E, HttpPostReachesTheServerWithItsHeaderAndBody) {
  HttpServer server;
  std::string log;
  v1::Run run = RunJob("http",
                       absl::StrCat(R"({"method": "POST", "url": ")", server.Url("/reports"),
                                    R"(", "headers": {"X-Team": "ops"}, "body": "day=monday"})"),
                       &log);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED) << run.DebugString() << log;
  EXPECT_TRUE(absl::StrContains(run.handle_message(), "HTTP 200")) << run.handle_message();
  EXPECT_TRUE(absl::StrContains(log, "POST http://127.0.0.1:")) << log;
  const std::vector<HttpServer::Request> requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].target, "/reports");
  EXPECT_EQ(requests[0].headers.at("x-team"), "ops");
  EXPECT_EQ(requests[0].body, "day=monday");
}

TEST_F(GenericExecutorE2E, UnexpectedStatusFailsTheRunWithTheStatus) {
  HttpServer server;
  server.SetStatuses({}, 418);
  std::string log;
  v1::Run run = RunJob("http", absl::StrCat(R"({"url": ")", server.Url("/teapot"), R"("})"), &log);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED) << run.DebugString();
  EXPECT_TRUE(absl::StrContains(run.handle_message(), "HTTP 418")) << run.handle_message();
  EXPECT_EQ(server.requests().size(), 1u);
}

TEST_F(GenericExecutorE2E, UrlOutsideTheAllowListFailsWithoutAConnection) {
  HttpServer server;
  std::string log;
  // localhost is the same server, but only 127.0.0.1 is listed: the name is
  // refused before it is even resolved.
  v1::Run run = RunJob(
      "http", absl::StrCat(R"({"url": "http://localhost:)", server.port(), R"(/private"})"), &log);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED) << run.DebugString();
  EXPECT_TRUE(absl::StrContains(run.handle_message(), "not allowed")) << run.handle_message();
  EXPECT_TRUE(absl::StrContains(run.handle_message(), "--http-allow")) << run.handle_message();
  // The cloud metadata address: refused, never contacted (no timeout waited for).
  run = RunJob("http", R"({"url": "http://169.254.169.254/latest/meta-data/"})", &log);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED) << run.DebugString();
  EXPECT_TRUE(absl::StrContains(run.handle_message(), "link-local")) << run.handle_message();
  EXPECT_TRUE(server.requests().empty());
}

TEST_F(GenericExecutorE2E, CommandEchoSucceedsWithItsOutputInTheLog) {
  std::string log;
  v1::Run run = RunJob("command", R"({"argv": ["/bin/echo", "hi"]})", &log);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED) << run.DebugString() << log;
  EXPECT_TRUE(absl::StrContains(log, "\nhi\n") || absl::StartsWith(log, "hi\n")) << log;
}

TEST_F(GenericExecutorE2E, CommandExitCodeFailsTheRunNamingIt) {
  std::string log;
  v1::Run run = RunJob("command", R"({"argv": ["/bin/sh", "-c", "exit 3"]})", &log);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED) << run.DebugString();
  EXPECT_TRUE(absl::StrContains(run.handle_message(), "exited with code 3"))
      << run.handle_message();
}

TEST_F(GenericExecutorE2E, CommandNotOnTheAllowListIsRefused) {
  std::string log;
  v1::Run run = RunJob("command", R"({"argv": ["/sbin/halt"]})", &log);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED) << run.DebugString();
  EXPECT_TRUE(absl::StrContains(run.handle_message(), "--command-allow")) << run.handle_message();
  EXPECT_FALSE(absl::StrContains(log, "running ")) << "the command was started: " << log;
}

}  // namespace
}  // namespace gnomon

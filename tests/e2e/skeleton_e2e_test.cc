// End to end through real processes on loopback: gnomond (all roles, SQLite),
// the sample executor and gnomonctl. An admin creates a group and a FIX_RATE
// job with gnomonctl; the scheduler fires it on the executor; results and log
// lines come back through the log service; killing the executor removes it
// from the registry.
#include <signal.h>

#include <fstream>
#include <sstream>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/subprocess.h"

namespace gnomon {
namespace {

using testing::CommandResult;
using testing::Subprocess;

// Runs against SQLite (the embedded default) and against the MariaDB server
// scripts/test starts (GNOMON_TEST_MYSQL_URL).
class SkeletonE2E : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "mysql") {
      std::optional<std::string> url = testing::FreshMysqlUrl();
      if (!url) GTEST_SKIP() << "GNOMON_TEST_MYSQL_URL is not set (scripts/test sets it)";
      flags_.push_back("--store=" + *url);
    }
  }
  std::vector<std::string> flags_;
};

INSTANTIATE_TEST_SUITE_P(Stores, SkeletonE2E, ::testing::Values("sqlite", "mysql"));

TEST_P(SkeletonE2E, FixRateJobRunsOnSampleExecutorAndDeadExecutorIsDropped) {
  testing::GnomonCluster cluster(flags_);
  ASSERT_TRUE(cluster.Start()) << cluster.Output();

  // gnomonctl creates the group; its access token is shown once.
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "e2e-app", "--title", "E2E"}, &group));
  ASSERT_GT(group.id(), 0);
  ASSERT_FALSE(group.access_token().empty());

  // Watch membership as a scheduler would, to see the executor come and go.
  auto registry = v1::Registry::NewStub(
      grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext watch_ctx;
  watch_ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster.admin_token()));
  v1::WatchExecutorsRequest watch_req;
  watch_req.add_app_names("e2e-app");
  auto watch = registry->WatchExecutors(&watch_ctx, watch_req);
  v1::WatchExecutorsResponse msg;
  ASSERT_TRUE(watch->Read(&msg));
  ASSERT_TRUE(msg.has_snapshot());
  EXPECT_EQ(msg.snapshot().executors_size(), 0);

  auto executor = cluster.StartExecutor("e2e-app", group.access_token());
  std::optional<std::string> listening =
      executor->WaitForLine("gnomon-sample-executor listening on", absl::Seconds(30));
  ASSERT_TRUE(listening) << executor->Output();
  const std::string executor_address(
      absl::StripAsciiWhitespace(listening->substr(listening->rfind(' ') + 1)));

  ASSERT_TRUE(watch->Read(&msg));
  ASSERT_TRUE(msg.has_change()) << msg.DebugString();
  EXPECT_EQ(msg.change().kind(), v1::EXECUTOR_CHANGE_KIND_JOINED);
  EXPECT_EQ(msg.change().executor().address(), executor_address);
  EXPECT_THAT(msg.change().executor().handlers(), ::testing::Contains("demo"));

  v1::Job job;
  ASSERT_TRUE(cluster.CtlJson({"job", "create", "--group", absl::StrCat(group.id()), "--handler",
                               "demo", "--every", "1s", "--params", "hello-e2e", "--route",
                               "first", "--start"},
                              &job));
  ASSERT_GT(job.id(), 0);
  EXPECT_EQ(job.state(), v1::JOB_STATE_RUNNING);

  // At least three successful runs, recorded with times, executor and logs.
  v1::ListRunsResponse runs;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  int succeeded = 0;
  while (absl::Now() < deadline) {
    ASSERT_TRUE(cluster.CtlJson({"run", "list", "--job", absl::StrCat(job.id())}, &runs));
    succeeded = 0;
    for (const v1::Run& r : runs.runs()) succeeded += r.status() == v1::RUN_STATUS_SUCCEEDED;
    if (succeeded >= 3) break;
    cluster.PollInterval(absl::Milliseconds(200));
  }
  ASSERT_GE(succeeded, 3) << runs.DebugString() << cluster.Output() << executor->Output();
  for (const v1::Run& r : runs.runs()) {
    if (r.status() != v1::RUN_STATUS_SUCCEEDED) continue;
    EXPECT_EQ(r.trigger_type(), v1::TRIGGER_TYPE_FIX_RATE);
    EXPECT_EQ(r.handle_code(), 200);
    EXPECT_EQ(r.executor_address(), executor_address);
    EXPECT_EQ(r.params(), "hello-e2e");
    EXPECT_TRUE(r.has_scheduled_time());
    EXPECT_TRUE(r.has_start_time());
    EXPECT_TRUE(r.has_end_time());
    v1::GetRunResponse detail;
    ASSERT_TRUE(cluster.CtlJson({"run", "get", absl::StrCat(r.id())}, &detail));
    ASSERT_GE(detail.log_lines_size(), 1) << detail.DebugString();
    std::string all;
    for (const auto& l : detail.log_lines()) all += l.text() + "\n";
    EXPECT_NE(all.find("hello-e2e"), std::string::npos) << all;
  }

  // kill -9: the broken session removes the executor at once.
  executor->Kill(SIGKILL);
  executor->Wait();
  bool left = false;
  while (watch->Read(&msg)) {
    if (msg.has_change() && msg.change().kind() == v1::EXECUTOR_CHANGE_KIND_LEFT &&
        msg.change().executor().address() == executor_address) {
      left = true;
      break;
    }
  }
  EXPECT_TRUE(left);
  watch_ctx.TryCancel();
}

TEST_P(SkeletonE2E, BadInputIsRejectedWithTheFieldNamed) {
  testing::GnomonCluster cluster(flags_);
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "bad-input-app"}, &group));

  auto admin = v1::JobAdmin::NewStub(
      grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials()));
  auto call = [&](const v1::CreateJobRequest& req) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster.admin_token()));
    v1::Job out;
    return admin->CreateJob(&ctx, req, &out);
  };
  v1::CreateJobRequest good;
  good.mutable_job()->set_group_id(group.id());
  good.mutable_job()->mutable_bean()->set_handler("demo");
  good.mutable_job()->mutable_schedule()->mutable_fix_rate()->set_seconds(1);

  struct Case {
    std::string name;
    std::function<void(v1::CreateJobRequest&)> mutate;
    grpc::StatusCode code;
    std::string field;
  };
  std::vector<Case> cases = {
      {"unknown group", [](auto& r) { r.mutable_job()->set_group_id(999); },
       grpc::StatusCode::NOT_FOUND, "job.group_id"},
      {"empty handler", [](auto& r) { r.mutable_job()->mutable_bean()->set_handler(""); },
       grpc::StatusCode::INVALID_ARGUMENT, "job.bean.handler"},
      {"zero interval",
       [](auto& r) { r.mutable_job()->mutable_schedule()->mutable_fix_rate()->set_seconds(0); },
       grpc::StatusCode::INVALID_ARGUMENT, "fix_rate"},
      {"negative interval",
       [](auto& r) { r.mutable_job()->mutable_schedule()->mutable_fix_rate()->set_seconds(-5); },
       grpc::StatusCode::INVALID_ARGUMENT, "fix_rate"},
      {"oversized params",
       [](auto& r) { r.mutable_job()->set_params(std::string(64 * 1024 + 1, 'x')); },
       grpc::StatusCode::INVALID_ARGUMENT, "job.params"},
  };
  for (const Case& c : cases) {
    v1::CreateJobRequest req = good;
    c.mutate(req);
    grpc::Status s = call(req);
    EXPECT_EQ(s.error_code(), c.code) << c.name << ": " << s.error_message();
    EXPECT_NE(s.error_message().find(c.field), std::string::npos) << c.name << ": " << s.error_message();
  }
  // Nothing was written, and the server is still serving.
  v1::ListJobsResponse jobs;
  ASSERT_TRUE(cluster.CtlJson({"job", "list"}, &jobs));
  EXPECT_EQ(jobs.jobs_size(), 0);
  EXPECT_TRUE(call(good).ok());

  // An unknown job id, through gnomonctl: the code and field reach stderr.
  CommandResult r = cluster.Ctl({"job", "get", "4242"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("NOT_FOUND"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("job_id"), std::string::npos) << r.err;
  r = cluster.Ctl({"job", "start", "4242"});
  EXPECT_NE(r.err.find("NOT_FOUND"), std::string::npos) << r.err;

  // A call without a valid admin token is refused.
  CommandResult anon = testing::RunCommand({GNOMONCTL_PATH, "--server", cluster.address(),
                                            "--token", "not-a-token", "group", "list"});
  EXPECT_EQ(anon.exit_code, 1);
  EXPECT_NE(anon.err.find("UNAUTHENTICATED"), std::string::npos) << anon.err;
}

}  // namespace
}  // namespace gnomon

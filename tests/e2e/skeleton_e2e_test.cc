// End to end through real processes on loopback: gnomond (all roles, SQLite),
// the sample executor and gnomonctl. An admin creates a group and a FIX_RATE
// job with gnomonctl; the scheduler fires it on the executor; results and log
// lines come back through the log service; killing the executor removes it
// from the registry.
#include <signal.h>

#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/log.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/subprocess.h"

namespace gnomon {
namespace {

using testing::CommandResult;

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
      executor->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30));
  ASSERT_TRUE(listening) << executor->Output();
  const std::string executor_address(
      absl::StripAsciiWhitespace(listening->substr(listening->rfind(' ') + 1)));

  ASSERT_TRUE(watch->Read(&msg));
  ASSERT_TRUE(msg.has_change()) << msg.DebugString();
  EXPECT_EQ(msg.change().kind(), v1::EXECUTOR_CHANGE_KIND_JOINED);
  EXPECT_EQ(msg.change().executor().address(), executor_address);
  EXPECT_THAT(msg.change().executor().handlers(), ::testing::Contains("demo"));

  v1::Job job;
  ASSERT_TRUE(
      cluster.CtlJson({"job", "create", "--group", absl::StrCat(group.id()), "--handler", "demo",
                       "--every", "1s", "--params", "hello-e2e", "--route", "first", "--start"},
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

// Executors report in batches: one message carries many items and one
// message acknowledges them; a message with a bad item is refused whole.
TEST_P(SkeletonE2E, ReportBatchesAreAckedTogetherAndABadOneStoresNothing) {
  testing::GnomonCluster cluster(flags_);
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "report-app"}, &group));
  v1::Job job;
  ASSERT_TRUE(cluster.CtlJson(
      {"job", "create", "--group", absl::StrCat(group.id()), "--handler", "demo", "--every", "1h"},
      &job));
  // A manual run (no executor: it fails at once, which is fine for its log).
  auto admin = v1::JobAdmin::NewStub(
      grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext trigger_ctx;
  trigger_ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster.admin_token()));
  v1::TriggerJobRequest trigger;
  trigger.set_job_id(job.id());
  v1::TriggerJobResponse triggered;
  ASSERT_TRUE(admin->TriggerJob(&trigger_ctx, trigger, &triggered).ok());
  ASSERT_EQ(triggered.run_ids_size(), 1);
  const int64_t run_id = triggered.run_ids(0);

  auto logs = v1::LogService::NewStub(
      grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials()));
  auto line_item = [&](uint64_t sequence, const std::string& text) {
    v1::ReportItem item;
    item.set_sequence(sequence);
    item.mutable_log()->set_run_id(run_id);
    v1::LogLine* line = item.mutable_log()->add_lines();
    line->set_line_number(1);
    line->set_text(text);
    return item;
  };
  auto open = [&](grpc::ClientContext* ctx) {
    ctx->AddMetadata(std::string(kAccessTokenKey), group.access_token());
    ctx->AddMetadata(std::string(kAppNameKey), "report-app");
    return logs->ReportResults(ctx);
  };
  {
    grpc::ClientContext ctx;
    auto stream = open(&ctx);
    v1::ReportResultsRequest bad;
    *bad.add_items() = line_item(1, "refused");
    bad.add_items()->set_sequence(2);  // No item set.
    ASSERT_TRUE(stream->Write(bad));
    v1::ReportResultsResponse none;
    EXPECT_FALSE(stream->Read(&none));
    grpc::Status status = stream->Finish();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    EXPECT_THAT(status.error_message(), ::testing::HasSubstr("items[1]: no item set"));
  }
  {
    grpc::ClientContext ctx;
    auto stream = open(&ctx);
    v1::ReportResultsRequest good;
    *good.add_items() = line_item(1, "kept");
    good.add_items()->set_sequence(2);
    good.mutable_items(1)->mutable_started()->set_run_id(run_id + 1000);  // No such run.
    ASSERT_TRUE(stream->Write(good));
    v1::ReportResultsResponse acks;
    ASSERT_TRUE(stream->Read(&acks));
    ASSERT_EQ(acks.acks_size(), 2);
    EXPECT_EQ(acks.acks(0).sequence(), 1u);
    EXPECT_EQ(acks.acks(0).run_id(), run_id);
    EXPECT_EQ(acks.acks(0).ack(), v1::REPORT_ACK_APPLIED);
    EXPECT_EQ(acks.acks(1).sequence(), 2u);
    EXPECT_EQ(acks.acks(1).ack(), v1::REPORT_ACK_UNKNOWN_RUN);
    stream->WritesDone();
    EXPECT_TRUE(stream->Finish().ok());
  }
  // Line 1 is the accepted batch's: nothing of the refused one was stored.
  grpc::ClientContext read_ctx;
  read_ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster.admin_token()));
  v1::StreamRunLogRequest read;
  read.set_run_id(run_id);
  auto lines = logs->StreamRunLog(&read_ctx, read);
  std::vector<std::string> texts;
  for (v1::LogLine line; lines->Read(&line);) texts.push_back(line.text());
  EXPECT_TRUE(lines->Finish().ok());
  EXPECT_THAT(texts, ::testing::ElementsAre("kept"));
}

TEST_P(SkeletonE2E, BatchCreateStoresAllJobsOrNoneAndStartsThemFiring) {
  testing::GnomonCluster cluster(flags_);
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "batch-app"}, &group));
  auto admin = v1::JobAdmin::NewStub(
      grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials()));
  auto call = [&](const v1::BatchCreateJobsRequest& req, v1::BatchCreateJobsResponse* out) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster.admin_token()));
    return admin->BatchCreateJobs(&ctx, req, out);
  };
  v1::BatchCreateJobsRequest req;
  for (int i = 0; i < 1000; ++i) {
    v1::CreateJobRequest* r = req.add_requests();
    r->mutable_job()->set_group_id(group.id());
    r->mutable_job()->set_description(absl::StrCat("batch ", i));
    r->mutable_job()->mutable_bean()->set_handler("noop");
    r->mutable_job()->mutable_schedule()->mutable_cron()->set_expression("* * * * * ?");
    r->set_start(true);
  }
  // One bad job refuses the whole batch, naming its index; nothing is stored.
  v1::BatchCreateJobsRequest bad = req;
  bad.mutable_requests(3)->mutable_job()->mutable_schedule()->mutable_cron()->set_expression(
      "nope");
  v1::BatchCreateJobsResponse out;
  grpc::Status s = call(bad, &out);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << s.error_message();
  EXPECT_NE(s.error_message().find("requests[3].job.schedule.cron.expression"), std::string::npos)
      << s.error_message();
  v1::BatchCreateJobsRequest too_many = req;
  *too_many.add_requests() = req.requests(0);
  s = call(too_many, &out);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("requests: at most 1000 items"), std::string::npos)
      << s.error_message();
  v1::ListJobsResponse jobs;
  ASSERT_TRUE(cluster.CtlJson({"job", "list"}, &jobs));
  EXPECT_EQ(jobs.jobs_size(), 0);

  // The good batch: every job stored in order, running, and firing.
  s = call(req, &out);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(out.jobs_size(), 1000);
  for (int i = 0; i < 1000; ++i) {
    EXPECT_GT(out.jobs(i).id(), 0);
    EXPECT_EQ(out.jobs(i).description(), absl::StrCat("batch ", i));
    EXPECT_EQ(out.jobs(i).state(), v1::JOB_STATE_RUNNING);
  }
  const std::string last = absl::StrCat(out.jobs(999).id());
  v1::ListRunsResponse runs;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  do {
    cluster.PollInterval(absl::Milliseconds(200));
    ASSERT_TRUE(cluster.CtlJson({"run", "list", "--job", last}, &runs));
  } while (runs.runs_size() == 0 && absl::Now() < deadline);
  EXPECT_GT(runs.runs_size(), 0) << "the last job of the batch never fired";
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
    EXPECT_NE(s.error_message().find(c.field), std::string::npos)
        << c.name << ": " << s.error_message();
  }
  // Nothing was written, and the server is still serving.
  v1::ListJobsResponse jobs;
  ASSERT_TRUE(cluster.CtlJson({"job", "list"}, &jobs));
  EXPECT_EQ(jobs.jobs_size(), 0);
  EXPECT_TRUE(call(good).ok());

  // An unknown job id, through gnomonctl: the code and field reach stderr.
  CommandResult r = cluster.Ctl({"job", "get", "4242"});
  EXPECT_EQ(r.exit_code, 3);  // docs/operations.md, "gnomonctl exit codes"
  EXPECT_NE(r.err.find("NOT_FOUND"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("job_id"), std::string::npos) << r.err;
  r = cluster.Ctl({"job", "start", "4242"});
  EXPECT_NE(r.err.find("NOT_FOUND"), std::string::npos) << r.err;

  // A call without a valid admin token is refused.
  CommandResult anon = testing::RunCommand(
      {GNOMONCTL_PATH, "--server", cluster.address(), "--token", "not-a-token", "group", "list"});
  EXPECT_EQ(anon.exit_code, 4);
  EXPECT_NE(anon.err.find("UNAUTHENTICATED"), std::string::npos) << anon.err;
}

// Every binary says which version it is.
TEST(Binaries, PrintTheirVersion) {
  for (const auto& [path, name] : std::vector<std::pair<std::string, std::string>>{
           {GNOMOND_PATH, "gnomond"},
           {GNOMONCTL_PATH, "gnomonctl"},
           {SAMPLE_EXECUTOR_PATH, "gnomon-sample-executor"}}) {
    CommandResult r = testing::RunCommand({path, "--version"});
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out.rfind(name + " 0.", 0), 0u) << name << ": " << r.out;
  }
}

// gnomonctl with no connection flags: a context of its config file (found
// through HOME) names the server and the token file; the environment
// overrides the context and flags override both (docs/cli.md).
TEST(GnomonctlContext, ConnectsWithoutFlagsAndYieldsToEnvironmentAndFlags) {
  testing::GnomonCluster cluster;
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  testing::TempDir home;
  const std::string token_file = home.path() + "/admin.token";
  std::ofstream(token_file) << cluster.admin_token() << "\n";
  std::map<std::string, std::string> env = {{"HOME", home.path()},
                                            {"XDG_CONFIG_HOME", ""},
                                            {"GNOMONCTL_CONFIG", ""},
                                            {"GNOMON_SERVER", ""},
                                            {"GNOMON_TOKEN", ""}};
  auto ctl = [&](std::vector<std::string> args) {
    args.insert(args.begin(), GNOMONCTL_PATH);
    return testing::RunCommand(args, env);
  };
  CommandResult r = ctl(
      {"config", "set-context", "test", "--server", cluster.address(), "--token-file", token_file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream config(home.path() + "/.config/gnomon/config.yaml");
  ASSERT_TRUE(config);

  r = ctl({"group", "create", "ctx-app", "-o", "yaml"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("app_name: ctx-app\n"));
  const std::string group = [&] {
    const size_t at = r.out.find("id: \"");
    return at == std::string::npos ? "" : r.out.substr(at + 5, r.out.find('"', at + 5) - at - 5);
  }();
  ASSERT_FALSE(group.empty()) << r.out;

  // A job in Shanghai shows its next fire there; --run-timeout is the job's.
  r = ctl({"job", "create", "--group", group, "--handler", "h", "--cron", "0 0 18 * * ?", "--tz",
           "Asia/Shanghai", "--run-timeout", "30s", "--timeout", "5s", "--start"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::ContainsRegex("next fire: +[0-9-]+ 18:00:00 \\+08:00\n"));
  EXPECT_THAT(r.out, ::testing::ContainsRegex("run timeout: +30s\n"));

  // The environment beats the context, flags beat the environment.
  env["GNOMON_TOKEN"] = "not-a-token";
  r = ctl({"group", "list"});
  EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
  r = ctl({"group", "list", "--token", cluster.admin_token()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("ctx-app"));
  env["GNOMON_TOKEN"] = "";

  // Another context, chosen per command with --context or made current.
  std::ofstream(home.path() + "/stale.token") << "stale\n";
  ASSERT_EQ(ctl({"config", "set-context", "stale", "--server", cluster.address(), "--token-file",
                 home.path() + "/stale.token"})
                .exit_code,
            0);
  EXPECT_EQ(ctl({"group", "list", "--context", "stale"}).exit_code, 4);
  EXPECT_EQ(ctl({"group", "list"}).exit_code, 0);
  ASSERT_EQ(ctl({"config", "use-context", "stale"}).exit_code, 0);
  EXPECT_EQ(ctl({"config", "current-context"}).out, "stale\n");
  EXPECT_EQ(ctl({"group", "list"}).exit_code, 4);
}

}  // namespace
}  // namespace gnomon

// README.md's "A taste", run as written: gnomond (all roles, SQLite) on
// loopback, a group made with gnomonctl, the taste executor
// (examples/readme/taste_executor.cc) started with the group's app name and
// token in the environment, a cron job for its handler `invoice`, a manual
// trigger, and the run succeeding with the handler's log line. SIGTERM then
// stops the executor through Executor::Run() with exit code 0.
#include <signal.h>

#include <fstream>
#include <map>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/subprocess.h"

#ifndef TASTE_EXECUTOR_PATH
#error "TASTE_EXECUTOR_PATH must name gnomon-readme-taste_executor"
#endif

namespace gnomon {
namespace {

TEST(ReadmeTasteE2E, TasteExecutorRunsTheInvoiceJob) {
  testing::GnomonCluster cluster;
  ASSERT_TRUE(cluster.Start()) << cluster.Output();

  // gnomonctl group create billing
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "billing"}, &group));
  ASSERT_FALSE(group.access_token().empty());

  // GNOMON_APP=billing GNOMON_REGISTRY=$GNOMON_SERVER GNOMON_ACCESS_TOKEN=...
  // gnomon-readme-taste_executor
  testing::Subprocess executor(
      {TASTE_EXECUTOR_PATH},
      std::map<std::string, std::string>{{"GNOMON_APP", "billing"},
                                         {"GNOMON_REGISTRY", cluster.address()},
                                         {"GNOMON_ACCESS_TOKEN", group.access_token()}});
  ASSERT_TRUE(executor.WaitForLine("registered app \"billing\"", absl::Seconds(30)))
      << executor.Output() << cluster.Output();

  // gnomonctl job create --group ID --name nightly-invoice --handler invoice --cron '0 0 6 * * ?'
  // ...
  v1::Job job;
  ASSERT_TRUE(cluster.CtlJson(
      {"job", "create", "--group", absl::StrCat(group.id()), "--name", "nightly-invoice",
       "--handler", "invoice", "--cron", "0 0 6 * * ?", "--tz", "Europe/Berlin", "--start"},
      &job));
  ASSERT_EQ(job.state(), v1::JOB_STATE_RUNNING);

  // gnomonctl job trigger billing/nightly-invoice --params 'customer 7'
  testing::CommandResult trigger =
      cluster.Ctl({"job", "trigger", "billing/nightly-invoice", "--params", "customer 7"});
  ASSERT_EQ(trigger.exit_code, 0) << trigger.out << trigger.err;

  // gnomonctl get jobs --group ID > billing.yaml; gnomonctl apply -f billing.yaml
  testing::CommandResult got = cluster.Ctl({"get", "jobs", "--group", absl::StrCat(group.id())});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  const std::string file = cluster.dir() + "/billing.yaml";
  std::ofstream(file) << got.out;
  testing::CommandResult applied = cluster.Ctl({"apply", "-f", file});
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_EQ(applied.out, "job/billing/nightly-invoice unchanged\n");

  // gnomonctl run list --job ID: polled until the run has ended.
  v1::ListRunsResponse runs;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  std::optional<v1::Run> ended;
  while (!ended && absl::Now() < deadline) {
    ASSERT_TRUE(cluster.CtlJson({"run", "list", "--job", absl::StrCat(job.id())}, &runs));
    for (const v1::Run& r : runs.runs()) {
      if (r.status() == v1::RUN_STATUS_SUCCEEDED || r.status() == v1::RUN_STATUS_FAILED) ended = r;
    }
    if (!ended) cluster.PollInterval(absl::Milliseconds(200));
  }
  ASSERT_TRUE(ended) << runs.DebugString() << executor.Output() << cluster.Output();
  EXPECT_EQ(ended->status(), v1::RUN_STATUS_SUCCEEDED) << ended->DebugString();
  EXPECT_EQ(ended->handle_code(), 200);
  EXPECT_EQ(ended->trigger_type(), v1::TRIGGER_TYPE_MANUAL);
  EXPECT_EQ(ended->params(), "customer 7");

  // The handler's line reached the log service.
  v1::GetRunResponse detail;
  ASSERT_TRUE(cluster.CtlJson({"run", "get", absl::StrCat(ended->id())}, &detail));
  std::string all;
  for (const auto& l : detail.log_lines()) all += l.text() + "\n";
  EXPECT_NE(all.find("invoicing customer 7"), std::string::npos) << all;

  // Run() returns after SIGTERM and main returns 0.
  executor.Kill(SIGTERM);
  EXPECT_EQ(executor.Wait(), 0) << executor.Output();
}

}  // namespace
}  // namespace gnomon

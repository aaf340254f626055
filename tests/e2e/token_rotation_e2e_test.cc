// Rotating a group's access token without downtime (docs/operations.md,
// "Credentials"): the replaced token keeps working for the grace period —
// running executors keep getting runs and are told to restart — the new
// token works at once, and once the grace is over the old one is refused.
#include <set>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

class TokenRotationE2E : public ::testing::Test {
 protected:
  // Runs of `job` that succeeded after `since`, on which executors.
  std::set<std::string> SucceededSince(int64_t job, absl::Time since, int* count, int* failed) {
    v1::ListRunsResponse runs;
    EXPECT_TRUE(
        cluster_.CtlJson({"run", "list", "--job", absl::StrCat(job), "--limit", "200"}, &runs));
    std::set<std::string> on;
    *count = 0;
    *failed = 0;
    for (const v1::Run& r : runs.runs()) {
      if (absl::FromUnixSeconds(r.trigger_time().seconds()) < since) continue;
      if (r.status() == v1::RUN_STATUS_SUCCEEDED) {
        ++*count;
        on.insert(r.executor_address());
      }
      *failed += r.status() == v1::RUN_STATUS_FAILED;
    }
    return on;
  }

  testing::GnomonCluster cluster_;
};

TEST_F(TokenRotationE2E, TheReplacedTokenWorksUntilItsGraceEndsAndTheNewOneAtOnce) {
  ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
  v1::Group group;
  ASSERT_TRUE(cluster_.CtlJson({"group", "create", "rotating"}, &group));
  auto old_executor = cluster_.StartExecutor("rotating", group.access_token());
  std::optional<std::string> line = old_executor->WaitForLine("started as", absl::Seconds(30));
  ASSERT_TRUE(line) << old_executor->Output();
  const std::string old_address = line->substr(line->rfind(' ') + 1);
  v1::Job job;
  ASSERT_TRUE(cluster_.CtlJson({"job", "create", "--group", absl::StrCat(group.id()), "--handler",
                                "demo", "--every", "1s", "--route", "round", "--start"},
                               &job));

  // Rotated with an hour's grace: the new token is shown with the old one's end.
  const absl::Time rotated = absl::Now();
  testing::CommandResult rotate =
      cluster_.Ctl({"group", "rotate-token", absl::StrCat(group.id()), "--grace", "1h"});
  ASSERT_EQ(rotate.exit_code, 0) << rotate.err;
  EXPECT_NE(rotate.out.find("previous token"), std::string::npos) << rotate.out;
  EXPECT_NE(rotate.out.find("replaced token is accepted until"), std::string::npos) << rotate.out;
  v1::Group fresh;
  ASSERT_TRUE(cluster_.CtlJson({"group", "get", absl::StrCat(group.id())}, &fresh));
  EXPECT_TRUE(fresh.has_previous_token_expire_time());
  EXPECT_TRUE(fresh.access_token().empty() && fresh.previous_access_token().empty());
  // "access token:   <token>" in the details gnomonctl prints.
  const size_t token_at = rotate.out.find("access token:");
  ASSERT_NE(token_at, std::string::npos) << rotate.out;
  std::string new_token = rotate.out.substr(token_at + std::string("access token:").size());
  new_token = new_token.substr(new_token.find_first_not_of(' '));
  new_token = new_token.substr(0, new_token.find('\n'));

  // The running executor is told, and keeps running the job beside one
  // started with the new token.
  EXPECT_TRUE(old_executor->WaitForLine("was rotated", absl::Seconds(30)))
      << old_executor->Output();
  auto new_executor =
      cluster_.StartExecutor("rotating", new_token,
                             {absl::StrCat("--spool-dir=", cluster_.dir(), "/spool-new"),
                              absl::StrCat("--log-dir=", cluster_.dir(), "/logs-new")});
  line = new_executor->WaitForLine("started as", absl::Seconds(30));
  ASSERT_TRUE(line) << new_executor->Output();
  const std::string new_address = line->substr(line->rfind(' ') + 1);
  int succeeded = 0;
  int failed = 0;
  std::set<std::string> on;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline) {
    on = SucceededSince(job.id(), rotated, &succeeded, &failed);
    if (on.count(old_address) > 0 && on.count(new_address) > 0 && succeeded >= 6) break;
    cluster_.PollInterval(absl::Milliseconds(250));
  }
  EXPECT_EQ(on.count(old_address), 1u) << old_address << "\n" << cluster_.Output();
  EXPECT_EQ(on.count(new_address), 1u) << new_address;
  EXPECT_EQ(failed, 0) << cluster_.Output();

  // Rotated again without grace: both earlier tokens stop working, and the
  // executors using them are refused within a recheck (10 s).
  ASSERT_EQ(
      cluster_.Ctl({"group", "rotate-token", absl::StrCat(group.id()), "--grace", "0s"}).exit_code,
      0);
  EXPECT_TRUE(old_executor->WaitForLine("no longer accepted", absl::Seconds(30)))
      << old_executor->Output();
  EXPECT_TRUE(new_executor->WaitForLine("no longer accepted", absl::Seconds(30)))
      << new_executor->Output();
}

// A manual group's executors connect out like any other. One left on a
// rotated-out token loses its stream at the next credential check (10 s):
// a run for it then fails saying it is not connected (not "executor lost"),
// and nothing ran.
TEST_F(TokenRotationE2E, AManualGroupsExecutorOnTheOldTokenIsDisconnectedAndTheRunSaysWhy) {
  ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
  v1::Group group;
  ASSERT_TRUE(cluster_.CtlJson({"group", "create", "rot-manual"}, &group));
  auto executor = cluster_.StartExecutor("rot-manual", group.access_token());
  auto line = executor->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30));
  ASSERT_TRUE(line) << executor->Output();
  const std::string address(absl::StripAsciiWhitespace(line->substr(line->rfind(' ') + 1)));
  ASSERT_EQ(
      cluster_.Ctl({"group", "update", absl::StrCat(group.id()), "--addresses", address}).exit_code,
      0);
  v1::Job job;
  ASSERT_TRUE(cluster_.CtlJson(
      {"job", "create", "--group", absl::StrCat(group.id()), "--handler", "demo", "--manual"},
      &job));
  ASSERT_EQ(
      cluster_.Ctl({"group", "rotate-token", absl::StrCat(group.id()), "--grace", "0s"}).exit_code,
      0);
  ASSERT_TRUE(cluster_.gnomond()->WaitForLine(
      absl::StrCat("executor ", address, " of app \"rot-manual\" disconnected"), absl::Seconds(30)))
      << cluster_.Output();

  v1::TriggerJobResponse fired;
  ASSERT_TRUE(cluster_.CtlJson({"job", "trigger", absl::StrCat(job.id())}, &fired));
  ASSERT_EQ(fired.run_ids_size(), 1);
  v1::GetRunResponse run;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  do {
    cluster_.PollInterval(absl::Milliseconds(100));
    ASSERT_TRUE(cluster_.CtlJson({"run", "get", absl::StrCat(fired.run_ids(0))}, &run));
  } while (run.run().status() != v1::RUN_STATUS_FAILED && absl::Now() < deadline);
  ASSERT_EQ(run.run().status(), v1::RUN_STATUS_FAILED) << run.DebugString();
  EXPECT_NE(run.run().trigger_message().find("is not connected"), std::string::npos)
      << run.run().trigger_message();
  EXPECT_EQ(run.run().trigger_message().find("executor lost"), std::string::npos)
      << run.run().trigger_message();
  EXPECT_FALSE(run.run().has_start_time()) << "the refused run started";
}

}  // namespace
}  // namespace gnomon

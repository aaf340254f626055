// gnomond itself crashes and comes back (issue #29: "no run is ever failed
// for the scheduler's own restart"): one gnomond on its embedded SQLite
// store, two sample executors, 20 FIX_RATE jobs every 100 ms (200 runs/s);
// gnomond is killed with SIGKILL and, 3 s later, started again; three times. Its
// executors reconnect with their backoff (up to 5 s) after each restart;
// meanwhile the slots that fall due wait (caught up by the jobs' misfire
// policy) instead of failing "no live executor", and runs in flight on an
// executor that has not reconnected yet are not failed "executor lost".
// Every slot from each job's first to its last has exactly one run record,
// SUCCEEDED, executed exactly once (counted executor-side).
#include <csignal>
#include <memory>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/cluster_load.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

constexpr int kJobs = 20;
constexpr int64_t kPeriodMs = 100;
constexpr int kRestarts = 3;

TEST(SchedulerRestartClusterTest, RunsWaitForTheExecutorsToReconnectAndNoneFails) {
  testing::GnomonCluster cluster;  // One gnomond, embedded SQLite.
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  testing::ClusterLoad load(&cluster);
  ASSERT_TRUE(load.Start(2)) << cluster.Output();
  for (int i = 0; i < kJobs; ++i) {
    ASSERT_NE(
        load.CreateJob({"--handler", "noop", "--every", absl::StrCat(kPeriodMs, "ms"), "--misfire",
                        "catch-up", "--max-catch-up", "100000", "--misfire-threshold", "2s"}),
        0);
  }
  for (int restart = 0; restart < kRestarts; ++restart) {
    cluster.PollInterval(absl::Seconds(2));  // Load between crashes.
    cluster.Stop(0, SIGKILL);
    // Down for a while, as a pod being rescheduled is: the executors' reconnect
    // backoff grows meanwhile, so they come back a few seconds after gnomond.
    cluster.PollInterval(absl::Seconds(3));
    ASSERT_TRUE(cluster.StartReplica(0)) << cluster.Output();
    // It knew the executors before the crash, waits for those not back yet
    // (one may have reconnected while it was syncing), and says so.
    const auto said_back = [&] {
      const std::string out = cluster.gnomond()->Output();
      return absl::StrContains(out, "scheduler: executors back after") ||
             absl::StrContains(out, "scheduler: all 2 executors known before this start are back");
    };
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (!said_back() && absl::Now() < deadline) {
      cluster.PollInterval(absl::Milliseconds(100));
    }
    EXPECT_TRUE(said_back()) << cluster.gnomond()->Output();
    EXPECT_THAT(cluster.gnomond()->Output(),
                ::testing::HasSubstr(" 2 executors known before this start"));
  }
  cluster.PollInterval(absl::Seconds(4));  // Load after the last restart.
  load.StopJobs();
  ASSERT_TRUE(load.AwaitSettled(absl::Seconds(60))) << "runs still pending or running";

  const testing::SlotAudit audit = load.Audit(kPeriodMs);
  EXPECT_TRUE(audit.ExactlyOnce()) << audit << "\n" << cluster.Output();
}

}  // namespace
}  // namespace gnomon

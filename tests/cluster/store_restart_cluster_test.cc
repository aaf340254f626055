// The store goes away under load and comes back: a MariaDB server of this
// test's own (so stopping it disturbs no other test) is shut down for about
// 5 s while two replicas run FIX_RATE jobs with catch-up, then started
// again on the same port and data. Once it is back, scheduling resumes and
// the slots that fell due meanwhile are caught up (fired late, as misfires
// past the jobs' 2 s threshold): every slot from each job's first to its
// last has exactly one run record, SUCCEEDED, and was executed exactly once
// (counted executor-side). Workflow runs in flight when the store went
// away end SUCCEEDED too, each node run once and in order. Runs in the
// MariaDB mode only.
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/support/cluster_load.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/throwaway_mariadb.h"
#include "tests/support/workflow_load.h"

namespace gnomon {
namespace {

constexpr int kReplicas = 2;
constexpr int kJobs = 12;
constexpr int64_t kPeriodMs = 200;

TEST(StoreRestartClusterTest, SlotsDueWhileTheStoreWasDownAreCaughtUpOnceAndExecutedOnce) {
  testing::PrivateMariadb m = testing::StartPrivateMariadb();
  if (!m.skip.empty()) GTEST_SKIP() << m.skip;
  ASSERT_TRUE(m.status.ok()) << m.status;
  testing::ThrowawayMariadb* db = m.db.get();
  testing::GnomonCluster cluster({"--store=" + db->Url("gnomon_outage")}, kReplicas);
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  testing::ClusterLoad load(&cluster);
  ASSERT_TRUE(load.Start(2)) << cluster.Output();
  for (int i = 0; i < kJobs; ++i) {
    ASSERT_NE(
        load.CreateJob({"--handler", "noop", "--every", absl::StrCat(kPeriodMs, "ms"), "--misfire",
                        "catch-up", "--max-catch-up", "100000", "--misfire-threshold", "2s"}),
        0);
  }

  // A three-node chain of 400 ms nodes, a run started every 300 ms before
  // the outage: some are at every stage when the store goes.
  testing::WorkflowLoad flows(&cluster, &load);
  ASSERT_TRUE(flows.Create("chain", {"first", "second", "third"},
                           {{"first", "second"}, {"second", "third"}}, "400"));
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(flows.Trigger());
    cluster.PollInterval(absl::Milliseconds(300));  // Load before the outage.
  }
  ASSERT_TRUE(db->Stop().ok());
  cluster.PollInterval(absl::Seconds(5));  // The outage.
  ASSERT_TRUE(db->Resume().ok());
  const int64_t back_ms = absl::ToUnixMillis(absl::Now());
  cluster.PollInterval(absl::Seconds(5));  // Load after it.
  load.StopJobs();
  ASSERT_TRUE(load.AwaitSettled(absl::Seconds(60))) << "runs still pending or running";

  const testing::SlotAudit audit = load.Audit(kPeriodMs);
  EXPECT_GT(audit.misfired, 0) << "no slot was late past the threshold: was the store down?\n"
                               << audit;
  EXPECT_GT(audit.earliest_last_slot_ms, back_ms)
      << "a job was not scheduled after the store came back";
  EXPECT_TRUE(audit.ExactlyOnce()) << audit << "\n" << cluster.Output();
  ASSERT_TRUE(flows.AwaitEnded(absl::Seconds(60))) << "workflow runs still running";
  const testing::WorkflowAudit workflows = flows.Audit();
  EXPECT_TRUE(workflows.ExactlyOnce()) << workflows << "\n" << cluster.Output();
}

}  // namespace
}  // namespace gnomon

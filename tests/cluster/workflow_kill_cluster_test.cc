// Workflows on two replicas on one store (MariaDB under scripts/test),
// while the replica holding most partitions is kill -9'ed in the middle of
// the workflow runs and restarted: every run still ends SUCCEEDED, every
// node ran exactly once per run (one run recorded, one handler invocation
// counted executor-side), and each node was fired only after all of its
// parents had ended.
#include <signal.h>

#include "gtest/gtest.h"
#include "tests/support/cluster_load.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/workflow_load.h"

namespace gnomon {
namespace {

constexpr int kReplicas = 2;
constexpr int kRuns = 12;
constexpr int kKills = 2;

TEST(WorkflowKillClusterTest, KillingAReplicaMidRunNeitherRepeatsNorLosesNorReordersANode) {
  testing::GnomonCluster cluster(testing::ClusterStoreFlags(), kReplicas);
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  testing::ClusterLoad load(&cluster);
  ASSERT_TRUE(load.Start(2)) << cluster.Output();
  // extract_eu and extract_us in parallel, merge once both succeeded, then
  // publish and archive in parallel; each node's handler sleeps 300 ms.
  testing::WorkflowLoad flows(&cluster, &load);
  ASSERT_TRUE(flows.Create("regional", {"extract_eu", "extract_us", "merge", "publish", "archive"},
                           {{"extract_eu", "merge"},
                            {"extract_us", "merge"},
                            {"merge", "publish"},
                            {"merge", "archive"}},
                           "300"));
  for (int i = 0; i < kRuns; ++i) {
    ASSERT_TRUE(flows.Trigger());
    cluster.PollInterval(absl::Milliseconds(100));  // Runs at every stage when the kills come.
  }
  for (int kill = 0; kill < kKills; ++kill) {
    int busiest = 0;
    for (int i = 1; i < kReplicas; ++i) {
      if (cluster.HeldPartitions(i) > cluster.HeldPartitions(busiest)) busiest = i;
    }
    cluster.Stop(busiest, SIGKILL);
    cluster.PollInterval(absl::Milliseconds(500));  // Down for a while.
    ASSERT_TRUE(cluster.StartReplica(busiest)) << cluster.Output();
    cluster.PollInterval(absl::Milliseconds(700));
  }
  ASSERT_TRUE(flows.AwaitEnded(absl::Seconds(120))) << "workflow runs still running\n"
                                                    << cluster.Output();
  const testing::WorkflowAudit audit = flows.Audit();
  EXPECT_EQ(audit.runs, kRuns);
  EXPECT_TRUE(audit.ExactlyOnce()) << audit << "\n" << cluster.Output();
}

}  // namespace
}  // namespace gnomon

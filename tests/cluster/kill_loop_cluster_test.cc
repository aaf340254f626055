// Several gnomond replicas on one store, under load, while the busiest
// replica is kill -9'ed in a loop and restarted: every slot of every job,
// from its first to its last, must be recorded exactly once and executed
// exactly once. Executions are counted on the executors' side (each
// handler invocation appends its run id to a file), independently of what
// the store says. Runs on the throwaway MariaDB when GNOMON_TEST_MYSQL_URL
// is set (scripts/test sets it), else on a shared SQLite file.
#include <signal.h>

#include <random>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/support/cluster_load.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

constexpr int kReplicas = 3;
constexpr int kJobs = 24;
constexpr int64_t kPeriodMs = 200;
constexpr int kKills = 6;

TEST(KillLoopClusterTest,
     KillingTheBusiestReplicaRepeatedlyNeitherRepeatsNorLosesASlotOrAnExecution) {
  testing::GnomonCluster cluster(testing::ClusterStoreFlags(), kReplicas);
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  testing::ClusterLoad load(&cluster);
  ASSERT_TRUE(load.Start(2)) << cluster.Output();
  for (int i = 0; i < kJobs; ++i) {
    ASSERT_NE(load.CreateJob({"--handler", "noop", "--every", absl::StrCat(kPeriodMs, "ms"),
                              "--misfire", "catch-up", "--max-catch-up", "100000"}),
              0);
  }

  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> load_ms(1000, 3000);
  std::uniform_int_distribution<int> down_ms(0, 1000);
  for (int kill = 0; kill < kKills; ++kill) {
    cluster.PollInterval(absl::Milliseconds(load_ms(rng)));  // Load between kills.
    int busiest = 0;
    for (int i = 1; i < kReplicas; ++i) {
      if (cluster.HeldPartitions(i) > cluster.HeldPartitions(busiest)) busiest = i;
    }
    cluster.Stop(busiest, SIGKILL);
    cluster.PollInterval(absl::Milliseconds(down_ms(rng)));  // Down for a while.
    ASSERT_TRUE(cluster.StartReplica(busiest)) << cluster.Output();
  }
  cluster.PollInterval(absl::Seconds(3));
  load.StopJobs();
  EXPECT_TRUE(load.AwaitSettled(absl::Seconds(60))) << "runs still pending or running";

  const testing::SlotAudit audit = load.Audit(kPeriodMs);
  ASSERT_GE(audit.fewest_slots, 20) << "a job barely ran\n" << cluster.Output();
  EXPECT_TRUE(audit.ExactlyOnce()) << audit;
}

}  // namespace
}  // namespace gnomon

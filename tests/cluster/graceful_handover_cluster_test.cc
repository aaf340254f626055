// Graceful handover has no gap: a replica stopped with SIGTERM stops firing,
// sends what it recorded ahead and releases its partitions, and the others
// take them over at once instead of waiting for its leases to expire.
//
// The replicas hold 6 s leases and the jobs skip (DO_NOTHING) any slot more
// than 2 s late: ordinary scheduling never comes near that, but a
// takeover that waited for a lease to expire would, so every slot such a
// handover delayed would be missing. (With SIGKILL in place of SIGTERM this
// test fails for exactly that reason.) Each replica in turn is stopped,
// its partitions move to the others, it comes back and takes its share
// again; every slot from each job's first to its last must be recorded
// once, never as a misfire, succeed, and reach a handler once.
#include <signal.h>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/support/cluster_load.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

constexpr int kReplicas = 3;
constexpr int kJobs = 24;
constexpr int64_t kPeriodMs = 100;

std::vector<std::string> GnomondFlags() {
  std::vector<std::string> flags = testing::ClusterStoreFlags();
  // A takeover by expiry would take about 6 s, three times the threshold.
  flags.insert(flags.end(), {"--lease-ttl=6s", "--lease-renew=300ms"});
  return flags;
}

TEST(GracefulHandoverClusterTest,
     StoppingAndRestartingEachReplicaLosesNoSlotAndRepeatsNoExecution) {
  testing::GnomonCluster cluster(GnomondFlags(), kReplicas);
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  testing::ClusterLoad load(&cluster);
  ASSERT_TRUE(load.Start(2)) << cluster.Output();
  ASSERT_TRUE(cluster.AwaitPartitionsShared(absl::Seconds(30))) << cluster.Output();
  for (int i = 0; i < kJobs; ++i) {
    ASSERT_NE(load.CreateJob({"--handler", "noop", "--every", absl::StrCat(kPeriodMs, "ms"),
                              "--misfire", "do-nothing", "--misfire-threshold", "2s"}),
              0);
  }

  for (int replica = 0; replica < kReplicas; ++replica) {
    cluster.PollInterval(absl::Seconds(1));  // Load between handovers.
    cluster.Stop(replica, SIGTERM);
    ASSERT_TRUE(cluster.AwaitPartitionsShared(absl::Seconds(20)))
        << "the others did not take replica " << replica << "'s partitions\n"
        << cluster.Output();
    cluster.PollInterval(absl::Seconds(1));  // Load without it.
    ASSERT_TRUE(cluster.StartReplica(replica)) << cluster.Output();
    ASSERT_TRUE(cluster.AwaitPartitionsShared(absl::Seconds(20)))
        << "replica " << replica << " did not get its share back\n"
        << cluster.Output();
  }
  cluster.PollInterval(absl::Seconds(1));
  load.StopJobs();
  ASSERT_TRUE(load.AwaitSettled(absl::Seconds(30))) << "runs still pending or running";

  const testing::SlotAudit audit = load.Audit(kPeriodMs);
  ASSERT_GE(audit.fewest_slots, 50) << "a job barely ran\n" << cluster.Output();
  EXPECT_TRUE(audit.ExactlyOnce()) << audit;
  EXPECT_EQ(audit.misfired, 0) << audit;
}

}  // namespace
}  // namespace gnomon

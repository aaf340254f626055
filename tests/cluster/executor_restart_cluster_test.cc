// An executor kill -9'ed while runs are executing on it, and restarted on
// the same address: no run stays RUNNING (each ends within a bound), no run
// is executed twice (counted executor-side), every slot is recorded once,
// and the runs cut short end "executor lost" and are retried as new runs
// (their own records), the originals never run again. Two replicas on one
// store (MariaDB when GNOMON_TEST_MYSQL_URL is set, else a shared SQLite file).
#include <signal.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/support/cluster_load.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

constexpr int kReplicas = 2;
constexpr int kJobs = 6;
constexpr int64_t kPeriodMs = 2000;
constexpr int kRunMs = 1500;

std::vector<std::string> GnomondFlags() {
  std::vector<std::string> flags = testing::ClusterStoreFlags();
  // A run failed "executor lost" is retried this long after the verdict
  // (default 30 s, in case the executor still reports it); short here so
  // the test sees the retries.
  flags.push_back("--lost-retry-wait=2s");
  return flags;
}

class ExecutorRestartClusterTest : public ::testing::Test {
 protected:
  ExecutorRestartClusterTest() : cluster_(GnomondFlags(), kReplicas), load_(&cluster_) {}

  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    ASSERT_TRUE(load_.Start(2)) << cluster_.Output();
    for (int i = 0; i < kJobs; ++i) {
      ASSERT_NE(load_.CreateJob({"--handler", "slow", "--params", absl::StrCat(kRunMs), "--every",
                                 absl::StrCat(kPeriodMs, "ms"), "--misfire", "catch-up",
                                 "--retries", "1"}),
                0);
    }
  }

  // Every run of the jobs, by id.
  std::map<int64_t, v1::Run> AllRuns() const {
    std::map<int64_t, v1::Run> runs;
    for (int64_t job : load_.jobs()) {
      for (v1::Run& r : load_.Runs(job)) runs[r.id()] = std::move(r);
    }
    return runs;
  }

  // Polls until some executor is executing at least `n` runs (RUNNING in
  // the store, its handler invoked); that executor's index and those runs.
  std::pair<int, std::set<int64_t>> AwaitRunsExecuting(size_t n, absl::Duration limit) const {
    const absl::Time deadline = absl::Now() + limit;
    while (absl::Now() < deadline) {
      const std::map<int64_t, int> invoked = load_.Invocations();
      std::map<std::string, std::set<int64_t>> executing;  // address -> runs
      for (const auto& [id, r] : AllRuns()) {
        if (r.status() == v1::RUN_STATUS_RUNNING && invoked.count(id))
          executing[r.executor_address()].insert(id);
      }
      for (int i = 0; i < 2; ++i) {
        auto it = executing.find(load_.executor_address(i));
        if (it != executing.end() && it->second.size() >= n) return {i, it->second};
      }
      cluster_.PollInterval(absl::Milliseconds(100));
    }
    return {-1, {}};
  }

  // Polls until none of `runs` is RUNNING.
  bool AwaitEnded(const std::set<int64_t>& ids, absl::Duration limit) const {
    const absl::Time deadline = absl::Now() + limit;
    while (true) {
      const std::map<int64_t, v1::Run> runs = AllRuns();
      bool running = false;
      for (int64_t id : ids) running |= runs.at(id).status() == v1::RUN_STATUS_RUNNING;
      if (!running) return true;
      if (absl::Now() >= deadline) return false;
      cluster_.PollInterval(absl::Milliseconds(200));
    }
  }

  // After some load, stops the jobs and checks every run settled, every
  // slot was recorded and executed once, and each run in `cut_short` ended
  // "executor lost", was not executed again, and was retried once as a new
  // run that succeeded.
  void CheckOutcome(const std::set<int64_t>& cut_short) {
    cluster_.PollInterval(absl::Seconds(4));  // Load after the restart.
    load_.StopJobs();
    ASSERT_TRUE(load_.AwaitSettled(absl::Seconds(30))) << "runs still pending or running";
    const std::map<int64_t, v1::Run> runs = AllRuns();
    const std::map<int64_t, int> invoked = load_.Invocations();
    for (int64_t id : cut_short) {
      const v1::Run& run = runs.at(id);
      EXPECT_EQ(run.handle_code(), v1::HANDLE_CODE_EXECUTOR_LOST) << run.DebugString();
      EXPECT_EQ(invoked.at(id), 1) << "run " << id << " was executed again";
      int retries = 0;
      for (const auto& [retry_id, r] : runs) {
        if (r.attempt() == 0 || r.first_run_id() != id) continue;
        ++retries;
        EXPECT_NE(retry_id, id);
        EXPECT_EQ(r.status(), v1::RUN_STATUS_SUCCEEDED) << r.DebugString();
      }
      EXPECT_EQ(retries, 1) << "run " << id << " was not retried once";
    }
    const testing::SlotAudit audit = load_.Audit(kPeriodMs);
    EXPECT_GE(audit.retried, static_cast<int>(cut_short.size())) << audit;
    EXPECT_TRUE(audit.ExactlyOnce()) << audit;
  }

  testing::GnomonCluster cluster_;
  testing::ClusterLoad load_;
};

TEST_F(ExecutorRestartClusterTest,
       RunsCutShortByAnExecutorCrashEndLostAndAreRetriedAsNewRunsNeverRunTwice) {
  const auto [victim, cut_short] = AwaitRunsExecuting(3, absl::Seconds(30));
  ASSERT_GE(victim, 0) << "no executor was executing 3 runs\n" << cluster_.Output();
  load_.StopExecutor(victim, SIGKILL);
  // The scheduler fails them once the executor has been gone a while.
  ASSERT_TRUE(AwaitEnded(cut_short, absl::Seconds(30))) << "runs of the dead executor stay RUNNING";
  ASSERT_TRUE(load_.StartExecutor(victim));  // Same address, spool and invocations file.
  CheckOutcome(cut_short);
}

// A supervisor restarts it at once: the new process (a new instance at the
// same address) holds none of the old runs, so they are lost all the same.
TEST_F(ExecutorRestartClusterTest,
       RunsCutShortByAnImmediateRestartEndLostAndAreRetriedNeverRunTwice) {
  const auto [victim, cut_short] = AwaitRunsExecuting(3, absl::Seconds(30));
  ASSERT_GE(victim, 0) << "no executor was executing 3 runs\n" << cluster_.Output();
  load_.StopExecutor(victim, SIGKILL);
  ASSERT_TRUE(load_.StartExecutor(victim));  // At once, as a supervisor would.
  ASSERT_TRUE(AwaitEnded(cut_short, absl::Seconds(30)))
      << "runs cut short by the restart stay RUNNING";
  CheckOutcome(cut_short);
}

}  // namespace
}  // namespace gnomon

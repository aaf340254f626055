// Several gnomond replicas on one store, under load, while the busiest
// replica is kill -9'ed in a loop and restarted: every slot of every job,
// from its first to its last, must be recorded exactly once and executed
// exactly once. Executions are counted on the executors' side (each
// handler invocation appends its run id to a file), independently of what
// the store says. Runs on the throwaway MariaDB when GNOMON_TEST_MYSQL_URL
// is set (scripts/test sets it), else on a shared SQLite file.
#include <signal.h>

#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "services/common/client/auth_metadata.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

using google::protobuf::util::TimeUtil;

constexpr int kReplicas = 3;
constexpr int kJobs = 24;
constexpr int64_t kPeriodMs = 200;
constexpr int kKills = 6;

std::vector<std::string> StoreFlags() {
  if (auto url = testing::FreshMysqlUrl()) return {"--store=" + *url};
  return {};
}

// Partitions a replica last said it holds ("holds N of 64 partitions").
int HeldPartitions(testing::Subprocess* gnomond) {
  std::istringstream out(gnomond->Output());
  int held = 0;
  for (std::string line; std::getline(out, line);) {
    const size_t at = line.find(" holds ");
    if (at == std::string::npos) continue;
    const std::string rest = line.substr(at + 7);
    (void)absl::SimpleAtoi(rest.substr(0, rest.find(' ')), &held);
  }
  return held;
}

// run id -> handler invocations, over every executor's invocations file.
std::map<int64_t, int> Invocations(const std::vector<std::string>& files) {
  std::map<int64_t, int> count;
  for (const std::string& file : files) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      int64_t run_id = 0;
      if (absl::SimpleAtoi(line.substr(0, line.find(' ')), &run_id)) ++count[run_id];
    }
  }
  return count;
}

class KillLoopClusterTest : public ::testing::Test {
 protected:
  KillLoopClusterTest() : cluster_(StoreFlags(), kReplicas) {}

  void StartExecutors(const v1::Group& group) {
    for (int i = 0; i < 2; ++i) {
      const std::string file = absl::StrCat(cluster_.dir(), "/invocations-", i);
      invocation_files_.push_back(file);
      executors_.push_back(cluster_.StartExecutor(
          "cluster-app", group.access_token(),
          {absl::StrCat("--invocations-file=", file),
           absl::StrCat("--spool-dir=", cluster_.dir(), "/spool-", i),
           absl::StrCat("--log-dir=", cluster_.dir(), "/logs-", i)}));
      ASSERT_TRUE(executors_.back()->WaitForLine("listening on", absl::Seconds(30)))
          << executors_.back()->Output();
    }
  }

  // Waits until every replica's registry lists `n` executors of the app
  // (the load must not start while some replica cannot route yet).
  void AwaitExecutorsOnEveryReplica(size_t n) {
    for (int i = 0; i < cluster_.replicas(); ++i) {
      auto registry = v1::Registry::NewStub(
          grpc::CreateChannel(cluster_.address(i), grpc::InsecureChannelCredentials()));
      grpc::ClientContext ctx;
      ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_.admin_token()));
      ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
      v1::WatchExecutorsRequest req;
      req.add_app_names("cluster-app");
      auto watch = registry->WatchExecutors(&ctx, req);
      std::set<std::string> live;
      v1::WatchExecutorsResponse msg;
      while (live.size() < n && watch->Read(&msg)) {
        if (msg.has_snapshot()) {
          for (const v1::ExecutorInfo& e : msg.snapshot().executors()) live.insert(e.address());
        } else if (msg.change().kind() == v1::EXECUTOR_CHANGE_KIND_LEFT) {
          live.erase(msg.change().executor().address());
        } else {
          live.insert(msg.change().executor().address());
        }
      }
      ASSERT_EQ(live.size(), n) << "replica " << i << " does not see the executors";
      ctx.TryCancel();
    }
  }

  std::vector<v1::Run> Runs(int64_t job_id) {
    v1::ListRunsResponse runs;
    EXPECT_TRUE(cluster_.CtlJson({"run", "list", "--job", absl::StrCat(job_id), "--limit", "100000"}, &runs));
    return {runs.runs().begin(), runs.runs().end()};
  }

  // Polls until no run of `jobs` is PENDING or RUNNING (results reported).
  void AwaitSettled(const std::vector<int64_t>& jobs, absl::Duration limit) {
    const absl::Time deadline = absl::Now() + limit;
    while (absl::Now() < deadline) {
      bool active = false;
      for (int64_t id : jobs) {
        for (const v1::Run& r : Runs(id)) {
          active |= r.status() == v1::RUN_STATUS_PENDING || r.status() == v1::RUN_STATUS_RUNNING;
        }
        if (active) break;
      }
      if (!active) return;
      cluster_.PollInterval(absl::Milliseconds(500));
    }
  }

  testing::GnomonCluster cluster_;
  std::vector<std::unique_ptr<testing::Subprocess>> executors_;
  std::vector<std::string> invocation_files_;
};

TEST_F(KillLoopClusterTest, KillingTheBusiestReplicaRepeatedlyNeitherRepeatsNorLosesASlotOrAnExecution) {
  ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
  v1::Group group;
  ASSERT_TRUE(cluster_.CtlJson({"group", "create", "cluster-app"}, &group));
  StartExecutors(group);
  AwaitExecutorsOnEveryReplica(2);
  std::vector<int64_t> jobs;
  for (int i = 0; i < kJobs; ++i) {
    v1::Job job;
    ASSERT_TRUE(cluster_.CtlJson({"job", "create", "--group", absl::StrCat(group.id()), "--handler", "noop",
                                  "--every", absl::StrCat(kPeriodMs, "ms"), "--misfire", "catch-up",
                                  "--max-catch-up", "100000", "--start"},
                                 &job));
    jobs.push_back(job.id());
  }

  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> load_ms(1000, 3000);
  std::uniform_int_distribution<int> down_ms(0, 1000);
  for (int kill = 0; kill < kKills; ++kill) {
    cluster_.PollInterval(absl::Milliseconds(load_ms(rng)));  // Load between kills.
    int busiest = 0;
    for (int i = 1; i < kReplicas; ++i) {
      if (HeldPartitions(cluster_.gnomond(i)) > HeldPartitions(cluster_.gnomond(busiest))) busiest = i;
    }
    cluster_.Stop(busiest, SIGKILL);
    cluster_.PollInterval(absl::Milliseconds(down_ms(rng)));  // Down for a while.
    ASSERT_TRUE(cluster_.StartReplica(busiest)) << cluster_.Output();
  }
  cluster_.PollInterval(absl::Seconds(3));
  for (int64_t id : jobs) {
    testing::CommandResult r = cluster_.Ctl({"job", "stop", absl::StrCat(id)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  AwaitSettled(jobs, absl::Seconds(60));

  const std::map<int64_t, int> invoked = Invocations(invocation_files_);
  int missing = 0, repeated = 0, not_succeeded = 0, executed_twice = 0, never_executed = 0;
  std::map<std::string, int> problems;  // handle message (its first 40 chars) -> runs
  for (int64_t id : jobs) {
    std::map<int64_t, std::vector<v1::Run>> slots;  // slot -> first attempts
    for (v1::Run& r : Runs(id)) {
      if (r.attempt() == 0 && r.has_scheduled_time()) {
        slots[TimeUtil::TimestampToMilliseconds(r.scheduled_time())].push_back(r);
      }
    }
    ASSERT_GE(slots.size(), 20u) << "job " << id << " barely ran\n" << cluster_.Output();
    for (int64_t slot = slots.begin()->first; slot <= slots.rbegin()->first; slot += kPeriodMs) {
      auto it = slots.find(slot);
      if (it == slots.end()) {
        ++missing;
        continue;
      }
      if (it->second.size() > 1) ++repeated;
      const v1::Run& run = it->second.front();
      auto calls = invoked.find(run.id());
      const int n = calls == invoked.end() ? 0 : calls->second;
      if (n > 1) ++executed_twice;
      if (n == 0) ++never_executed;
      if (run.status() != v1::RUN_STATUS_SUCCEEDED) {
        ++not_succeeded;
        ++problems[run.handle_message().substr(0, 40)];
      }
    }
  }
  EXPECT_EQ(repeated, 0) << "slots recorded twice";
  EXPECT_EQ(missing, 0) << "slots lost";
  EXPECT_EQ(executed_twice, 0) << "runs executed twice";
  EXPECT_EQ(never_executed, 0) << "slots whose run never reached a handler";
  std::string why;
  for (const auto& [message, n] : problems) absl::StrAppend(&why, "\n  ", n, " x ", message);
  EXPECT_EQ(not_succeeded, 0) << why;
}

}  // namespace
}  // namespace gnomon

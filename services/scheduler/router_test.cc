#include "services/scheduler/router.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"

namespace gnomon::scheduler {
namespace {

std::vector<v1::ExecutorInfo> Executors(int n) {
  std::vector<v1::ExecutorInfo> out;
  for (int i = 0; i < n; ++i) {
    v1::ExecutorInfo e;
    e.set_address(absl::StrCat("10.0.0.", 10 + i, ":9999"));
    out.push_back(e);
  }
  return out;
}

// Answers from a fixed table: which executors are alive / idle for a job.
class TableProbe final : public ExecutorProbe {
 public:
  bool Alive(const v1::ExecutorInfo& e) override { return alive.count(e.address()) > 0; }
  bool Idle(const v1::ExecutorInfo& e, int64_t) override { return idle.count(e.address()) > 0; }
  std::set<std::string> alive, idle;
};

TEST(RouterTest, FirstAndLastFollowAddressOrder) {
  TableProbe probe;
  auto e = Executors(3);
  EXPECT_EQ(*MakeRouter(v1::ROUTE_STRATEGY_FIRST, &probe)->Pick(1, e), "10.0.0.10:9999");
  EXPECT_EQ(*MakeRouter(v1::ROUTE_STRATEGY_UNSPECIFIED, &probe)->Pick(1, e), "10.0.0.10:9999");
  EXPECT_EQ(*MakeRouter(v1::ROUTE_STRATEGY_LAST, &probe)->Pick(1, e), "10.0.0.12:9999");
}

TEST(RouterTest, RoundVisitsEveryExecutorInTurnPerJob) {
  TableProbe probe;
  auto router = MakeRouter(v1::ROUTE_STRATEGY_ROUND, &probe);
  auto e = Executors(3);
  std::vector<std::string> picks;
  for (int i = 0; i < 6; ++i) picks.push_back(*router->Pick(7, e));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(picks[i], picks[i + 3]);
  EXPECT_EQ(std::set<std::string>(picks.begin(), picks.end()).size(), 3u);
}

TEST(RouterTest, RandomUsesEveryExecutor) {
  TableProbe probe;
  auto router = MakeRouter(v1::ROUTE_STRATEGY_RANDOM, &probe);
  auto e = Executors(4);
  std::set<std::string> seen;
  for (int i = 0; i < 400; ++i) seen.insert(*router->Pick(1, e));
  EXPECT_EQ(seen.size(), 4u);
}

TEST(RouterTest, ConsistentHashIsStableAndMovesAboutOneNthOnJoinAndLeave) {
  TableProbe probe;
  auto router = MakeRouter(v1::ROUTE_STRATEGY_CONSISTENT_HASH, &probe);
  constexpr int kJobs = 10000;
  auto five = Executors(5);
  auto six = Executors(6);
  std::map<int, std::string> before, after;
  std::map<std::string, int> load;
  for (int j = 1; j <= kJobs; ++j) {
    before[j] = *router->Pick(j, five);
    EXPECT_EQ(*router->Pick(j, five), before[j]);  // Stable.
    ++load[before[j]];
  }
  // Spread: every executor holds a fair share (within ±40% of 1/N; in tenths).
  for (const auto& [addr, n] : load) {
    EXPECT_GT(n * 10, kJobs / 5 * 6) << addr;
    EXPECT_LT(n * 10, kJobs / 5 * 14) << addr;
  }
  int moved = 0;
  for (int j = 1; j <= kJobs; ++j) {
    after[j] = *router->Pick(j, six);
    if (after[j] != before[j]) {
      ++moved;
      EXPECT_EQ(after[j], six.back().address()) << "a job moved between two old executors";
    }
  }
  // A sixth executor takes about 1/6 of the jobs (±40%; in tenths).
  EXPECT_GT(moved * 10, kJobs / 6 * 6);
  EXPECT_LT(moved * 10, kJobs / 6 * 14);
  // Removing it again moves exactly those jobs back.
  for (int j = 1; j <= kJobs; ++j) EXPECT_EQ(*router->Pick(j, five), before[j]);
}

TEST(RouterTest, LeastFrequentlyUsedBalancesPerJob) {
  TableProbe probe;
  auto router = MakeRouter(v1::ROUTE_STRATEGY_LEAST_FREQUENTLY_USED, &probe);
  auto e = Executors(3);
  std::map<std::string, int> count;
  for (int i = 0; i < 9; ++i) ++count[*router->Pick(1, e)];
  for (const auto& [addr, n] : count) EXPECT_EQ(n, 3) << addr;
}

TEST(RouterTest, LeastRecentlyUsedPicksTheLongestUnused) {
  TableProbe probe;
  auto router = MakeRouter(v1::ROUTE_STRATEGY_LEAST_RECENTLY_USED, &probe);
  auto e = Executors(3);
  std::string a = *router->Pick(1, e), b = *router->Pick(1, e), c = *router->Pick(1, e);
  EXPECT_EQ(std::set<std::string>({a, b, c}).size(), 3u);
  EXPECT_EQ(*router->Pick(1, e), a);
  EXPECT_EQ(*router->Pick(1, e), b);
}

TEST(RouterTest, FailoverPicksTheFirstExecutorThatAnswers) {
  TableProbe probe;
  auto router = MakeRouter(v1::ROUTE_STRATEGY_FAILOVER, &probe);
  auto e = Executors(3);
  probe.alive = {"10.0.0.11:9999", "10.0.0.12:9999"};
  EXPECT_EQ(*router->Pick(1, e), "10.0.0.11:9999");
  probe.alive.clear();
  absl::StatusOr<std::string> none = router->Pick(1, e);
  EXPECT_THAT(none, StatusIs(absl::StatusCode::kUnavailable));
}

TEST(RouterTest, BusyoverUsesBeatStateThenIdleBeat) {
  TableProbe probe;
  auto router = MakeRouter(v1::ROUTE_STRATEGY_BUSYOVER, &probe);
  auto e = Executors(3);
  // Executors 0 and 1 report job 5 busy in their beats; 2 does not.
  for (int i = 0; i < 2; ++i) {
    auto* b = e[i].add_busy_jobs();
    b->set_job_id(5);
    b->set_running(1);
  }
  EXPECT_EQ(*router->Pick(5, e), "10.0.0.12:9999");
  EXPECT_EQ(*router->Pick(6, e), "10.0.0.10:9999");  // Other jobs are idle everywhere.
  auto* b = e[2].add_busy_jobs();
  b->set_job_id(5);
  b->set_queued(2);
  probe.idle = {"10.0.0.11:9999"};  // A stale beat: IdleBeat says it is free now.
  EXPECT_EQ(*router->Pick(5, e), "10.0.0.11:9999");
  probe.idle.clear();
  EXPECT_THAT(router->Pick(5, e), StatusIs(absl::StatusCode::kUnavailable));
}

// Answers Idle from a table like TableProbe, and records whom it asked about which job.
class RecordingProbe final : public ExecutorProbe {
 public:
  bool Alive(const v1::ExecutorInfo&) override { return true; }
  bool Idle(const v1::ExecutorInfo& e, int64_t job) override {
    asked.push_back(absl::StrCat(e.address(), " job ", job));
    return idle.count(e.address()) > 0;
  }
  std::set<std::string> idle;
  std::vector<std::string> asked;
};

// An executor's beat lists at most 1,000 busy jobs (the most loaded); during
// a burst the rest are only counted, and the list is marked partial.
void MarkBusy(v1::ExecutorInfo& e, int64_t job) {
  auto* b = e.add_busy_jobs();
  b->set_job_id(job);
  b->set_queued(3);
}

TEST(RouterTest, BusyoverAsksAnExecutorWhosePartialListDoesNotNameTheJob) {
  RecordingProbe probe;
  auto router = MakeRouter(v1::ROUTE_STRATEGY_BUSYOVER, &probe);
  auto e = Executors(2);
  // Executor 0 is in a burst: its list names job 5 and is partial.
  MarkBusy(e[0], 5);
  e[0].set_busy_job_count(25000);
  e[0].set_busy_jobs_partial(true);
  // Executor 1's list is complete: job 6 is busy there, and only job 6.
  MarkBusy(e[1], 6);
  e[1].set_busy_job_count(1);
  // Job 6 is not listed on executor 0: unknown, not idle, so it is asked.
  probe.idle = {"10.0.0.10:9999"};
  EXPECT_EQ(*router->Pick(6, e), "10.0.0.10:9999");
  EXPECT_EQ(probe.asked, std::vector<std::string>{"10.0.0.10:9999 job 6"});
  // Busy there too: then executor 1 is asked as well (its beat may be stale).
  probe.idle.clear();
  probe.asked.clear();
  EXPECT_THAT(router->Pick(6, e), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_EQ(probe.asked,
            (std::vector<std::string>{"10.0.0.10:9999 job 6", "10.0.0.11:9999 job 6"}));
  // Job 5 is listed busy on executor 0, and executor 1's complete list shows
  // it idle: taken without asking anyone.
  probe.asked.clear();
  EXPECT_EQ(*router->Pick(5, e), "10.0.0.11:9999");
  // Job 7: unknown on executor 0, idle by executor 1's complete list. An
  // executor known idle is taken before asking one whose state is unknown.
  EXPECT_EQ(*router->Pick(7, e), "10.0.0.11:9999");
  EXPECT_TRUE(probe.asked.empty());
}

TEST(RouterTest, BusyoverAsksUnlistedBeforeListedBusyExecutors) {
  RecordingProbe probe;
  auto router = MakeRouter(v1::ROUTE_STRATEGY_BUSYOVER, &probe);
  auto e = Executors(3);
  MarkBusy(e[0], 5);  // Listed busy (complete list).
  MarkBusy(e[1], 7);  // A partial list without job 5.
  e[1].set_busy_jobs_partial(true);
  MarkBusy(e[2], 5);  // Listed busy (partial list).
  e[2].set_busy_jobs_partial(true);
  EXPECT_THAT(router->Pick(5, e), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_EQ(probe.asked, (std::vector<std::string>{"10.0.0.11:9999 job 5", "10.0.0.10:9999 job 5",
                                                   "10.0.0.12:9999 job 5"}));
}

TEST(RouterTest, BusyoverDoesNotAskWhenCompleteListsShowAnIdleExecutor) {
  RecordingProbe probe;
  auto router = MakeRouter(v1::ROUTE_STRATEGY_BUSYOVER, &probe);
  auto e = Executors(3);
  for (int i = 0; i < 3; ++i) {
    for (int64_t job = 1; job <= 999; ++job) MarkBusy(e[i], job);
    e[i].set_busy_job_count(999);
  }
  MarkBusy(e[2], 1000);  // Complete lists: job 1000 is busy on 2 only.
  EXPECT_EQ(*router->Pick(1000, e), "10.0.0.10:9999");
  EXPECT_EQ(*router->Pick(1001, e), "10.0.0.10:9999");
  EXPECT_TRUE(probe.asked.empty());
}

}  // namespace
}  // namespace gnomon::scheduler

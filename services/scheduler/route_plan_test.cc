#include "services/scheduler/route_plan.h"

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace gnomon::scheduler {
namespace {

std::vector<v1::ExecutorInfo> Executors(int n) {
  std::vector<v1::ExecutorInfo> out;
  for (int i = 0; i < n; ++i)
    out.emplace_back().set_address(absl::StrCat("10.0.0.", 10 + i, ":9999"));
  return out;
}

FireSpec FireOf(v1::RouteStrategy strategy) {
  auto job = std::make_shared<v1::Job>();
  job->set_id(7);
  job->set_route_strategy(strategy);
  FireSpec f;
  f.job = std::move(job);
  return f;
}

// A retry of shard `shard` of `total`, as Followups fires it for a failed run.
FireSpec RetryOf(v1::RouteStrategy strategy, uint32_t shard, uint32_t total) {
  FireSpec f = FireOf(strategy);
  f.shard = shard;
  f.shard_total = total;
  return f;
}

// (shard index, shard total, bound executor or "" when routed) of a planned run.
using Laid = std::tuple<uint32_t, uint32_t, std::string>;
std::vector<Laid> Layout(const RoutePlan& plan) {
  std::vector<Laid> out;
  for (const PlannedRun& r : plan.runs) {
    out.emplace_back(r.shard_index, r.shard_total, r.executor.value_or(""));
  }
  return out;
}

TEST(RoutePlanTest, EveryStrategyButBroadcastMakesOneRunForTheRouterToPlace) {
  for (v1::RouteStrategy s : {v1::ROUTE_STRATEGY_UNSPECIFIED, v1::ROUTE_STRATEGY_FIRST,
                              v1::ROUTE_STRATEGY_ROUND, v1::ROUTE_STRATEGY_CONSISTENT_HASH,
                              v1::ROUTE_STRATEGY_FAILOVER, v1::ROUTE_STRATEGY_BUSYOVER}) {
    EXPECT_EQ(Layout(PlanRoute(FireOf(s), Executors(3))), (std::vector<Laid>{{0, 1, ""}}))
        << v1::RouteStrategy_Name(s);
  }
}

TEST(RoutePlanTest, BroadcastBindsOneShardToEachExecutorInAddressOrder) {
  EXPECT_EQ(Layout(PlanRoute(FireOf(v1::ROUTE_STRATEGY_SHARDING_BROADCAST), Executors(3))),
            (std::vector<Laid>{
                {0, 3, "10.0.0.10:9999"}, {1, 3, "10.0.0.11:9999"}, {2, 3, "10.0.0.12:9999"}}));
}

TEST(RoutePlanTest, BroadcastWithoutExecutorsStillMakesOneRunWithNowhereToGo) {
  // Recorded, then failed for want of an executor: the fire leaves a record.
  EXPECT_EQ(Layout(PlanRoute(FireOf(v1::ROUTE_STRATEGY_SHARDING_BROADCAST), {})),
            (std::vector<Laid>{{0, 1, ""}}));
}

TEST(RoutePlanTest, AManualTriggerOfOneShardMakesOnlyThatShardOfAsManyAsThereAreExecutors) {
  FireSpec f = FireOf(v1::ROUTE_STRATEGY_SHARDING_BROADCAST);
  f.shard = 1;
  EXPECT_EQ(Layout(PlanRoute(f, Executors(3))), (std::vector<Laid>{{1, 3, "10.0.0.11:9999"}}));
}

TEST(RoutePlanTest, AShardBeyondTheExecutorsMakesNoRun) {
  FireSpec f = FireOf(v1::ROUTE_STRATEGY_SHARDING_BROADCAST);
  f.shard = 3;
  EXPECT_TRUE(PlanRoute(f, Executors(3)).runs.empty());
}

TEST(RoutePlanTest, ABroadcastRetryKeepsItsTotalAndWrapsAroundTheExecutorsLiveNow) {
  // Shard 3 of 4 first ran when four executors were live; two are left.
  EXPECT_EQ(Layout(PlanRoute(RetryOf(v1::ROUTE_STRATEGY_SHARDING_BROADCAST, 3, 4), Executors(2))),
            (std::vector<Laid>{{3, 4, "10.0.0.11:9999"}}));
}

TEST(RoutePlanTest, ARetryOfARoutedRunIsOneRoutedRunAgain) {
  EXPECT_EQ(Layout(PlanRoute(RetryOf(v1::ROUTE_STRATEGY_ROUND, 0, 1), Executors(3))),
            (std::vector<Laid>{{0, 1, ""}}));
}

TEST(RoutePlanTest, ARetryOfAShardOfAJobNoLongerBroadcastIsRoutedWithItsShard) {
  // The job's strategy changed after its first attempt: the shard keeps its
  // place in the total, the router places it.
  EXPECT_EQ(Layout(PlanRoute(RetryOf(v1::ROUTE_STRATEGY_FIRST, 2, 3), Executors(3))),
            (std::vector<Laid>{{2, 3, ""}}));
}

TEST(RoutePlanTest, OnlyShardingBroadcastJobsAreSharded) {
  v1::Job job;
  job.set_route_strategy(v1::ROUTE_STRATEGY_SHARDING_BROADCAST);
  EXPECT_TRUE(IsShardingBroadcast(job));
  job.set_route_strategy(v1::ROUTE_STRATEGY_FIRST);
  EXPECT_FALSE(IsShardingBroadcast(job));
  job.clear_route_strategy();
  EXPECT_FALSE(IsShardingBroadcast(job));
}

}  // namespace
}  // namespace gnomon::scheduler

#include "services/scheduler/route_plan.h"

#include <algorithm>

namespace gnomon::scheduler {

bool IsShardingBroadcast(const v1::Job& job) {
  return job.route_strategy() == v1::ROUTE_STRATEGY_SHARDING_BROADCAST;
}

RoutePlan PlanRoute(const FireSpec& fire, const std::vector<v1::ExecutorInfo>& executors) {
  const bool broadcast = IsShardingBroadcast(*fire.job);
  const uint32_t total = fire.shard_total > 0 ? fire.shard_total
                         : broadcast          ? std::max<uint32_t>(1, executors.size())
                                              : 1;
  RoutePlan plan;
  for (uint32_t shard = 0; shard < total; ++shard) {
    if (fire.shard && *fire.shard != shard) continue;
    PlannedRun& run = plan.runs.emplace_back();
    run.shard_index = shard;
    run.shard_total = total;
    if (broadcast && !executors.empty()) {
      run.executor = executors[shard % executors.size()].address();
    }
  }
  return plan;
}

}  // namespace gnomon::scheduler

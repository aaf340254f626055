// RoutePlan: how one fire's runs are laid out over the executors it may use —
// how many runs to record, each one's (shard index, shard total), and where
// each one goes. It is the one place that knows what SHARDING_BROADCAST means:
// the RunRecorder records the plan's runs and Deliveries send each where
// the plan says, and neither branches on the route strategy.
//
//   RoutePlan plan = PlanRoute(fire, *executors);   // executors sorted by address
//   for (const PlannedRun& r : plan.runs) record(r.shard_index, r.shard_total);
//   ... later: r.executor ? send to *r.executor : send where the job's router picks
//
// * Every strategy but SHARDING_BROADCAST: one run (shard 0 of 1), routed at
//   dispatch by the job's router and routed again after a refusal by an
//   executor that cannot take it.
// * SHARDING_BROADCAST: one run per executor; shard i is bound to the i-th
//   executor in address order, and a refusal is final (the other executors
//   run the other shards). No executor at all still makes one run, which then
//   fails for want of an executor, so the fire leaves a record.
// * A fire narrows its runs with `shard` (only that one: a manual trigger of
//   one shard, a retry) and fixes their total with `shard_total` (a retry
//   keeps its first attempt's total even if executors joined or left since;
//   its shard then wraps around the executors live now).
//
// Thread safety: pure functions of their arguments.
#ifndef GNOMON_SERVICES_SCHEDULER_ROUTE_PLAN_H_
#define GNOMON_SERVICES_SCHEDULER_ROUTE_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gnomon/v1/common.pb.h"
#include "services/scheduler/fire_sink.h"

namespace gnomon::scheduler {

struct PlannedRun {
  uint32_t shard_index = 0;
  uint32_t shard_total = 1;
  // The executor this run is bound to (a broadcast's shard). Unset: the
  // job's router picks one among the candidates at dispatch.
  std::optional<std::string> executor;
};

struct RoutePlan {
  // In shard order. Empty when the fire asks for a shard the total lacks.
  std::vector<PlannedRun> runs;
};

// `executors` are the fire's candidates, sorted by address.
RoutePlan PlanRoute(const FireSpec& fire, const std::vector<v1::ExecutorInfo>& executors);

// Whether the job's fires run on every executor, one shard each (only such
// jobs take a shard on manual trigger, or fire children after all shards).
bool IsShardingBroadcast(const v1::Job& job);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_ROUTE_PLAN_H_

// Routing: which live executor runs a fire of a job. One strategy class per
// RouteStrategy behind the Router interface (SHARDING_BROADCAST is not a
// choice of one executor: its RoutePlan binds one shard to each of them).
//
//   std::unique_ptr<Router> r = MakeRouter(v1::ROUTE_STRATEGY_ROUND, &probe);
//   absl::StatusOr<std::string> address = r->Pick(job_id, live_executors);
//
// Thread safety: Pick is thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_ROUTER_H_
#define GNOMON_SERVICES_SCHEDULER_ROUTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gnomon/v1/common.pb.h"
#include "services/scheduler/executor_client.h"

namespace gnomon::scheduler {

// Live checks against executors, used by FAILOVER and BUSYOVER.
class ExecutorProbe {
 public:
  virtual ~ExecutorProbe() = default;
  // Executor.Beat answered OK.
  virtual bool Alive(const v1::ExecutorInfo& executor) = 0;
  // Executor.IdleBeat says the job is idle there.
  virtual bool Idle(const v1::ExecutorInfo& executor, int64_t job_id) = 0;
};

// The probe over the executors' own streams: a beat, or an idle beat, that
// answers within a second.
class ClientProbe final : public ExecutorProbe {
 public:
  explicit ClientProbe(ExecutorClient* executors) : executors_(executors) {}
  bool Alive(const v1::ExecutorInfo& executor) override;
  bool Idle(const v1::ExecutorInfo& executor, int64_t job_id) override;

 private:
  ExecutorClient* const executors_;
};

class Router {
 public:
  virtual ~Router() = default;
  // `executors` is non-empty and sorted by address. Unavailable if the
  // strategy finds none suitable (FAILOVER/BUSYOVER), naming why.
  virtual absl::StatusOr<std::string> Pick(int64_t job_id,
                                           const std::vector<v1::ExecutorInfo>& executors) = 0;
};

// The router for `strategy` (UNSPECIFIED means FIRST). `probe` must outlive it.
std::unique_ptr<Router> MakeRouter(v1::RouteStrategy strategy, ExecutorProbe* probe);

// Stable 64-bit hash (FNV-1a then a mix), identical on every replica.
uint64_t StableHash(const std::string& s);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_ROUTER_H_

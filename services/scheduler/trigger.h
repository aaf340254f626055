// Trigger: records the runs of a fire (taking its unique slots) and
// dispatches them to executors chosen by the job's route strategy.
//
//   FireSpec f{.job = job_ptr, .type = v1::TRIGGER_TYPE_FIX_RATE, .scheduled_ms = slot};
//   absl::StatusOr<std::vector<FireOutcome>> out = trigger.Fire({f});
//
// Every recorded run ends with a dispatch outcome: RUNNING once an executor
// accepted it, or FAILED with the reason (no executor, rejected, unreachable).
// An executor that refuses a run it cannot take (its queue is full, it lacks
// the handler, it is shutting down) is skipped and the run routed again among
// the others (FIRST/LAST fail over to the next in order); a refusal by the
// job's block strategy is final.
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_TRIGGER_H_
#define GNOMON_SERVICES_SCHEDULER_TRIGGER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "services/common/client/clock.h"
#include "services/common/store/store.h"
#include "services/scheduler/dispatch_recorder.h"
#include "services/scheduler/dispatch_timer.h"
#include "services/scheduler/executor_link.h"
#include "services/scheduler/fire_sink.h"
#include "services/scheduler/manual_prober.h"
#include "services/scheduler/membership.h"
#include "services/scheduler/partition_lease.h"
#include "services/scheduler/route_plan.h"
#include "services/scheduler/router.h"
#include "services/scheduler/trigger_pools.h"

namespace gnomon::scheduler {

class Trigger final : public FireSink, public ExecutorProbe {
 public:
  // `pools` may be null: routing and sending then happen on the caller's
  // thread. `timer` may be null: fires recorded ahead are then sent at once.
  Trigger(store::Store* store, Membership* membership, ExecutorLinks* links,
          DispatchRecorder* recorder, Clock* clock, TriggerPools* pools = nullptr,
          ManualProber* prober = nullptr, DispatchTimer* timer = nullptr);

  absl::StatusOr<std::vector<FireOutcome>> Fire(std::vector<FireSpec> fires) override
      ABSL_LOCKS_EXCLUDED(mu_);
  // Runs carry their partition's fencing epoch from here (none: epoch 0).
  void set_ownership(std::shared_ptr<const Ownership> o) ABSL_LOCKS_EXCLUDED(mu_);

  // ExecutorProbe (FAILOVER / BUSYOVER routing).
  bool Alive(const v1::ExecutorInfo& executor) override;
  bool Idle(const v1::ExecutorInfo& executor, int64_t job_id) override;

  // Drops the cached group (after an update or token rotation).
  void ForgetGroup(int64_t group_id) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  absl::StatusOr<v1::Group> GroupOf(int64_t group_id) ABSL_LOCKS_EXCLUDED(mu_);
  ExecutorList Candidates(const FireSpec& f, const v1::Group& g);
  // Notes each executor's group token (for Beat/IdleBeat probes).
  void RememberTokens(const std::vector<v1::ExecutorInfo>& executors, const v1::Group& g)
      ABSL_LOCKS_EXCLUDED(mu_);
  Router* RouterFor(v1::RouteStrategy s);
  // Routes `run` among `executors` minus `tried` (addresses that refused it
  // as unable to take it: queue full, no such handler, shutting down) and
  // sends it; a refusal of that kind routes it again among the rest.
  // A run `bound` to an executor by its route plan goes there only, and a
  // refusal there is final.
  void Dispatch(v1::Run run, std::shared_ptr<const FireSpec> f, v1::Group g,
                ExecutorList executors, std::optional<std::string> bound,
                std::vector<std::string> tried = {});
  void Fail(const v1::Run& run, int32_t code, const std::string& message);
  std::string TokenFor(const std::string& address) ABSL_LOCKS_EXCLUDED(mu_);

  store::Store* const store_;
  Membership* const membership_;
  ExecutorLinks* const links_;
  DispatchRecorder* const recorder_;
  Clock* const clock_;
  TriggerPools* const pools_;
  ManualProber* const prober_;
  DispatchTimer* const timer_;
  std::map<v1::RouteStrategy, std::unique_ptr<Router>> routers_;  // Built once, read-only.

  absl::Mutex mu_;
  std::shared_ptr<const Ownership> ownership_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int64_t, std::pair<v1::Group, int64_t>> groups_ ABSL_GUARDED_BY(mu_);
  // Address -> token of the group last dispatched there (for probes).
  absl::flat_hash_map<std::string, std::string> tokens_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_TRIGGER_H_

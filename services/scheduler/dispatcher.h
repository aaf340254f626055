// Dispatcher: sends recorded runs to executors and records how each dispatch
// ended. A run goes where its PlannedRun says — to the executor it is bound
// to, or to the one the job's router picks among the fire's candidates — on
// the job's trigger pool, and at its instant when it was recorded ahead.
//
//   absl::StatusOr<DispatchTargets> targets = dispatcher.TargetsOf(fire);
//   ... record the runs of PlanRoute(fire, *targets->executors) ...
//   dispatcher.Dispatch(std::move(run), fire.job, planned_run, *targets, fire.dispatch_at_ms);
//
// Every run ends with a dispatch outcome (through the DispatchRecorder):
// RUNNING once an executor accepted it, or FAILED with the reason (no
// executor, rejected, unreachable) — except a run refused for a stale fencing
// epoch, which stays PENDING for its partition's current holder to send
// again (Resend, from that holder's Redispatcher), and a run whose answer was
// lost (sent, then the stream broke or no answer came in time): the executor
// may have accepted it, so the same executor instance is asked again, a few
// times with backoff (it answers a run it holds with already_accepted). If
// that instance is gone (left, or restarted: a new instance id at the
// address) or never answers, the run is failed 504 "executor lost" — the
// provisional verdict its own late result replaces, and whose retry waits
// (Followups) — never 500, which would let a retry run it a second time. An executor that refuses
// a routed run it cannot take (its queue is full, it lacks the handler, it is
// shutting down) is skipped and the run routed again among the others
// (FIRST/LAST fail over to the next in order); a refusal by the job's block
// strategy, or of a run bound to its executor, is final. A run is routed
// only among the candidates still live when it is sent (executors may leave
// between planning a fire and sending its runs); a shard whose executor left
// meanwhile fails for want of it rather than go to another.
//
// It keeps groups for a few seconds and the token of the group last sent to
// each address, which its ExecutorProbe calls (FAILOVER/BUSYOVER) present
// (dispatcher_targets.cc).
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_DISPATCHER_H_
#define GNOMON_SERVICES_SCHEDULER_DISPATCHER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "services/common/client/clock.h"
#include "services/common/store/job_store.h"
#include "services/scheduler/dispatch_recorder.h"
#include "services/scheduler/dispatch_timer.h"
#include "services/scheduler/executor_client.h"
#include "services/scheduler/fire_sink.h"
#include "services/scheduler/in_flight_runs.h"
#include "services/scheduler/manual_prober.h"
#include "services/scheduler/membership.h"
#include "services/scheduler/redispatcher.h"
#include "services/scheduler/route_plan.h"
#include "services/scheduler/router.h"
#include "services/scheduler/scheduler_metrics.h"
#include "services/scheduler/trigger_pools.h"

namespace gnomon::scheduler {

namespace internal {
// The request that sends `run` of `job`; `partition_count`: the
// installation's (JobStore::partition_count()).
v1::RunRequest RequestFor(const v1::Run& run, const v1::Job& job, int partition_count);
// The fire a recorded run of `job` is routed as when sent again: its shard
// of its total, among the job's group.
FireSpec ResendSpec(const v1::Run& run, std::shared_ptr<const v1::Job> job);
}  // namespace internal

// What a fire's runs are dispatched among: its job's group and the
// executors the fire may use, sorted by address (shared, never copied).
struct DispatchTargets {
  v1::Group group;
  ExecutorList executors;
  // Whether `executors` are the group's registered executors as they were
  // live when the fire was planned (not a trigger's explicit addresses, not
  // a manual group's, which are used as given): routed among only while live.
  bool registered = false;
};

class Dispatcher final : public ExecutorProbe, public RunResender {
 public:
  // `pools` may be null: routing and sending then happen on the caller's
  // thread. `timer` may be null: runs recorded ahead are then sent at once.
  // `prober` may be null: every address of a manual group counts as alive.
  // `metrics` may be null: nothing is measured. `in_flight` may be null:
  // else every run resent is in it until its outcome is committed (recorded
  // runs are put there by the RunRecorder).
  Dispatcher(store::JobStore* store, Membership* membership, ExecutorClient* executors,
             DispatchRecorder* outcomes, Clock* clock, TriggerPools* pools = nullptr,
             ManualProber* prober = nullptr, DispatchTimer* timer = nullptr,
             SchedulerMetrics* metrics = nullptr, InFlightRuns* in_flight = nullptr);

  // The group of the fire's job and the executors the fire may use: its
  // explicit addresses, else a manual group's addresses that answer beats,
  // else the group's live registered executors. Fails only if the group
  // cannot be read.
  absl::StatusOr<DispatchTargets> TargetsOf(const FireSpec& fire) ABSL_LOCKS_EXCLUDED(mu_);
  // Routes and sends a recorded run of `job`, at `at_ms` if that is after
  // the run was recorded (its trigger time).
  void Dispatch(v1::Run run, std::shared_ptr<const v1::Job> job, PlannedRun where,
                DispatchTargets targets, int64_t at_ms);
  // RunResender: sends recorded runs again (same run, same slot) with their
  // partition's epoch from `ownership`, routed as a first dispatch would be
  // (a broadcast shard to its executor; a run pinned to an address by a
  // manual trigger is routed among the group); a run whose job was deleted
  // is failed.
  void Resend(std::vector<v1::Run> runs, std::shared_ptr<const Ownership> ownership) override;
  // RunResender: asks each run's group's live executors with one probe each
  // (dispatcher_ask.cc). A run one of them holds is recorded RUNNING there;
  // one that every executor answered it does not hold is sent again at once,
  // as Resend; otherwise (an executor that does not answer probes, cannot be
  // reached or does not answer; no live executor; a manual group) kUnknown.
  void Ask(std::vector<v1::Run> runs, std::shared_ptr<const Ownership> ownership,
           InDoubtDone done) override;
  // Drops the cached group (after an update or token rotation).
  void ForgetGroup(int64_t group_id) ABSL_LOCKS_EXCLUDED(mu_);
  // OK if every address is an executor of the group: one of its manual
  // addresses, or an online executor of its app. FailedPrecondition naming
  // executor_addresses[i] otherwise: a run goes only to an executor of its
  // own group.
  absl::Status CheckMembers(int64_t group_id, const std::vector<std::string>& addresses);
  // `group`'s executors as routing sees them: registered ones online, or a
  // manual group's addresses with whether each answered its latest probe.
  v1::GroupExecutors Members(const v1::Group& group);

  // ExecutorProbe (FAILOVER / BUSYOVER routing).
  bool Alive(const v1::ExecutorInfo& executor) override;
  bool Idle(const v1::ExecutorInfo& executor, int64_t job_id) override;

 private:
  // A recorded run on its way to an executor.
  struct Delivery {
    v1::Run run;
    std::shared_ptr<const v1::Job> job;
    PlannedRun where;
    DispatchTargets targets;
    // Executors that refused it as unable to take it (queue full, no such
    // handler, shutting down), in order.
    std::vector<std::string> refused;
    // After a lost answer: the executor asked again, its instance when the
    // run was first sent ("" if unknown: a manual or explicit address), and
    // how many times it has been asked again.
    std::string asking;
    std::string instance;
    int asks = 0;
    // When it was last sent, its trigger message then, and whether with a
    // receipt (RunRequest.receipt) carrying both.
    int64_t sent_ms = 0;
    std::string message;
    bool receipt = false;
  };
  // The run's trigger message as sent to `address`: the route, and any
  // refusals, an earlier acceptance and lost answers on the way.
  static std::string TriggerMessage(const Delivery& d, const std::string& address,
                                    bool already_accepted = false);

  // The runs' jobs (a job deleted meanwhile is absent); nullopt if unreadable.
  std::optional<absl::flat_hash_map<int64_t, std::shared_ptr<const v1::Job>>> JobsOf(
      const std::vector<v1::Run>& runs);
  struct Asking;
  void Asked(const std::shared_ptr<Asking>& asking, const std::string& address,
             const absl::StatusOr<v1::RunAnswer>& answer);
  // The group (cached), without executors.
  absl::StatusOr<DispatchTargets> GroupOf(int64_t group_id) ABSL_LOCKS_EXCLUDED(mu_);
  ExecutorList Candidates(const FireSpec& fire, const DispatchTargets& group);
  // Routes on the job's pool (in order after its earlier runs), or at once
  // without pools.
  void RouteOnPool(Delivery d);
  // Sends the run to the executor Pick chooses (fails it if there is none).
  void Route(Delivery d);
  // The run's bound executor, or the router's choice among the candidates
  // that have not refused it; Unavailable saying why if there is none.
  absl::StatusOr<std::string> Pick(const Delivery& d);
  // The targets' executors that are still live (unless not `registered`).
  ExecutorList StillLive(const DispatchTargets& targets);
  // After `address` refused `d` as unable to take it: whether a live
  // candidate that has not refused it remains (d's candidates brought up to date).
  bool AnotherCandidate(Delivery& d, const std::string& address);
  void Answered(Delivery d, const std::string& address, absl::Time submitted,
                absl::StatusOr<v1::RunAnswer> answer);
  // The run was sent to `address` but its answer was lost: asks again, or
  // declares it lost (see the class comment).
  void AskAgain(Delivery d, const std::string& address, const absl::Status& why);
  // The instance id of the live registered executor of `app` at `address`;
  // nullopt if none is live there.
  std::optional<std::string> LiveInstance(const std::string& app, const std::string& address);
  // Records the run as FAILED with `code` and `message` (also its handle
  // code and message: it will not run), naming `address` if it got that far;
  // `why` is the fire's outcome for metrics.
  void Fail(const v1::Run& run, FireResult why, int32_t code, const std::string& message,
            const std::string& address = "");

  store::JobStore* const store_;
  Membership* const membership_;
  ExecutorClient* const executors_;
  DispatchRecorder* const outcomes_;
  Clock* const clock_;
  TriggerPools* const pools_;
  ManualProber* const prober_;
  DispatchTimer* const timer_;
  SchedulerMetrics* const metrics_;
  InFlightRuns* const in_flight_;
  std::map<v1::RouteStrategy, std::unique_ptr<Router>> routers_;  // Built once, read-only.

  absl::Mutex mu_;
  // Group id -> (group, cached until ms).
  absl::flat_hash_map<int64_t, std::pair<DispatchTargets, int64_t>> groups_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_DISPATCHER_H_

// Deliveries: every run this replica is sending, each a small state machine
// owned by one loop and moved on by events.
//
//   waiting --(its instant)--> out: routed, sent --(answer)--> accepted | failed | fenced
//      ^                        ^                    |
//      |                        +----- refused ------+  (queue full, no handler, shutting down)
//      +------ asked again -------------------------+  (answer lost; after 0.5, 1, 2, 4, 8 s)
//   asking (in doubt) --(every executor answered)--> held | resent (-> waiting) | unknown
//
// A run recorded ahead waits for its instant; it is then routed on its job's
// trigger pool (in order after the job's earlier runs, in parallel with
// other jobs': routing may probe executors, and a burst's runs are many), and
// the pool hands it to its executor's stream. The answer, and every other
// event, comes back to the loop, which alone reads and changes the run's
// state, keeps its timers and records its outcome (DispatchRecorder):
// RUNNING once an executor accepted it, or FAILED with the reason (no
// executor, rejected, unreachable) — except a run refused for a stale fencing
// epoch, which stays PENDING for its partition's current holder to send
// again, and a run whose answer was lost (sent, then the stream broke or no
// answer came in time): the executor may have accepted it, so the same
// executor instance is asked again, a few times with backoff (it answers a
// run it holds with already_accepted). If that instance is gone (left, or
// restarted: a new instance id at the address) or never answers, the run is
// failed 504 "executor lost" — the provisional verdict its own late result
// replaces, and whose retry waits (Followups) — never 500, which would let a
// retry run it a second time. An executor that refuses a routed run it
// cannot take is skipped and the run routed again among the others
// (FIRST/LAST fail over to the next in order); a refusal by the job's block
// strategy, or of a run bound to its executor, is final. A run is routed only
// among the candidates still live when it is sent; a shard whose executor
// left meanwhile fails for want of it rather than go to another.
//
// A run left in doubt by a partition's previous holder (Ask) is put to every
// live executor of its group at once (RunRequest.probe); the last answer
// decides: one holds it (recorded RUNNING there), none does (sent now), or
// one could not be asked (left PENDING).
//
//   Deliveries deliveries({.executors = &streams, .outcomes = &recorder, .targets = &targets,
//                          .clock = &clock, .partition_count = 16, .pools = &pools});
//   deliveries.Start();
//   deliveries.Send(std::move(run), job, planned_run, targets, slot_ms);
//   deliveries.Flush();  // stopping: what waits for its instant goes now
//   deliveries.Stop();
//
// Without Start (unit tests) each event is handled on the thread that
// brings it, at once, and a run is routed on that thread if there are no
// pools; timers are then due at once.
//
// Thread safety: thread-safe. `done` callbacks and the ExecutorClient are
// called without the queue's lock.
#ifndef GNOMON_SERVICES_SCHEDULER_DELIVERIES_H_
#define GNOMON_SERVICES_SCHEDULER_DELIVERIES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "services/common/client/clock.h"
#include "services/scheduler/dispatch_recorder.h"
#include "services/scheduler/executor_client.h"
#include "services/scheduler/group_targets.h"
#include "services/scheduler/in_flight_runs.h"
#include "services/scheduler/redispatcher.h"
#include "services/scheduler/route_plan.h"
#include "services/scheduler/router.h"
#include "services/scheduler/scheduler_metrics.h"
#include "services/scheduler/trigger_pools.h"

namespace gnomon::scheduler {

namespace internal {
// When a recorded run is sent again: at its slot, or at once (0) if it has none.
int64_t InstantOf(const v1::Run& run);
// The request that sends `run` of `job`; `partition_count`: the
// installation's (JobStore::partition_count()).
v1::RunRequest RequestFor(const v1::Run& run, const v1::Job& job, int partition_count);
}  // namespace internal

struct DeliveryParts {
  ExecutorClient* executors = nullptr;
  DispatchRecorder* outcomes = nullptr;
  GroupTargets* targets = nullptr;
  Clock* clock = nullptr;
  int partition_count = 1;
  // Optional. Without pools runs are routed on the loop.
  TriggerPools* pools = nullptr;
  SchedulerMetrics* metrics = nullptr;
  // Every run resent or asked about is in it until its outcome is
  // committed (recorded runs are put there by the RunRecorder).
  InFlightRuns* in_flight = nullptr;
};

class Deliveries {
 public:
  explicit Deliveries(DeliveryParts parts);
  ~Deliveries();  // Stop()
  Deliveries(const Deliveries&) = delete;
  Deliveries& operator=(const Deliveries&) = delete;

  void Start() ABSL_LOCKS_EXCLUDED(mu_);
  // Runs waiting for their instant are routed now; a timer set from here on
  // is dropped (its run stays PENDING for the partition's next holder).
  void Flush() ABSL_LOCKS_EXCLUDED(mu_);
  // Handles the events already queued and ends the loop.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

  // A recorded run of `job` to send, at `at_ms` if that is after the run
  // was recorded (its trigger time).
  struct Outgoing {
    v1::Run run;
    std::shared_ptr<const v1::Job> job;
    PlannedRun where;
    DispatchTargets targets;
    int64_t at_ms = 0;
  };
  // Routes and sends the runs (handed to the loop at once: a burst's batch
  // is one event, not thousands).
  void Send(std::vector<Outgoing> runs) ABSL_LOCKS_EXCLUDED(mu_);
  void Send(v1::Run run, std::shared_ptr<const v1::Job> job, PlannedRun where,
            DispatchTargets targets, int64_t at_ms) ABSL_LOCKS_EXCLUDED(mu_);
  // Asks every one of `targets`' executors whether it holds `run` (whose
  // fence epoch is the asking holder's); `done` gets the verdict, and a run
  // nobody holds is sent as Send would.
  void Ask(v1::Run run, std::shared_ptr<const v1::Job> job, PlannedRun where,
           DispatchTargets targets, InDoubtDone done) ABSL_LOCKS_EXCLUDED(mu_);

  // Records `run`, never handed over, as FAILED with `message`.
  void FailUnsent(const v1::Run& run, const std::string& message);

  // The router the loop uses for `strategy` (UNSPECIFIED: FIRST).
  Router& RouterOf(v1::RouteStrategy strategy);

 private:
  // What a run is, fixed once it is handed over: shared with the pool's
  // routing task, never changed.
  struct Parcel {
    v1::Run run;
    std::shared_ptr<const v1::Job> job;
    PlannedRun where;
    DispatchTargets targets;
  };
  enum class Stage {
    kWaiting,  // For its instant, or to be asked again.
    kOut,      // Being routed on a pool, or sent: its answer (saying where it went) awaited.
    kAsking,   // In doubt: the executors' answers awaited.
  };
  // One run on its way (the loop's).
  struct Delivery {
    std::shared_ptr<const Parcel> parcel;
    Stage stage = Stage::kWaiting;
    // Bumped at every routing and question: an event about an earlier one is ignored.
    uint64_t seq = 0;
    // The candidates when last routed (the live ones among the targets).
    ExecutorList candidates;
    // Executors that refused it as unable to take it, in order.
    std::vector<std::string> refused;
    // After a lost answer: the executor asked again, its instance when the
    // run was first sent ("" if unknown: a manual or explicit address), and
    // how many times it has been asked again.
    std::string asking;
    std::string instance;
    int asks = 0;
    // Where it was sent, when, with what trigger message, and whether with
    // a receipt (RunRequest.receipt) carrying both.
    std::string address;
    int64_t sent_ms = 0;
    absl::Time submitted;
    std::string message;
    bool receipt = false;
    // Asking about a run in doubt: answers still awaited, the first holder,
    // whether some executor could not answer, and who to tell.
    int awaited = 0;
    std::string held_by;
    bool unknown = false;
    InDoubtDone done;
  };
  // What a routing task did (on a pool thread): where it sent the run, or
  // why it found nowhere to send it.
  struct Routed {
    absl::StatusOr<std::string> address;
    ExecutorList candidates;
    std::string instance;
    int64_t sent_ms = 0;
    absl::Time submitted;
    std::string message;
    bool receipt = false;
  };
  // An executor's answer to a run sent or a question asked; a sent run's
  // answer also says where the routing task sent it (one event, not two: at
  // 10,000 runs a second each event is a wake-up of the loop), and an
  // unroutable run's carries only that.
  struct Answer {
    int64_t run_id = 0;
    uint64_t seq = 0;
    std::string address;
    absl::StatusOr<v1::RunAnswer> answer;
    absl::Time at;
    std::optional<Routed> routed;
  };
  // A run handed over (Send, Ask).
  struct Begun {
    Delivery delivery;
    int64_t at_ms = 0;  // Send: when to route it (0: now).
  };
  using Event = std::variant<Begun, Answer>;
  // What a routing task needs, copied from the delivery.
  struct RouteTask {
    std::shared_ptr<const Parcel> parcel;
    uint64_t seq = 0;
    std::vector<std::string> refused;
    std::string asking;
    std::string instance;
    int asks = 0;
  };

  void Post(Event e) ABSL_LOCKS_EXCLUDED(mu_);
  void Post(std::vector<Event> events) ABSL_LOCKS_EXCLUDED(mu_);
  void Loop() ABSL_LOCKS_EXCLUDED(mu_);
  // Handles what is queued (and due), as the owner.
  void Handle(std::vector<Event> events) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);
  void Due(int64_t now_ms, bool all) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);

  void Begin(Begun b) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);
  // Routes the run now, or at `at_ms` if that is after it was recorded.
  void Go(Delivery& d, int64_t at_ms) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);
  void RouteNow(Delivery& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);
  // Puts the run in doubt to every executor of its targets.
  void Question(Delivery& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);
  // Sets a timer for the run; dropped after Flush.
  void At(int64_t at_ms, Delivery& d) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);
  // Notes where the routing task sent the run; false (and the run failed)
  // if it found nowhere.
  bool TookRoute(Delivery& d, Routed r) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);
  void OnAnswer(Answer a) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);
  void OnProbeAnswer(Delivery& d, const Answer& a) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);
  // The run was sent but its answer was lost: asks again, or declares it
  // lost (see the class comment).
  void AskAgain(Delivery& d, const absl::Status& why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);
  void Accepted(Delivery& d, const v1::RunAnswer& answer) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);
  // Records the run as FAILED with `code` and `message`, naming `address`
  // if it got that far; `why` is the fire's outcome for metrics. Ends it.
  void Fail(int64_t run_id, FireResult why, int32_t code, const std::string& message,
            const std::string& address = "") ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);
  void RecordFailure(const v1::Run& run, FireResult why, int32_t code, const std::string& message,
                     const std::string& address);
  void End(int64_t run_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(owner_);

  // Routing (a pool thread, or the owner without pools): picks the
  // executor, and hands the run to its stream.
  void Route(RouteTask t);
  absl::StatusOr<std::string> Pick(const RouteTask& t, const ExecutorList& candidates);
  // Tells the loop the run found nowhere to go (`why.address` says why).
  void Unroutable(int64_t run_id, uint64_t seq, Routed why);
  // The run's trigger message as sent to `address`: the route, and any
  // refusals, an earlier acceptance and lost answers on the way.
  static std::string RouteOf(const v1::Job& job, const std::string& address);
  static std::string TriggerMessage(const v1::Job& job, const std::vector<std::string>& refused,
                                    int asks, const std::string& address,
                                    bool already_accepted = false);

  const DeliveryParts parts_;
  ClientProbe probe_;
  std::map<v1::RouteStrategy, std::unique_ptr<Router>> routers_;  // Built once, read-only.

  // The state: whoever holds owner_ (the loop thread; without Start, the
  // thread handling an event) owns every delivery and timer.
  absl::Mutex owner_ ABSL_ACQUIRED_BEFORE(mu_);
  absl::flat_hash_map<int64_t, Delivery> deliveries_ ABSL_GUARDED_BY(owner_);
  // Instant -> (run id, seq); equal instants in the order set.
  std::multimap<int64_t, std::pair<int64_t, uint64_t>> timers_ ABSL_GUARDED_BY(owner_);
  bool drop_timers_ ABSL_GUARDED_BY(owner_) = false;  // Flushed.

  // The queue of events.
  mutable absl::Mutex mu_;
  std::vector<Event> events_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool handling_ ABSL_GUARDED_BY(mu_) = false;  // Without Start: someone is handling.
  bool flushing_ ABSL_GUARDED_BY(mu_) = false;  // Flush waits for the loop.
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread loop_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_DELIVERIES_H_

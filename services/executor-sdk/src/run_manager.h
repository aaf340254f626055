// RunManager: decides what happens to each dispatched run and executes it on
// a bounded pool of worker threads.
//
// Every job that has runs here has a FIFO queue; a job's runs execute one at
// a time in arrival order, and a job with a run ready to start waits in one
// ready list that the pool's workers take from. A job without runs costs no
// thread and no memory (unless its handler has a destroy hook, see below), so
// 30,000 distinct jobs due on the same second need `worker_threads` threads,
// not 30,000. A burst beyond the pool waits in the jobs' queues; it is refused
// (REJECT_KIND_QUEUE_FULL, so the scheduler routes it elsewhere) only when the
// job's queue or the executor's total queue is full. Block strategies
// (block_strategy.h) decide what a run of a busy job does. Timeouts and kills
// go through the run's cancellation token; a watchdog reports a run whose
// handler ignores cancellation past the grace and gives the pool a fresh
// thread in place of the one stuck in it.
//
// A run id is accepted once: a resent or re-dispatched RunRequest for a run
// that is queued, running, or among the last `remembered_runs` accepted here
// is answered "already accepted" (its result goes out once, through the
// sink) and not run again. A refused run is not remembered, so a later
// dispatch of it may be accepted. After a restart, the runs whose results the
// spool kept are remembered too (RunManagerOptions::remembered_run_ids).
//
// Handler hooks: init runs before a job's first run of that handler here;
// destroy runs on a worker once the job has been idle for `idle_job_ttl`,
// after its run was abandoned, or at shutdown.
//
//   RunManager manager(options, handlers, &sink, [&] { session.NotifyBusyChanged(); });
//   DispatchOutcome outcome = manager.Submit(request);   // accepted or rejected
//   manager.Submit(request).already_accepted;             // true: not run again
//   manager.Kill(run_id, "by admin");
//   manager.Shutdown(clock.Now() + absl::Seconds(30));
//
// Time (start, deadlines, idle TTL, shutdown) is read through options.clock,
// so tests advance a SimulatedClock instead of sleeping.
//
// Thread safety: all methods are thread-safe.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_MANAGER_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_MANAGER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "gnomon/executor/executor.h"
#include "gnomon/executor/options.h"
#include "gnomon/v1/executor.pb.h"
#include "gnomon/v1/registry.pb.h"
#include "services/common/client/clock.h"
#include "services/executor-sdk/src/block_strategy.h"
#include "services/executor-sdk/src/run_state.h"

namespace gnomon::executor::internal {

struct HandlerEntry {
  std::string name;
  Handler handler;
  HandlerHooks hooks;
};
using HandlerMap = absl::flat_hash_map<std::string, std::shared_ptr<const HandlerEntry>>;

// Busy jobs a beat lists at most, however many are busy (Beat.busy_jobs):
// a beat stays small during a burst of tens of thousands of distinct jobs,
// and well under the registry's limit of 10,000; Beat.busy_job_count gives
// the total.
inline constexpr int kBeatBusyJobs = 1000;

struct RunManagerOptions {
  // The executor's run options, whole; max_concurrent_runs is the pool's
  // size (the executor has resolved 0 already).
  RunOptions run = {.max_concurrent_runs = 8};
  Clock* clock = &RealClock();
  // Runs accepted by an earlier process of this executor, oldest first (the
  // results its spool holds, RunSpool::recovered_result_runs): remembered
  // as if accepted here, so a resend is answered "already accepted" and not
  // run again. At most run.remembered_runs of them are kept (the newest).
  std::vector<int64_t> remembered_run_ids;
};

// Answer to one RunRequest: accepted (with the number of runs of the job
// ahead of it, and whether it had been accepted before) or rejected with a
// HandleCode, a kind and a reason.
struct DispatchOutcome {
  bool accepted = false;
  bool already_accepted = false;
  bool covered = false;  // Accepted by COVER_EARLY, ending the job's earlier runs here.
  uint32_t queue_position = 0;
  int code = 0;
  v1::RejectKind kind = v1::REJECT_KIND_UNSPECIFIED;
  std::string reason;
};

class RunManager {
 public:
  RunManager(RunManagerOptions options, HandlerMap handlers, RunSink* sink,
             std::function<void()> on_busy_changed);
  ~RunManager();  // Shutdown(now) if not done.
  RunManager(const RunManager&) = delete;
  RunManager& operator=(const RunManager&) = delete;

  DispatchOutcome Submit(const v1::RunRequest& request);
  // The "already accepted" answer for a run accepted here before (queued,
  // running, or recently ended), or nullopt. Submit answers the same; this
  // lets the Dispatch adapter answer before its fencing check, since
  // answering a known run starts nothing.
  std::optional<DispatchOutcome> Recall(int64_t run_id) const;
  // Kills one run (running: cancelled, reported 503 when it returns or after
  // the grace; queued: removed and reported 503). False if not here.
  bool Kill(int64_t run_id, const std::string& reason);
  JobLoad Load(int64_t job_id) const;
  // This executor's state for a registry beat: the totals (busy jobs,
  // running and queued runs) and at most kBeatBusyJobs busy jobs, the most
  // loaded first (running + queued), ties by ascending job id.
  v1::Beat BeatState() const;
  uint32_t running_runs() const;
  // Runs waiting (not running) by their block strategy (unknown ones as
  // SERIAL_EXECUTION, which they follow).
  std::map<v1::BlockStrategy, int> QueuedByStrategy() const;
  // Runs executing at once (the pool's size, advertised as capacity).
  int capacity() const;
  // Worker threads alive now, including abandoned ones still in a handler
  // (for tests and diagnostics).
  int threads() const;

  // Rejects every later Submit with "executor is shutting down".
  void StopAccepting();
  // Lets runs finish until `deadline`, then cancels the rest (503) and waits
  // for them (at most the cancel grace, after which they are abandoned).
  // Runs pending destroy hooks, stops the workers and the watchdog. Idempotent.
  void Shutdown(absl::Time deadline);

  struct Core;

 private:
  std::shared_ptr<Core> core_;
  std::thread watchdog_;
  bool shut_down_ = false;
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_MANAGER_H_

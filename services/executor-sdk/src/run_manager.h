// RunManager: decides what happens to each dispatched run and executes it.
//
// One worker per job with a FIFO queue and a thread that is reaped when idle;
// block strategies (SERIAL_EXECUTION, DISCARD_LATER, COVER_EARLY); a limit on
// runs executing at once (a busy worker holds one slot); timeouts and kills
// through the run's cancellation token, with a watchdog that reports a run
// whose handler ignores cancellation and replaces its worker thread.
//
//   RunManager manager(options, handlers, &sink, [&] { session.NotifyBusyChanged(); });
//   DispatchOutcome outcome = manager.Submit(request);   // accepted or rejected
//   manager.Kill(run_id, "by admin");
//   manager.Shutdown(absl::Now() + absl::Seconds(30));
//
// Thread safety: all methods are thread-safe.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_MANAGER_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_MANAGER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "gnomon/executor/executor.h"
#include "gnomon/v1/executor.pb.h"
#include "gnomon/v1/registry.pb.h"
#include "services/executor-sdk/src/run_state.h"

namespace gnomon::executor::internal {

struct HandlerEntry {
  std::string name;
  Handler handler;
  HandlerHooks hooks;
};
using HandlerMap = absl::flat_hash_map<std::string, std::shared_ptr<const HandlerEntry>>;

struct RunManagerOptions {
  int max_concurrent_runs = 64;
  int max_queued_runs_per_job = 256;
  bool allow_scripts = false;
  absl::Duration cancel_grace = absl::Seconds(2);
  absl::Duration script_kill_grace = absl::Seconds(3);
  absl::Duration idle_worker_ttl = absl::Seconds(60);
};

// Answer to one RunRequest: accepted (with the number of runs of the job
// ahead of it) or rejected with a HandleCode and a reason.
struct DispatchOutcome {
  bool accepted = false;
  uint32_t queue_position = 0;
  int code = 0;
  std::string reason;
};

struct JobLoad {
  uint32_t running = 0;
  uint32_t queued = 0;
};

class RunManager {
 public:
  RunManager(RunManagerOptions options, HandlerMap handlers, RunSink* sink,
             std::function<void()> on_busy_changed);
  ~RunManager();  // Shutdown(now) if not done.
  RunManager(const RunManager&) = delete;
  RunManager& operator=(const RunManager&) = delete;

  DispatchOutcome Submit(const v1::RunRequest& request);
  // Kills one run (running: cancelled, reported 503 when it returns or after
  // the grace; queued: removed and reported 503). False if not here.
  bool Kill(int64_t run_id, const std::string& reason);
  JobLoad Load(int64_t job_id) const;
  // Busy jobs and running runs for a registry beat.
  v1::Beat BeatState() const;
  uint32_t running_runs() const;
  int capacity() const;

  // Rejects every later Submit with "executor is shutting down".
  void StopAccepting();
  // Lets runs finish until `deadline`, then cancels the rest (503) and waits
  // for them (at most the cancel grace, after which they are abandoned).
  // Stops the worker threads and the watchdog. Idempotent.
  void Shutdown(absl::Time deadline);

  struct Core;

 private:
  std::shared_ptr<Core> core_;
  std::thread watchdog_;
  bool shut_down_ = false;
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_MANAGER_H_

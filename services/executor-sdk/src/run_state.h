// RunState: the shared, lock-protected record of one run while it is queued
// or executing, and RunSink, where everything a run produces goes.
//
// The worker thread, the watchdog (timeouts), Kill and the handler (through
// JobContext) all hold a shared_ptr to the same RunState. Exactly one of them
// closes it with Finish(); after that, log lines and results are dropped, so
// an abandoned handler that returns late cannot report twice.
//
//   auto run = std::make_shared<RunState>(request, &sink);
//   run->MarkStarted(absl::Now());
//   run->Log("hello");
//   run->Finish(absl::Now());   // reports 200 unless SetResult/Terminate said otherwise
//
// Thread safety: all methods are thread-safe.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_STATE_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_STATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gnomon/executor/job_context.h"
#include "gnomon/v1/executor.pb.h"
#include "gnomon/v1/log.pb.h"

namespace gnomon::executor::internal {

struct CancelState {
  // Returns true if this call requested cancellation (false if already done).
  bool Cancel(std::string why) ABSL_LOCKS_EXCLUDED(mu);
  bool cancelled() const ABSL_LOCKS_EXCLUDED(mu);
  std::string reason() const ABSL_LOCKS_EXCLUDED(mu);
  bool WaitFor(absl::Duration timeout) const ABSL_LOCKS_EXCLUDED(mu);

  mutable absl::Mutex mu;
  bool is_cancelled ABSL_GUARDED_BY(mu) = false;
  std::string why ABSL_GUARDED_BY(mu);
};

// Receives what runs produce: implemented over the result reporter and the
// local run-log files.
class RunSink {
 public:
  virtual ~RunSink() = default;
  virtual void Started(const v1::RunRequest& request, absl::Time start) = 0;
  virtual void Line(int64_t run_id, const v1::LogLine& line) = 0;
  virtual void Finished(const v1::RunResult& result) = 0;
};

enum class Termination { kNone, kKilled, kTimedOut };

struct RunState {
  // `max_log_bytes` (<= 0: no limit): the run's log text sent, at most (see Log).
  RunState(v1::RunRequest request, RunSink* sink, int64_t max_log_bytes = 0);

  // Records the start, computes the deadline and reports RunStarted. Returns
  // the deadline (InfiniteFuture without timeout), or InfinitePast if the run
  // was already finished (killed while queued) and must not execute.
  absl::Time MarkStarted(absl::Time now) ABSL_LOCKS_EXCLUDED(mu);
  // Sends `text` as log lines (pieces of at most kMaxLogLineBytes). Past the
  // run's budget of bytes, one line says so and later lines are dropped:
  // a chatty run cannot fill the spool, the log service or the store.
  void Log(std::string_view text) ABSL_LOCKS_EXCLUDED(mu);
  void SetResult(int code, std::string_view message) ABSL_LOCKS_EXCLUDED(mu);
  // The output reported with the result, whatever it is (JobContext::SetOutput).
  absl::Status SetOutput(std::string value) ABSL_LOCKS_EXCLUDED(mu);
  // Asks the run to stop (killed or timed out) and cancels its token. The
  // first termination wins. Returns false if closed or already terminating.
  bool Terminate(Termination kind, std::string message) ABSL_LOCKS_EXCLUDED(mu);
  // Reports the final result once: the termination if any, else the result
  // set by the handler, else 200. Returns false if already finished.
  bool Finish(absl::Time now) ABSL_LOCKS_EXCLUDED(mu);
  bool finished() const ABSL_LOCKS_EXCLUDED(mu);
  bool started() const ABSL_LOCKS_EXCLUDED(mu);

  int64_t run_id() const { return request.run_id(); }
  int64_t job_id() const { return request.job_id(); }
  bool is_script() const { return request.has_script(); }

  const v1::RunRequest request;
  const std::vector<WorkflowInput> inputs;  // request.inputs(), for JobContext
  const std::shared_ptr<CancelState> cancel;

  mutable absl::Mutex mu;
  RunSink* const sink;  // used only while !closed
  bool is_started ABSL_GUARDED_BY(mu) = false;
  bool closed ABSL_GUARDED_BY(mu) = false;
  absl::Time start_time ABSL_GUARDED_BY(mu);
  absl::Time deadline ABSL_GUARDED_BY(mu) = absl::InfiniteFuture();
  int64_t next_line ABSL_GUARDED_BY(mu) = 1;
  const int64_t max_log_bytes;
  int64_t log_bytes ABSL_GUARDED_BY(mu) = 0;
  bool log_over_budget ABSL_GUARDED_BY(mu) = false;
  bool result_set ABSL_GUARDED_BY(mu) = false;
  int result_code ABSL_GUARDED_BY(mu) = 200;
  std::string result_message ABSL_GUARDED_BY(mu);
  std::string output ABSL_GUARDED_BY(mu);
  Termination termination ABSL_GUARDED_BY(mu) = Termination::kNone;
  std::string termination_message ABSL_GUARDED_BY(mu);
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_RUN_STATE_H_

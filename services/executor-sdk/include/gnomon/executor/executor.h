// Executor: hosts an application's job handlers for gnomon.
//
// Link gnomon::executor, register handlers by name, Run() (or Start() and
// later Shutdown()). The executor registers with the registry, holds one
// outbound stream (gnomon.v1.Dispatch.Connect) to every gnomond replica, on
// which it takes runs and answers Beat, IdleBeat and Kill (it opens no port),
// runs each job's runs in order on a bounded worker pool (queue, block
// strategy, timeout), and reports starts, log lines and results to the log
// service through a durable spool.
//
//   gnomon::executor::ExecutorOptions options;
//   options.app_name = "billing";
//   options.registry_endpoints = {"127.0.0.1:7070"};
//   options.access_token = token;
//   auto executor = gnomon::executor::Executor::Create(options);
//   if (!executor.ok()) return Fail(executor.status());
//   absl::Status s = (*executor)->RegisterHandler("invoice", [](gnomon::executor::JobContext& ctx)
//   {
//     ctx.Log("invoicing " + ctx.params());
//   });
//   if (!s.ok()) return Fail(s);
//   // Serves until SIGINT or SIGTERM, then drains for up to 30 s.
//   if (s = (*executor)->Run(absl::Seconds(30)); !s.ok()) return Fail(s);
//
// Thread safety: all methods are thread-safe, except that the executor must
// not be destroyed while another thread is in Run(), Wait() or Shutdown().
// Handlers run on worker threads, several at once (one per job at a time, at
// most max_concurrent_runs). A handler that ignores
// cancellation past its deadline is reported (502/503) and left running on an
// abandoned thread, which may outlive Shutdown(): such a handler must only use
// objects that live as long as the process.
#ifndef GNOMON_EXECUTOR_EXECUTOR_H_
#define GNOMON_EXECUTOR_EXECUTOR_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gnomon/executor/job_context.h"
#include "gnomon/executor/options.h"

namespace prometheus {
class Collectable;
}

namespace gnomon::executor {

// A job handler (XXL-JOB's @XxlJob method).
using Handler = std::function<void(JobContext&)>;

// Optional life-cycle hooks of a handler (XXL-JOB's init/destroy methods):
// init runs on a worker before a job's first run of the handler on this
// executor (a failing init fails that run with 500 and is retried on the next
// run); destroy runs on a worker once that job has been idle for
// options.idle_job_ttl, after one of its runs was abandoned, or at shutdown.
struct HandlerHooks {
  std::function<absl::Status()> init;
  std::function<void()> destroy;
};

class ExecutorImpl;

class Executor {
 public:
  // Validates options; nothing is started yet.
  static absl::StatusOr<std::unique_ptr<Executor>> Create(ExecutorOptions options);

  // Registers `handler` under `name` (printable, 1 to 128 chars). Handlers must
  // be registered before Start(); a duplicate name is AlreadyExists.
  absl::Status RegisterHandler(const std::string& name, Handler handler, HandlerHooks hooks = {});

  // Opens the spool (re-sending its leftovers), starts reporting, registers
  // with the registry and connects to the schedulers (all in the background,
  // retried until they succeed). Fails if the spool or a TLS file cannot be
  // read, or metrics_listen cannot be bound.
  absl::Status Start();

  // The name this executor registered with: options.executor_name, or
  // "<hostname>:<pid>" (valid after Start).
  std::string name() const;

  // The executor's Prometheus metrics (runs in flight, queues, spool,
  // lateness, handler durations), for an application with its own exposer:
  //   exposer.RegisterCollectable(executor->metrics());
  // (include prometheus/collectable.h and link prometheus-cpp). Valid from Create.
  std::shared_ptr<prometheus::Collectable> metrics() const;
  // "host:port" serving /metrics (after Start, with options.metrics_listen set; else "").
  std::string metrics_address() const;

  // Stops accepting runs, lets running and queued runs finish until `grace`
  // has passed (then cancels them, reporting 503), flushes results and logs
  // to the log service for up to options.shutdown_flush_timeout (what is not
  // acknowledged by then stays in the spool for the next start),
  // deregisters and closes its scheduler streams. Idempotent: a call while another thread
  // drains returns when that drain is done. Also called by the destructor.
  // Not from a handler (it would wait for its own run until `grace`): use Stop().
  void Shutdown(absl::Duration grace = absl::Seconds(30));

  // Starts the executor if it was not started, serves until SIGINT or SIGTERM
  // arrives or Stop()/Shutdown() is called from another thread, then drains
  // exactly as Shutdown(grace) does and returns OK once stopped:
  //   * dispatches arriving during the drain are refused (506, "executor is
  //     shutting down"; the scheduler routes them to another executor);
  //   * running runs, and runs queued behind them, may finish until `grace`
  //     has passed and are reported with their own results; then running
  //     runs are cancelled and reported 503 when their handler returns (or
  //     after options.cancel_grace, when a handler ignores cancellation and
  //     is abandoned), and queued runs are reported 503 without starting;
  //   * results and logs are flushed for up to options.shutdown_flush_timeout;
  //     what the log service has not acknowledged stays in the spool (with
  //     options.spool_dir) and is re-sent by the next start;
  //   * the executor deregisters and closes its scheduler streams.
  // Returns Start()'s error if starting fails, FailedPrecondition if the
  // executor was already stopped or another Run() in the process owns the
  // signals.
  //
  // Signals: while Run() runs it owns SIGINT and SIGTERM for the whole
  // process. It installs its own handlers for both (they only write to a
  // pipe, whichever thread takes the signal), unblocks both in the calling
  // thread, and restores the previous handlers and the calling thread's
  // signal mask before returning. The first signal starts the drain; a second
  // one during the drain ends the process at once, by that signal's default
  // action (as killed by it), without waiting for runs or results (what is
  // unacknowledged stays in the spool). When the drain was started by
  // Stop()/Shutdown() instead, the first signal is absorbed and the second
  // ends the process. One Run() at a time per process.
  absl::Status Run(absl::Duration grace = absl::Seconds(30));

  // Asks the executor to stop without waiting: starts Shutdown(grace) on a
  // thread of the executor's own (a Run() then returns once it is done).
  // Safe to call from a handler. Before Start(), marks the executor stopped.
  // Idempotent; a drain already under way keeps its own grace.
  void Stop(absl::Duration grace = absl::Seconds(30));

  // Blocks until the executor has stopped: a Shutdown(), Stop() or Run()
  // drain has finished (or Stop()/Shutdown() was called before Start()).
  void Wait() const;

  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

 private:
  explicit Executor(std::unique_ptr<ExecutorImpl> impl);
  std::unique_ptr<ExecutorImpl> impl_;
};

}  // namespace gnomon::executor

#endif  // GNOMON_EXECUTOR_EXECUTOR_H_

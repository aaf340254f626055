// Executor: hosts an application's job handlers for gnomon.
//
// Link gnomon::executor, register handlers by name, Start(). The executor
// registers with the registry, serves the gnomon.v1.Executor service to
// schedulers, runs each job's runs in order on a bounded worker pool (queue,
// block strategy, timeout), and reports starts, log lines and results to the
// log service through a durable spool.
//
//   gnomon::executor::ExecutorOptions options;
//   options.app_name = "billing";
//   options.registry_endpoints = {"127.0.0.1:7070"};
//   options.access_token = token;
//   auto executor = gnomon::executor::Executor::Create(options);
//   if (!executor.ok()) return Fail(executor.status());
//   (*executor)->RegisterHandler("invoice", [](gnomon::executor::JobContext& ctx) {
//     ctx.Log("invoicing " + ctx.params());
//   });
//   if (auto s = (*executor)->Start(); !s.ok()) return Fail(s);
//   ...
//   (*executor)->Shutdown(absl::Seconds(30));
//
// Thread safety: all methods are thread-safe. Handlers run on worker threads,
// several at once (one per job at a time, at most max_concurrent_runs). A handler that ignores
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
  absl::Status RegisterHandler(const std::string& name, Handler handler,
                               HandlerHooks hooks = {});

  // Opens the spool (re-sending its leftovers), starts the Executor service,
  // registers with the registry and starts reporting. Fails if the listen
  // address cannot be bound or the spool cannot be opened.
  absl::Status Start();

  // "host:port" advertised to the registry (valid after Start).
  std::string address() const;
  // The port the Executor service is bound to (valid after Start).
  int port() const;

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
  // deregisters and stops serving. Idempotent; also called by the destructor.
  void Shutdown(absl::Duration grace = absl::Seconds(30));

  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

 private:
  explicit Executor(std::unique_ptr<ExecutorImpl> impl);
  std::unique_ptr<ExecutorImpl> impl_;
};

}  // namespace gnomon::executor

#endif  // GNOMON_EXECUTOR_EXECUTOR_H_

// ExecutorOptions: everything an embedded executor needs to know, settable from
// code or from GNOMON_* environment variables.
//
//   gnomon::executor::ExecutorOptions options;
//   options.app_name = "billing";
//   options.registry_endpoints = {"gnomon-0:7070", "gnomon-1:7070"};
//   options.access_token = std::getenv("GNOMON_ACCESS_TOKEN");
//   options.spool_dir = "/var/lib/billing/gnomon-spool";
//   // Or start from the environment and override:
//   auto env = gnomon::executor::OptionsFromEnvironment();
//
// Thread safety: a plain value type.
#ifndef GNOMON_EXECUTOR_OPTIONS_H_
#define GNOMON_EXECUTOR_OPTIONS_H_

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gnomon::executor {

// TLS for every connection the executor makes (it serves none: it connects
// out to gnomond), from PEM files re-read when they change (rotated
// certificates need no restart). Empty ca_file and cert_file means plaintext.
struct TlsOptions {
  // Roots that verify gnomond's certificate (empty: the system's roots).
  std::string ca_file;
  // Optional: this executor's client certificate chain and key, presented to
  // gnomond (registry, log service, schedulers) for mutual TLS; with a
  // certificate, /metrics (metrics_listen) is served over HTTPS too.
  std::string cert_file;
  std::string key_file;
  // The name gnomond's certificate must carry; empty: the host name of the
  // endpoint dialled (for a scheduler endpoint resolved to several addresses,
  // the configured name, not the address). "*" verifies the chain only.
  std::string server_name;
  absl::Duration reload_interval = absl::Seconds(60);
  bool enabled() const { return !ca_file.empty() || !cert_file.empty(); }
};

enum class LogSeverity { kInfo, kWarning, kError };

// Where the executor connects and how it identifies itself: the registry
// session and the result reporter each take this part whole.
struct ConnectionOptions {
  // App name of the executor group (letters, digits, '.', '_', '-').
  std::string app_name;
  // Registry "host:port" endpoints; the executor fails over between them.
  std::vector<std::string> registry_endpoints;
  // Log service endpoints; empty means the registry endpoints (one gnomond
  // serves all roles by default).
  std::vector<std::string> log_endpoints;
  // Scheduler (gnomond) "host:port" endpoints; empty means the registry
  // endpoints. The executor holds one Dispatch.Connect stream to every gnomond
  // replica: each endpoint is resolved (IPv4 addresses if it has any, else
  // IPv6) and every address gets a stream, so a Kubernetes headless Service
  // name reaches every pod. Two addresses reaching one replica keep one stream.
  std::vector<std::string> scheduler_endpoints;
  // How often the scheduler endpoints are resolved again (new replicas are
  // connected, streams to addresses no longer resolved are closed).
  absl::Duration scheduler_resolve_interval = absl::Seconds(5);
  // The group's access token (required).
  std::string access_token;
  TlsOptions tls;
  // Reconnect backoff bounds for the registry, log service and scheduler streams.
  absl::Duration reconnect_initial = absl::Milliseconds(100);
  absl::Duration reconnect_max = absl::Seconds(5);
};

// How runs are queued and executed: the run manager takes this part whole.
struct RunOptions {
  // Runs executing at once: the size of the worker pool that runs every
  // job's handlers (and the capacity advertised to the registry). 0 picks
  // 8 x the CPU count, at least 16 and at most 64. Jobs do not get a thread
  // each: a handler that blocks holds a worker while it blocks, so size the
  // pool for the handlers you run.
  int max_concurrent_runs = 0;
  // Runs waiting for a worker, all jobs together. A run beyond it is refused
  // as "at capacity" and the scheduler routes it to another executor.
  int max_queued_runs = 65536;
  // Runs of one job waiting behind its running run (refused beyond it, as above).
  int max_queued_runs_per_job = 256;
  // How many of the latest accepted run ids are remembered, also after their
  // runs end, so that a resent or re-dispatched request for one is answered
  // "already accepted" instead of running it again (runs still queued or
  // running here are always recognised). Bounded by count, not time: at 100
  // runs/s the default covers ~17 minutes, at 1,000 runs/s ~100 s; about 30
  // bytes an id. 0 remembers only runs still queued or running.
  int remembered_runs = 100000;
  // Accept script (GLUE) runs. Off by default: a script is arbitrary code.
  // With it, Start() makes the whole process not dumpable (PR_SET_DUMPABLE),
  // so scripts running as its user cannot read its environment or memory:
  // no core dumps then, and debuggers need root.
  bool allow_scripts = false;
  // How long a cancelled (killed, timed-out) handler may take to return before
  // its worker is abandoned and replaced.
  absl::Duration cancel_grace = absl::Seconds(2);
  // Between SIGTERM and SIGKILL for a cancelled script's process group.
  absl::Duration script_kill_grace = absl::Seconds(3);
  // Resource limits of each script, set (with util-linux's prlimit) before
  // its interpreter starts; 0: not limited. Memory is RLIMIT_DATA (heap and
  // other private writable memory), in MiB; files are RLIMIT_NOFILE (open
  // at once) and RLIMIT_FSIZE (the largest file it may write, in MiB).
  // Open files are limited by default (1024, Linux's usual soft limit, so a
  // script cannot take the executor's much higher one); memory and file size
  // are not, as no default fits every job (an export writes gigabytes; some
  // runtimes reserve large heaps): set them, or size the container.
  int script_max_memory_mib = 0;
  int script_max_open_files = 1024;
  int script_max_file_mib = 0;
  // Log text a run may send, in MiB (<= 0: no limit). Past it the run's log
  // says so in one line and later lines are dropped, so a chatty run cannot
  // fill the spool, the log service or the store (which keeps at most
  // gnomond's --max-log-lines-per-run lines of a run anyway).
  int max_log_mib_per_run = 16;
  // A job idle this long has its handlers' destroy hooks run (see HandlerHooks).
  absl::Duration idle_job_ttl = absl::Seconds(60);
};

// How results and run-log lines reach the log service: the result reporter
// takes this part whole.
struct ReportingOptions {
  // Log lines are sent in batches: at least this often, or at this size.
  absl::Duration log_flush_interval = absl::Milliseconds(50);
  int log_flush_lines = 100;
  // On Shutdown, how long to wait for the log service to acknowledge what is
  // still unsent; the rest stays in the spool (lost if the spool is in memory).
  absl::Duration shutdown_flush_timeout = absl::Seconds(5);
};

// Every option, flat: `options.app_name`, `options.max_concurrent_runs` and
// `options.log_flush_lines` name fields of the parts above.
struct ExecutorOptions : ConnectionOptions, RunOptions, ReportingOptions {
  // The name this executor registers with (Register.address) and announces
  // on its scheduler streams (Hello.executor): printable, at most 255
  // characters, unique in the group. Empty: "<hostname>:<pid>". Executors
  // open no port: gnomond reaches them over the streams they open.
  std::string executor_name;

  // Durable spool of unacknowledged results and log lines. Empty keeps the
  // spool in memory only: results then do not survive a restart.
  std::string spool_dir;
  // Local run-log files (one bounded file per run, for people on the host;
  // every line also goes to the log service). Empty disables them.
  std::string log_dir;
  // Local run-log files older than this are deleted.
  int log_retention_days = 7;
  // Bytes kept per local run-log file; later lines only go to the log service.
  int64_t max_log_file_bytes = 16 << 20;

  // Where to serve Prometheus metrics ("host:port", path /metrics; port 0
  // picks a free port). Empty: not served — the application may serve
  // Executor::metrics() from its own prometheus::Exposer instead.
  std::string metrics_listen;

  // Reported to the registry, for people.
  std::string version;
  std::map<std::string, std::string> labels;

  // Where the SDK's own diagnostics go; unset means stderr.
  std::function<void(LogSeverity, std::string_view)> logger;
};

// Options from GNOMON_* environment variables (unset ones keep defaults):
// GNOMON_APP, GNOMON_REGISTRY, GNOMON_LOG_SERVICE and GNOMON_SCHEDULERS
// (comma-separated host:port lists), GNOMON_ACCESS_TOKEN, GNOMON_EXECUTOR_NAME,
// GNOMON_TLS_CA, GNOMON_TLS_CERT, GNOMON_TLS_KEY, GNOMON_TLS_SERVER_NAME,
// GNOMON_SPOOL_DIR, GNOMON_LOG_DIR, GNOMON_METRICS_LISTEN, GNOMON_LOG_RETENTION_DAYS,
// GNOMON_MAX_CONCURRENT_RUNS, GNOMON_MAX_QUEUED_RUNS, GNOMON_REMEMBERED_RUNS,
// GNOMON_ALLOW_SCRIPTS (true/false/1/0). A malformed number or boolean is an
// InvalidArgument error, and so is GNOMON_LISTEN or GNOMON_ADVERTISE (executors
// no longer listen: they connect out; GNOMON_EXECUTOR_NAME names them).
absl::StatusOr<ExecutorOptions> OptionsFromEnvironment();

// Splits "a:1, b:2" into {"a:1", "b:2"} (empty items dropped).
std::vector<std::string> SplitEndpoints(std::string_view list);

}  // namespace gnomon::executor

#endif  // GNOMON_EXECUTOR_OPTIONS_H_

// gnomon-sample-executor: a small executor application built on the SDK, used
// by the quickstart and the tests. Handlers:
//   demo      logs three lines including its params, succeeds
//   invoice   logs "invoicing PARAMS", succeeds (the READMEs' example handler)
//   shell     runs params as a /bin/sh command, streams its output; exit code decides
//   http      GETs the URL in params with libcurl; 2xx succeeds
//   sharding  logs its shard index and total; params "fail-shard=N" fails shard N
//   slow      sleeps params milliseconds in small steps, honouring cancellation,
//             or ignoring it when params end with " ignore-cancel"
//   fail      always fails with 500
//
//   GNOMON_ACCESS_TOKEN=... gnomon-sample-executor --app demo --registry 127.0.0.1:7070
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "examples/sample_handlers.h"
#include "gnomon/executor/executor.h"
#include "services/common/client/version.h"

namespace {

std::string Env(const char* name, const char* fallback = "") {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

bool EnvBool(const char* name) {
  bool b = false;
  return absl::SimpleAtob(Env(name), &b) && b;
}

}  // namespace

ABSL_FLAG(std::string, app, Env("GNOMON_APP", "sample"),
          "App name of the executor group (GNOMON_APP).");
ABSL_FLAG(std::string, registry, Env("GNOMON_REGISTRY", "127.0.0.1:7070"),
          "Comma-separated registry host:port list (GNOMON_REGISTRY).");
ABSL_FLAG(std::string, log_service, Env("GNOMON_LOG_SERVICE"),
          "Comma-separated log service host:port list; empty means the registry "
          "endpoints (GNOMON_LOG_SERVICE).");
ABSL_FLAG(std::string, token, Env("GNOMON_ACCESS_TOKEN"),
          "The group's access token. Required. Prefer GNOMON_ACCESS_TOKEN: a flag's value is "
          "readable by every user of the host (ps, /proc/PID/cmdline), the environment only by "
          "this user (and, with --allow-scripts, not by its scripts).");
ABSL_FLAG(std::string, schedulers, Env("GNOMON_SCHEDULERS"),
          "Comma-separated gnomond (scheduler) host:port list the executor connects out to, one "
          "stream per resolved address; empty means the registry endpoints (GNOMON_SCHEDULERS).");
ABSL_FLAG(std::string, name, Env("GNOMON_EXECUTOR_NAME"),
          "The name this executor registers with, unique in its group (at most 255 printable "
          "characters); empty means <hostname>:<pid> (GNOMON_EXECUTOR_NAME).");
ABSL_FLAG(std::string, spool_dir, Env("GNOMON_SPOOL_DIR"),
          "Durable spool for unacknowledged results; empty keeps them in memory only "
          "(GNOMON_SPOOL_DIR).");
ABSL_FLAG(std::string, log_dir, Env("GNOMON_LOG_DIR"),
          "Directory for local run-log files (one per run, for people on the host); empty "
          "disables them "
          "(GNOMON_LOG_DIR).");
ABSL_FLAG(int, log_retention_days, 7, "Days local run-log files are kept.");
ABSL_FLAG(
    int, max_concurrent_runs, 0,
    "Worker threads: runs executing at once (the advertised capacity; 0 = 8 x CPUs, 16..64).");
ABSL_FLAG(int, max_queued_runs, 65536,
          "Runs waiting for a worker, all jobs together; more are refused as queue full.");
ABSL_FLAG(int, max_queued_runs_per_job, 256,
          "Runs of one job waiting behind its running run; more are refused as queue full.");
ABSL_FLAG(std::string, invocations_file, "",
          "Append \"run_id job_id attempt\" to this file at every handler invocation (for "
          "tests that count executions).");
ABSL_FLAG(bool, allow_scripts, EnvBool("GNOMON_ALLOW_SCRIPTS"),
          "Accept shell/python script runs (GNOMON_ALLOW_SCRIPTS).");
ABSL_FLAG(absl::Duration, cancel_grace, absl::Seconds(2),
          "How long a cancelled handler may take before its worker is replaced.");
ABSL_FLAG(absl::Duration, shutdown_grace, absl::Seconds(30),
          "On SIGTERM/SIGINT, how long running runs may take to finish.");
ABSL_FLAG(std::string, metrics_listen, Env("GNOMON_METRICS_LISTEN"),
          "host:port to serve Prometheus metrics on, at /metrics (port 0 picks a free port; empty: "
          "not served) (GNOMON_METRICS_LISTEN).");
ABSL_FLAG(std::string, tls_ca, Env("GNOMON_TLS_CA"), "PEM roots (GNOMON_TLS_CA).");
ABSL_FLAG(std::string, tls_cert, Env("GNOMON_TLS_CERT"),
          "PEM client certificate presented to gnomond, for mutual TLS (GNOMON_TLS_CERT).");
ABSL_FLAG(std::string, tls_key, Env("GNOMON_TLS_KEY"), "PEM key of --tls-cert (GNOMON_TLS_KEY).");
ABSL_FLAG(
    std::string, tls_server_name, Env("GNOMON_TLS_SERVER_NAME"),
    "Name gnomond's certificate must carry; empty: the host dialled (GNOMON_TLS_SERVER_NAME).");
ABSL_FLAG(absl::Duration, tls_reload_interval, absl::Seconds(60),
          "How often the TLS files are re-read (rotation without restart).");

int main(int argc, char** argv) {
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::StrContains(file, "sample_executor");
  };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  usage.version_string = [] {
    return absl::StrCat("gnomon-sample-executor ", gnomon::Version(), "\n");
  };
  absl::SetFlagsUsageConfig(usage);
  absl::SetProgramUsageMessage(
      "gnomon-sample-executor: a sample gnomon executor with the handlers demo, invoice, shell,\n"
      "http, sharding, slow, fail and noop. Every flag has a GNOMON_* environment equivalent, and\n"
      "may be spelled with dashes (--spool-dir) or underscores (--spool_dir).\n\n"
      "  GNOMON_ACCESS_TOKEN=<group token> gnomon-sample-executor --app sample \\\n"
      "      --registry 127.0.0.1:7070 --spool-dir /var/tmp/sample-spool\n\n"
      "It opens no port: it connects out to every gnomond replica (--schedulers).\n"
      "Prints \"gnomon-sample-executor started as NAME\" once started; stops\n"
      "gracefully on SIGTERM or SIGINT (a second signal exits at once).");
  // Accept --spool-dir as well as absl's --spool_dir spelling.
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == "--") break;
    if (!absl::StartsWith(args[i], "--")) continue;
    size_t end = std::min(args[i].find('='), args[i].size());
    for (size_t j = 2; j < end; ++j) {
      if (args[i][j] == '-') args[i][j] = '_';
    }
  }
  std::vector<char*> arg_ptrs;
  for (std::string& a : args) arg_ptrs.push_back(a.data());
  absl::ParseCommandLine(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());

  // Blocked before any thread starts (every thread inherits the mask), so a
  // signal arriving before Run() waits for it; Run() unblocks them in this
  // thread and drains on the first.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  gnomon::executor::ExecutorOptions options;
  options.app_name = absl::GetFlag(FLAGS_app);
  options.registry_endpoints = gnomon::executor::SplitEndpoints(absl::GetFlag(FLAGS_registry));
  options.log_endpoints = gnomon::executor::SplitEndpoints(absl::GetFlag(FLAGS_log_service));
  options.access_token = absl::GetFlag(FLAGS_token);
  options.scheduler_endpoints = gnomon::executor::SplitEndpoints(absl::GetFlag(FLAGS_schedulers));
  options.executor_name = absl::GetFlag(FLAGS_name);
  options.spool_dir = absl::GetFlag(FLAGS_spool_dir);
  options.log_dir = absl::GetFlag(FLAGS_log_dir);
  options.log_retention_days = absl::GetFlag(FLAGS_log_retention_days);
  options.max_concurrent_runs = absl::GetFlag(FLAGS_max_concurrent_runs);
  options.max_queued_runs = absl::GetFlag(FLAGS_max_queued_runs);
  options.max_queued_runs_per_job = absl::GetFlag(FLAGS_max_queued_runs_per_job);
  options.allow_scripts = absl::GetFlag(FLAGS_allow_scripts);
  options.cancel_grace = absl::GetFlag(FLAGS_cancel_grace);
  options.metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  options.tls.ca_file = absl::GetFlag(FLAGS_tls_ca);
  options.tls.cert_file = absl::GetFlag(FLAGS_tls_cert);
  options.tls.key_file = absl::GetFlag(FLAGS_tls_key);
  options.tls.server_name = absl::GetFlag(FLAGS_tls_server_name);
  options.tls.reload_interval = absl::GetFlag(FLAGS_tls_reload_interval);
  options.version = "gnomon-sample-executor/0.1";

  auto executor = gnomon::executor::Executor::Create(options);
  if (!executor.ok()) {
    std::fprintf(stderr, "gnomon-sample-executor: %s\n", executor.status().ToString().c_str());
    return 2;
  }
  absl::Status registered =
      gnomon::sample::RegisterSampleHandlers(**executor, absl::GetFlag(FLAGS_invocations_file));
  if (!registered.ok()) {
    std::fprintf(stderr, "gnomon-sample-executor: %s\n", registered.ToString().c_str());
    return 2;
  }
  if (absl::Status s = (*executor)->Start(); !s.ok()) {
    std::fprintf(stderr, "gnomon-sample-executor: %s\n", s.ToString().c_str());
    return 1;
  }
  if (std::string metrics = (*executor)->metrics_address(); !metrics.empty()) {
    std::printf("gnomon-sample-executor metrics on %s://%s/metrics\n",
                options.tls.cert_file.empty() ? "http" : "https", metrics.c_str());
  }
  std::printf("gnomon-sample-executor started as %s\n", (*executor)->name().c_str());
  std::fflush(stdout);

  if (absl::Status s = (*executor)->Run(absl::GetFlag(FLAGS_shutdown_grace)); !s.ok()) {
    std::fprintf(stderr, "gnomon-sample-executor: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}

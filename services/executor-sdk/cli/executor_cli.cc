#include "services/executor-sdk/cli/executor_cli.h"

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "services/common/client/log.h"
#include "services/common/client/mutex_mode.h"
#include "services/common/client/version.h"

namespace gnomon::executor::cli {
namespace {

// Set by ParseCommandLine: the binary's name and usage.
const CliSpec* g_spec = nullptr;

// Flags named on the command line (absl 20220623 keeps its own record private).
std::set<std::string>& GivenFlags() {
  static auto* given = new std::set<std::string>();
  return *given;
}

// Whether `flag` was given: only flags given override the environment.
bool Set(const char* flag) { return GivenFlags().count(flag) > 0; }

}  // namespace

std::string Env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

}  // namespace gnomon::executor::cli

ABSL_FLAG(std::string, log_format, "",
          "Log lines on stderr as text or json, one object per line (GNOMON_LOG_FORMAT; "
          "default text).");
ABSL_FLAG(std::string, app, "", "App name of the executor group (GNOMON_APP).");
ABSL_FLAG(std::string, registry, "", "Comma-separated registry host:port list (GNOMON_REGISTRY).");
ABSL_FLAG(std::string, log_service, "",
          "Comma-separated log service host:port list; empty: the registry endpoints "
          "(GNOMON_LOG_SERVICE).");
ABSL_FLAG(std::string, token, "",
          "The group's access token (GNOMON_ACCESS_TOKEN). Required. Prefer the environment: "
          "a flag's value is readable by every user of the host (ps, /proc/PID/cmdline).");
ABSL_FLAG(std::string, schedulers, "",
          "Comma-separated gnomond (scheduler) host:port list this executor connects out to, "
          "one stream per resolved address; empty: the registry endpoints "
          "(GNOMON_SCHEDULERS).");
ABSL_FLAG(std::string, name, "",
          "The name this executor registers with, unique in its group (at most 255 printable "
          "characters); empty: <hostname>:<pid> (GNOMON_EXECUTOR_NAME).");
ABSL_FLAG(std::string, spool_dir, "",
          "Durable spool for unacknowledged results; empty keeps them in memory only "
          "(GNOMON_SPOOL_DIR).");
ABSL_FLAG(std::string, log_dir, "",
          "Directory for local run-log files; empty disables them (GNOMON_LOG_DIR).");
ABSL_FLAG(int, log_retention_days, 7,
          "Days local run-log files are kept (GNOMON_LOG_RETENTION_DAYS).");
ABSL_FLAG(int, max_concurrent_runs, 0,
          "Runs executing at once; 0: 8 x CPUs, 16..64 (GNOMON_MAX_CONCURRENT_RUNS).");
ABSL_FLAG(int, max_queued_runs, 65536,
          "Runs waiting for a worker, all jobs together (GNOMON_MAX_QUEUED_RUNS).");
ABSL_FLAG(bool, allow_scripts, false,
          "Accept script (GLUE) jobs: shell, python, node, powershell (GNOMON_ALLOW_SCRIPTS). "
          "A script is arbitrary code: no allow-list applies to it.");
ABSL_FLAG(int, script_max_memory_mib, 0,
          "Each script's memory limit (RLIMIT_DATA), MiB; 0: none (GNOMON_SCRIPT_MAX_MEMORY_MIB).");
ABSL_FLAG(int, script_max_open_files, 1024,
          "Files each script may have open at once; 0: the executor's limit "
          "(GNOMON_SCRIPT_MAX_OPEN_FILES).");
ABSL_FLAG(int, script_max_file_mib, 0,
          "The largest file a script may write, MiB; 0: none (GNOMON_SCRIPT_MAX_FILE_MIB).");
ABSL_FLAG(int, max_log_mib_per_run, 16,
          "Log text a run may send, MiB; past it one line says so and the rest is dropped; 0: no "
          "limit (GNOMON_MAX_LOG_MIB_PER_RUN).");
ABSL_FLAG(std::string, metrics_listen, "",
          "host:port serving Prometheus metrics at /metrics; empty: not served "
          "(GNOMON_METRICS_LISTEN).");
ABSL_FLAG(std::string, tls_ca, "", "PEM roots verifying gnomond (GNOMON_TLS_CA).");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM client certificate of this executor, presented to gnomond for mutual TLS "
          "(GNOMON_TLS_CERT).");
ABSL_FLAG(std::string, tls_key, "", "PEM key of --tls-cert (GNOMON_TLS_KEY).");
ABSL_FLAG(
    std::string, tls_server_name, "",
    "Name gnomond's certificate must carry; empty: the host dialled (GNOMON_TLS_SERVER_NAME).");
ABSL_FLAG(absl::Duration, cancel_grace, absl::Seconds(2),
          "How long a cancelled handler may take before its worker is replaced.");
ABSL_FLAG(absl::Duration, shutdown_grace, absl::Seconds(30),
          "On SIGTERM/SIGINT, how long running runs may take to finish.");

namespace gnomon::executor::cli {

void ParseCommandLine(const CliSpec& spec, int argc, char** argv) {
  UseReleaseMutexMode();
  g_spec = &spec;
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::StrContains(file, g_spec->flags_file) ||
           absl::StrContains(file, "executor-sdk/cli/");
  };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  usage.version_string = [] { return absl::StrCat(g_spec->program, " ", gnomon::Version(), "\n"); };
  absl::SetFlagsUsageConfig(usage);
  absl::SetProgramUsageMessage(spec.usage);
  std::vector<std::string> args(argv, argv + argc);
  for (size_t i = 1; i < args.size() && args[i] != "--"; ++i) {
    if (!absl::StartsWith(args[i], "--")) continue;
    const size_t end = std::min(args[i].find('='), args[i].size());
    std::replace(args[i].begin() + 2, args[i].begin() + static_cast<std::ptrdiff_t>(end), '-', '_');
    std::string name = args[i].substr(2, end - 2);
    GivenFlags().insert(name);
    if (absl::StartsWith(name, "no")) GivenFlags().insert(name.substr(2));  // --noallow_scripts
  }
  std::vector<char*> arg_ptrs;
  for (std::string& a : args) arg_ptrs.push_back(a.data());
  absl::ParseCommandLine(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());
  if (Set("log_format")) {
    gnomon::logging::Format format;
    if (!gnomon::logging::ParseFormat(absl::GetFlag(FLAGS_log_format), &format)) {
      std::fprintf(stderr, "%s: --log-format must be text or json\n", spec.program);
      std::exit(2);
    }
    gnomon::logging::SetFormat(format);
  }

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
}

absl::StatusOr<ExecutorOptions> OptionsFromFlags() {
  absl::StatusOr<ExecutorOptions> from_env = OptionsFromEnvironment();
  if (!from_env.ok()) return from_env.status();
  ExecutorOptions options = *std::move(from_env);
  if (Set("app")) options.app_name = absl::GetFlag(FLAGS_app);
  if (Set("registry")) options.registry_endpoints = SplitEndpoints(absl::GetFlag(FLAGS_registry));
  if (Set("log_service")) options.log_endpoints = SplitEndpoints(absl::GetFlag(FLAGS_log_service));
  if (Set("token")) options.access_token = absl::GetFlag(FLAGS_token);
  if (Set("schedulers")) {
    options.scheduler_endpoints = SplitEndpoints(absl::GetFlag(FLAGS_schedulers));
  }
  if (Set("name")) options.executor_name = absl::GetFlag(FLAGS_name);
  if (Set("spool_dir")) options.spool_dir = absl::GetFlag(FLAGS_spool_dir);
  if (Set("log_dir")) options.log_dir = absl::GetFlag(FLAGS_log_dir);
  if (Set("log_retention_days")) {
    options.log_retention_days = absl::GetFlag(FLAGS_log_retention_days);
  }
  if (Set("max_concurrent_runs")) {
    options.max_concurrent_runs = absl::GetFlag(FLAGS_max_concurrent_runs);
  }
  if (Set("max_queued_runs")) options.max_queued_runs = absl::GetFlag(FLAGS_max_queued_runs);
  if (Set("allow_scripts")) options.allow_scripts = absl::GetFlag(FLAGS_allow_scripts);
  if (Set("script_max_memory_mib")) {
    options.script_max_memory_mib = absl::GetFlag(FLAGS_script_max_memory_mib);
  }
  if (Set("script_max_open_files")) {
    options.script_max_open_files = absl::GetFlag(FLAGS_script_max_open_files);
  }
  if (Set("max_log_mib_per_run")) {
    options.max_log_mib_per_run = absl::GetFlag(FLAGS_max_log_mib_per_run);
  }
  if (Set("script_max_file_mib")) {
    options.script_max_file_mib = absl::GetFlag(FLAGS_script_max_file_mib);
  }
  if (Set("metrics_listen")) options.metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  if (Set("tls_ca")) options.tls.ca_file = absl::GetFlag(FLAGS_tls_ca);
  if (Set("tls_cert")) options.tls.cert_file = absl::GetFlag(FLAGS_tls_cert);
  if (Set("tls_key")) options.tls.key_file = absl::GetFlag(FLAGS_tls_key);
  if (Set("tls_server_name")) options.tls.server_name = absl::GetFlag(FLAGS_tls_server_name);
  options.cancel_grace = absl::GetFlag(FLAGS_cancel_grace);
  return options;
}

int Fail(int code, absl::string_view what) {
  std::fprintf(stderr, "%s: %.*s\n", g_spec->program, static_cast<int>(what.size()), what.data());
  return code;
}

int StartAndRun(Executor& executor, const ExecutorOptions& options) {
  if (absl::Status s = executor.Start(); !s.ok()) return Fail(1, s.ToString());
  if (std::string metrics = executor.metrics_address(); !metrics.empty()) {
    gnomon::logging::Announce(absl::StrCat(g_spec->program, " metrics on ",
                                           options.tls.cert_file.empty() ? "http" : "https", "://",
                                           metrics, "/metrics"));
  }
  gnomon::logging::Announce(absl::StrCat(g_spec->program, " started as ", executor.name()));
  if (absl::Status s = executor.Run(absl::GetFlag(FLAGS_shutdown_grace)); !s.ok()) {
    return Fail(1, s.ToString());
  }
  return 0;
}

}  // namespace gnomon::executor::cli

// gnomon-executor: a generic executor teams deploy without writing code. It
// serves two handlers whose behaviour the job's params choose — `http` (one
// HTTP request) and `command` (one program, run without a shell) — and, when
// started with --allow-scripts, script (GLUE) jobs. Both handlers are
// fail-closed: with no --http-allow / --command-allow they refuse every run.
// See docs/gnomon-executor.md.
//
//   GNOMON_ACCESS_TOKEN=<group token> gnomon-executor --app ops --registry gnomon:7070 \
//       --http-allow='api.example.com,*.corp.example' --command-allow=/opt/jobs/
#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gnomon/executor/executor.h"
#include "services/common/client/version.h"
#include "services/common/curl/curl_util.h"
#include "services/executor-sdk/gnomon-executor/command_handler.h"
#include "services/executor-sdk/gnomon-executor/http_handler.h"

namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

}  // namespace

// Connection and run options: unset flags keep what the SDK's
// OptionsFromEnvironment() read from GNOMON_* variables (so the executor
// takes the SDK's environment settings as every SDK application does).
ABSL_FLAG(std::string, app, "", "App name of the executor group (GNOMON_APP). Required.");
ABSL_FLAG(std::string, registry, "",
          "Comma-separated registry host:port list (GNOMON_REGISTRY). Required.");
ABSL_FLAG(std::string, log_service, "",
          "Comma-separated log service host:port list; empty: the registry endpoints "
          "(GNOMON_LOG_SERVICE).");
ABSL_FLAG(std::string, token, "",
          "The group's access token (GNOMON_ACCESS_TOKEN). Required. Prefer the environment: a "
          "flag's value is readable by every user of the host (ps, /proc/PID/cmdline).");
ABSL_FLAG(std::string, schedulers, "",
          "Comma-separated gnomond (scheduler) host:port list this executor connects out to, one "
          "stream per resolved address; empty: the registry endpoints (GNOMON_SCHEDULERS).");
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
          "Accept script (GLUE) jobs: shell, python, node, powershell (GNOMON_ALLOW_SCRIPTS). A "
          "script is arbitrary code: the allow-lists below do not apply to it.");
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
ABSL_FLAG(absl::Duration, kill_grace, absl::Seconds(3),
          "Between SIGTERM and SIGKILL when a command or script is stopped.");
ABSL_FLAG(absl::Duration, shutdown_grace, absl::Seconds(30),
          "On SIGTERM/SIGINT, how long running runs may take to finish.");

// The handlers' allow-lists (read here, not by the SDK).
ABSL_FLAG(std::string, http_allow, Env("GNOMON_HTTP_ALLOW"),
          "Destinations the http handler may call (GNOMON_HTTP_ALLOW), comma-separated: host "
          "names (api.example.com), *.domain patterns, '*' (any name), addresses and CIDR ranges "
          "(10.0.0.0/8, ::1). Loopback, private and link-local addresses (169.254.169.254, the "
          "cloud metadata service) are reached only through an entry inside their range. Empty: "
          "every http run is refused.");
ABSL_FLAG(std::string, command_allow, Env("GNOMON_COMMAND_ALLOW"),
          "Programs the command handler may run (GNOMON_COMMAND_ALLOW), comma-separated absolute "
          "paths; an entry ending in '/' allows the programs under that directory. Empty: every "
          "command run is refused.");

namespace {

constexpr char kUsage[] =
    R"(gnomon-executor: a generic gnomon executor. Deploy it, give it a group's
token and allow-lists, and create jobs for its handlers with the task in the
job's params (JSON, gnomon.v1.HttpTask / gnomon.v1.CommandTask in
proto/gnomon/v1/handlers.proto; unknown fields are refused). Every flag may be
spelled with dashes or underscores; the GNOMON_* variable named in its help
applies when the flag is not given.

  GNOMON_ACCESS_TOKEN=<group token> gnomon-executor --app ops --registry gnomon:7070 \
      --http-allow='api.example.com,*.corp.example,10.0.0.0/8' \
      --command-allow=/usr/local/bin/backup,/opt/jobs/

Handler `http`: one request; succeeds when the status is expected (default 2xx).
  {"method": "POST", "url": "https://api.example.com/v1/reports",
   "headers": {"Content-Type": "application/json", "Authorization": "Bearer ..."},
   "body": "{\"day\": \"today\"}", "timeout": "20s", "expectedStatuses": [200, 202],
   "maxResponseBytes": 4096, "followRedirects": false, "maxRedirects": 5}
  method: GET (default), HEAD, POST, PUT, PATCH, DELETE, OPTIONS. timeout: default
  30s (the run's own timeout wins when shorter). The first maxResponseBytes of
  the response go to the run log. The host and every address it resolves to
  must pass --http-allow; the connection is pinned to the checked addresses;
  proxies from the environment are not used.

Handler `command`: one program, without a shell; succeeds on an expected exit code.
  {"argv": ["/usr/local/bin/backup", "--full", "/srv/data"],
   "env": {"TARGET": "s3://backups"}, "workingDir": "/var/lib/backup",
   "timeout": "1h", "successExitCodes": [0]}
  argv[0] is an absolute path allowed by --command-allow. The program gets the
  executor's environment without GNOMON_* variables, plus env (GNOMON_*, LD_*
  and interpreter variables such as PYTHONPATH are refused). Output goes to the
  run log.

It opens no port: it connects out to every gnomond replica (--schedulers).
Prints "gnomon-executor started as NAME" once started; stops gracefully on
SIGTERM or SIGINT (a second signal exits at once).)";

// Flags named on the command line (absl 20220623 keeps its own record private).
std::set<std::string>& GivenFlags() {
  static auto* given = new std::set<std::string>();
  return *given;
}

bool Given(const char* flag) { return GivenFlags().count(flag) > 0; }

int Fail(int code, absl::string_view what) {
  std::fprintf(stderr, "gnomon-executor: %.*s\n", static_cast<int>(what.size()), what.data());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::StrContains(file, "gnomon-executor");
  };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  usage.version_string = [] { return absl::StrCat("gnomon-executor ", gnomon::Version(), "\n"); };
  absl::SetFlagsUsageConfig(usage);
  absl::SetProgramUsageMessage(kUsage);
  // Accept --spool-dir as well as absl's --spool_dir spelling, and note
  // which flags are given (they win over the GNOMON_* variables).
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

  // Blocked before any thread starts, so a signal arriving before Run()
  // waits for it; Run() unblocks them in this thread and drains on the first.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  absl::StatusOr<gnomon::executor::ExecutorOptions> from_env =
      gnomon::executor::OptionsFromEnvironment();
  if (!from_env.ok()) return Fail(2, from_env.status().ToString());
  gnomon::executor::ExecutorOptions options = *std::move(from_env);
  if (Given("app")) options.app_name = absl::GetFlag(FLAGS_app);
  if (Given("registry")) {
    options.registry_endpoints = gnomon::executor::SplitEndpoints(absl::GetFlag(FLAGS_registry));
  }
  if (Given("log_service")) {
    options.log_endpoints = gnomon::executor::SplitEndpoints(absl::GetFlag(FLAGS_log_service));
  }
  if (Given("token")) options.access_token = absl::GetFlag(FLAGS_token);
  if (Given("schedulers")) {
    options.scheduler_endpoints = gnomon::executor::SplitEndpoints(absl::GetFlag(FLAGS_schedulers));
  }
  if (Given("name")) options.executor_name = absl::GetFlag(FLAGS_name);
  if (Given("spool_dir")) options.spool_dir = absl::GetFlag(FLAGS_spool_dir);
  if (Given("log_dir")) options.log_dir = absl::GetFlag(FLAGS_log_dir);
  if (Given("log_retention_days")) {
    options.log_retention_days = absl::GetFlag(FLAGS_log_retention_days);
  }
  if (Given("max_concurrent_runs")) {
    options.max_concurrent_runs = absl::GetFlag(FLAGS_max_concurrent_runs);
  }
  if (Given("max_queued_runs")) options.max_queued_runs = absl::GetFlag(FLAGS_max_queued_runs);
  if (Given("allow_scripts")) options.allow_scripts = absl::GetFlag(FLAGS_allow_scripts);
  if (Given("metrics_listen")) options.metrics_listen = absl::GetFlag(FLAGS_metrics_listen);
  if (Given("tls_ca")) options.tls.ca_file = absl::GetFlag(FLAGS_tls_ca);
  if (Given("tls_cert")) options.tls.cert_file = absl::GetFlag(FLAGS_tls_cert);
  if (Given("tls_key")) options.tls.key_file = absl::GetFlag(FLAGS_tls_key);
  if (Given("tls_server_name")) options.tls.server_name = absl::GetFlag(FLAGS_tls_server_name);
  options.cancel_grace = absl::GetFlag(FLAGS_cancel_grace);
  options.script_kill_grace = absl::GetFlag(FLAGS_kill_grace);
  options.version = absl::StrCat("gnomon-executor/", gnomon::Version());

  absl::StatusOr<gnomon::generic_executor::DestinationAllowList> http_allow =
      gnomon::generic_executor::DestinationAllowList::Parse(absl::GetFlag(FLAGS_http_allow));
  if (!http_allow.ok()) return Fail(2, http_allow.status().message());
  absl::StatusOr<gnomon::generic_executor::CommandAllowList> command_allow =
      gnomon::generic_executor::CommandAllowList::Parse(absl::GetFlag(FLAGS_command_allow));
  if (!command_allow.ok()) return Fail(2, command_allow.status().message());
  // One line each, so an operator sees at start-up what jobs may reach.
  std::printf("gnomon-executor http allows: %s\n", http_allow->empty()
                                                       ? "nothing (--http-allow is empty)"
                                                       : http_allow->ToString().c_str());
  std::printf("gnomon-executor command allows: %s\n", command_allow->empty()
                                                          ? "nothing (--command-allow is empty)"
                                                          : command_allow->ToString().c_str());

  gnomon::curl::CurlGlobalInit();  // before any thread: curl_global_init is not thread-safe
  auto executor = gnomon::executor::Executor::Create(options);
  if (!executor.ok()) return Fail(2, executor.status().ToString());
  gnomon::generic_executor::HttpHandlerOptions http_options{*std::move(http_allow)};
  http_options.user_agent = absl::StrCat("gnomon-executor/", gnomon::Version());
  if (absl::Status s = (*executor)->RegisterHandler(
          "http", gnomon::generic_executor::HttpHandler(std::move(http_options)));
      !s.ok()) {
    return Fail(2, s.ToString());
  }
  if (absl::Status s = (*executor)->RegisterHandler(
          "command", gnomon::generic_executor::CommandHandler(*std::move(command_allow),
                                                              absl::GetFlag(FLAGS_kill_grace)));
      !s.ok()) {
    return Fail(2, s.ToString());
  }
  if (absl::Status s = (*executor)->Start(); !s.ok()) return Fail(1, s.ToString());
  if (std::string metrics = (*executor)->metrics_address(); !metrics.empty()) {
    std::printf("gnomon-executor metrics on %s://%s/metrics\n",
                options.tls.cert_file.empty() ? "http" : "https", metrics.c_str());
  }
  std::printf("gnomon-executor started as %s\n", (*executor)->name().c_str());
  std::fflush(stdout);
  if (absl::Status s = (*executor)->Run(absl::GetFlag(FLAGS_shutdown_grace)); !s.ok()) {
    return Fail(1, s.ToString());
  }
  return 0;
}

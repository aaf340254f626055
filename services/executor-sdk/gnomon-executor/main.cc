// gnomon-executor: a generic executor teams deploy without writing code. It
// serves two handlers whose behaviour the job's params choose — `http` (one
// HTTP request) and `command` (one program, run without a shell) — and, when
// started with --allow-scripts, script (GLUE) jobs. Both handlers are
// fail-closed: with no --http-allow / --command-allow they refuse every run.
// See docs/gnomon-executor.md.
//
//   GNOMON_ACCESS_TOKEN=<group token> gnomon-executor --app ops --registry gnomon:7070 \
//       --http-allow='api.example.com,*.corp.example' --command-allow=/opt/jobs/
#include <cstdio>
#include <string>
#include <utility>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gnomon/executor/executor.h"
#include "services/common/client/version.h"
#include "services/common/curl/curl_util.h"
#include "services/executor-sdk/cli/executor_cli.h"
#include "services/executor-sdk/gnomon-executor/command_handler.h"
#include "services/executor-sdk/gnomon-executor/http_handler.h"

using gnomon::executor::cli::Env;

// The connection and run flags are in services/executor-sdk/cli/ (unset, they
// keep what the SDK's OptionsFromEnvironment() read from GNOMON_* variables).
ABSL_FLAG(absl::Duration, kill_grace, absl::Seconds(3),
          "Between SIGTERM and SIGKILL when a command or script is stopped.");

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

}  // namespace

namespace cli = gnomon::executor::cli;

int main(int argc, char** argv) {
  static constexpr cli::CliSpec kSpec{"gnomon-executor", "gnomon-executor", kUsage};
  cli::ParseCommandLine(kSpec, argc, argv);

  absl::StatusOr<gnomon::executor::ExecutorOptions> from_flags = cli::OptionsFromFlags();
  if (!from_flags.ok()) return cli::Fail(2, from_flags.status().ToString());
  gnomon::executor::ExecutorOptions options = *std::move(from_flags);
  options.script_kill_grace = absl::GetFlag(FLAGS_kill_grace);
  options.version = absl::StrCat("gnomon-executor/", gnomon::Version());

  absl::StatusOr<gnomon::generic_executor::DestinationAllowList> http_allow =
      gnomon::generic_executor::DestinationAllowList::Parse(absl::GetFlag(FLAGS_http_allow));
  if (!http_allow.ok()) return cli::Fail(2, http_allow.status().message());
  absl::StatusOr<gnomon::generic_executor::CommandAllowList> command_allow =
      gnomon::generic_executor::CommandAllowList::Parse(absl::GetFlag(FLAGS_command_allow));
  if (!command_allow.ok()) return cli::Fail(2, command_allow.status().message());
  // One line each, so an operator sees at start-up what jobs may reach.
  std::printf("gnomon-executor http allows: %s\n", http_allow->empty()
                                                       ? "nothing (--http-allow is empty)"
                                                       : http_allow->ToString().c_str());
  std::printf("gnomon-executor command allows: %s\n", command_allow->empty()
                                                          ? "nothing (--command-allow is empty)"
                                                          : command_allow->ToString().c_str());

  gnomon::curl::CurlGlobalInit();  // before any thread: curl_global_init is not thread-safe
  auto executor = gnomon::executor::Executor::Create(options);
  if (!executor.ok()) return cli::Fail(2, executor.status().ToString());
  gnomon::generic_executor::HttpHandlerOptions http_options{*std::move(http_allow)};
  http_options.user_agent = absl::StrCat("gnomon-executor/", gnomon::Version());
  if (absl::Status s = (*executor)->RegisterHandler(
          "http", gnomon::generic_executor::HttpHandler(std::move(http_options)));
      !s.ok()) {
    return cli::Fail(2, s.ToString());
  }
  if (absl::Status s = (*executor)->RegisterHandler(
          "command", gnomon::generic_executor::CommandHandler(*std::move(command_allow),
                                                              absl::GetFlag(FLAGS_kill_grace)));
      !s.ok()) {
    return cli::Fail(2, s.ToString());
  }
  return cli::StartAndRun(**executor, options);
}

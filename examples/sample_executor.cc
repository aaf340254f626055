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
#include <string>

#include "absl/flags/flag.h"
#include "absl/time/time.h"
#include "examples/sample_handlers.h"
#include "gnomon/executor/executor.h"
#include "services/executor-sdk/cli/executor_cli.h"

// The connection and run flags are in services/executor-sdk/cli/.
ABSL_FLAG(int, max_queued_runs_per_job, 256,
          "Runs of one job waiting behind its running run; more are refused as queue full.");
ABSL_FLAG(std::string, invocations_file, "",
          "Append \"run_id job_id attempt start_us\" to this file at every handler invocation, "
          "and \"end run_id end_us\" when it returns (for tests that count executions).");
ABSL_FLAG(absl::Duration, tls_reload_interval, absl::Seconds(60),
          "How often the TLS files are re-read (rotation without restart).");

namespace cli = gnomon::executor::cli;

int main(int argc, char** argv) {
  static constexpr cli::CliSpec kSpec{
      "gnomon-sample-executor", "sample_executor",
      "gnomon-sample-executor: a sample gnomon executor with the handlers demo, invoice, shell,\n"
      "http, sharding, slow, fail and noop. Every flag has a GNOMON_* environment equivalent, and\n"
      "may be spelled with dashes (--spool-dir) or underscores (--spool_dir). Without\n"
      "--app or GNOMON_APP the app is \"sample\"; without --registry or GNOMON_REGISTRY,\n"
      "127.0.0.1:7070.\n\n"
      "  GNOMON_ACCESS_TOKEN=<group token> gnomon-sample-executor --app sample \\\n"
      "      --registry 127.0.0.1:7070 --spool-dir /var/tmp/sample-spool\n\n"
      "It opens no port: it connects out to every gnomond replica (--schedulers).\n"
      "Prints \"gnomon-sample-executor started as NAME\" once started; stops\n"
      "gracefully on SIGTERM or SIGINT (a second signal exits at once)."};
  cli::ParseCommandLine(kSpec, argc, argv);

  absl::StatusOr<gnomon::executor::ExecutorOptions> options = cli::OptionsFromFlags();
  if (!options.ok()) return cli::Fail(2, options.status().ToString());
  // The sample's defaults: the quickstart's app and a local gnomond.
  if (options->app_name.empty()) options->app_name = "sample";
  if (options->registry_endpoints.empty()) options->registry_endpoints = {"127.0.0.1:7070"};
  options->max_queued_runs_per_job = absl::GetFlag(FLAGS_max_queued_runs_per_job);
  options->tls.reload_interval = absl::GetFlag(FLAGS_tls_reload_interval);
  options->version = "gnomon-sample-executor/0.1";

  auto executor = gnomon::executor::Executor::Create(*options);
  if (!executor.ok()) return cli::Fail(2, executor.status().ToString());
  absl::Status registered =
      gnomon::sample::RegisterSampleHandlers(**executor, absl::GetFlag(FLAGS_invocations_file));
  if (!registered.ok()) return cli::Fail(2, registered.ToString());
  return cli::StartAndRun(**executor, *options);
}

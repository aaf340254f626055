#include <cstdio>

#include "gnomon/executor/executor.h"

int main() {
  auto options = gnomon::executor::OptionsFromEnvironment();  // GNOMON_* variables
  if (!options.ok()) return 2;
  options->app_name = "billing";
  options->spool_dir = "/var/lib/billing/gnomon-spool";  // results survive restarts
  options->log_dir = "/var/log/billing/gnomon";          // local run logs, on this host

  auto executor = gnomon::executor::Executor::Create(*options);
  if (!executor.ok()) return 2;
  absl::Status registered =
      (*executor)->RegisterHandler("invoice", [](gnomon::executor::JobContext& ctx) {
        ctx.Log("invoicing " + ctx.params());
        if (ctx.cancelled()) return;  // killed / timed out / covered
        ctx.SetResult(gnomon::executor::kHandleFailure, "no invoices");  // default is 200
      });
  if (!registered.ok()) return 2;
  // Starts, serves until SIGTERM or SIGINT, then lets running runs finish for
  // up to 30 s and flushes their results; a second signal exits at once.
  absl::Status run = (*executor)->Run(absl::Seconds(30));
  if (!run.ok()) std::fprintf(stderr, "billing: %s\n", run.ToString().c_str());
  return run.ok() ? 0 : 1;
}

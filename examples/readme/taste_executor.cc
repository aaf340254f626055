#include "gnomon/executor/executor.h"

int main() {
  auto options = gnomon::executor::OptionsFromEnvironment();  // GNOMON_APP, GNOMON_REGISTRY, ...
  if (!options.ok()) return 2;
  auto executor = gnomon::executor::Executor::Create(*options);
  if (!executor.ok()) return 2;
  absl::Status registered = (*executor)->RegisterHandler(
      "invoice", [](gnomon::executor::JobContext& ctx) { ctx.Log("invoicing " + ctx.params()); });
  if (!registered.ok()) return 2;
  return (*executor)->Run().ok() ? 0 : 1;  // serves until SIGTERM or SIGINT, then drains
}

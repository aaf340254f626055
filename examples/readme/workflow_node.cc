#include <fstream>
#include <optional>
#include <string>

#include "gnomon/executor/executor.h"

// Node "count" of a workflow: its parent node "extract" returned a file's
// path; it returns the file's line count, which its children get as input.
void Count(gnomon::executor::JobContext& ctx) {
  std::optional<std::string> path = ctx.Input("extract");  // the parent's output
  if (!path) {
    ctx.SetResult(gnomon::executor::kHandleFailure, "no input from extract");
    return;
  }
  ctx.Log("counting " + *path + " for workflow run " + std::to_string(ctx.workflow_run_id()));
  std::ifstream in(*path);
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  // At most kMaxOutputBytes (4 KiB) of UTF-8: a longer value is refused.
  absl::Status set = ctx.SetOutput(std::to_string(lines));
  if (!set.ok()) ctx.SetResult(gnomon::executor::kHandleFailure, set.ToString());
}

int main() {
  auto options = gnomon::executor::OptionsFromEnvironment();  // GNOMON_* variables
  if (!options.ok()) return 2;
  options->app_name = "reports";
  auto executor = gnomon::executor::Executor::Create(*options);
  if (!executor.ok()) return 2;
  if (!(*executor)->RegisterHandler("count", Count).ok()) return 2;
  return (*executor)->Run().ok() ? 0 : 1;
}

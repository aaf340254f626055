#include "services/executor-sdk/gnomon-executor/command_handler.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gnomon/executor/process.h"
#include "services/executor-sdk/gnomon-executor/task_params.h"

namespace gnomon::generic_executor {
namespace {

using executor::JobContext;

// The command line for the run log, bounded: each argument and the whole.
std::string ShownCommand(const v1::CommandTask& task) {
  std::vector<std::string> parts;
  for (const std::string& arg : task.argv()) parts.push_back(Shown(arg));
  std::string line = absl::StrJoin(parts, " ");
  if (line.size() > 1000) line = line.substr(0, 1000) + "...";
  return line;
}

}  // namespace

void CommandHandler::operator()(JobContext& ctx) const {
  absl::StatusOr<v1::CommandTask> task = ParseCommandTask(ctx.params());
  if (!task.ok()) {
    ctx.SetResult(executor::kHandleFailure, std::string(task.status().message()));
    return;
  }
  const std::string& program = task->argv(0);
  if (absl::Status allowed = allow_->Check(program); !allowed.ok()) {
    ctx.SetResult(executor::kHandleFailure, absl::StrCat("command: ", allowed.message()));
    return;
  }
  // Clear messages for the usual mistakes (posix_spawn would only say ENOENT).
  if (::access(program.c_str(), X_OK) != 0) {
    ctx.SetResult(executor::kHandleFailure,
                  absl::StrCat("command: ", Shown(program),
                               " does not exist or is not executable on this executor"));
    return;
  }
  executor::ProcessOptions options;
  options.kill_grace = kill_grace_;
  if (!task->working_dir().empty()) {
    struct stat st {};
    if (::stat(task->working_dir().c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      ctx.SetResult(executor::kHandleFailure,
                    absl::StrCat("command: working_dir ", Shown(task->working_dir()),
                                 " is not a directory on this executor"));
      return;
    }
    options.working_dir = task->working_dir();
  }
  options.env.insert(task->env().begin(), task->env().end());
  if (task->has_timeout()) options.timeout = ToDuration(task->timeout());

  std::vector<std::string> names;
  for (const auto& [name, value] : options.env) names.push_back(name);
  ctx.Log(absl::StrCat(
      "running ", ShownCommand(*task),
      names.empty() ? "" : absl::StrCat(" with ", absl::StrJoin(names, ", "), " set"),
      options.working_dir.empty() ? "" : absl::StrCat(" in ", Shown(options.working_dir))));
  // argv[0] holds a '/', so no PATH lookup happens: the allowed path runs.
  std::vector<std::string> argv(task->argv().begin(), task->argv().end());
  absl::StatusOr<int> exit = executor::RunProcess(ctx, argv, options);
  if (ctx.cancelled()) return;  // reported as killed / timed out by the SDK
  if (!exit.ok()) {
    ctx.SetResult(executor::kHandleFailure, absl::StrCat("command: ", exit.status().message()));
    return;
  }
  const bool success =
      task->success_exit_codes().empty()
          ? *exit == 0
          : std::find(task->success_exit_codes().begin(), task->success_exit_codes().end(),
                      *exit) != task->success_exit_codes().end();
  const std::string summary = absl::StrCat(Shown(program), " exited with code ", *exit);
  if (success) {
    ctx.SetResult(executor::kHandleSuccess, summary);
  } else {
    ctx.SetResult(executor::kHandleFailure,
                  absl::StrCat(summary, " (success: ",
                               task->success_exit_codes().empty()
                                   ? "0"
                                   : absl::StrJoin(task->success_exit_codes(), ", "),
                               ")"));
  }
}

}  // namespace gnomon::generic_executor

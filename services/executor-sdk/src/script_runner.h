// RunScript: executes a GLUE script run as a child process: SHELL with
// /bin/sh, PYTHON with python3, NODEJS with node, POWERSHELL with pwsh
// (-NoProfile -NonInteractive -File), each found on the executor's PATH.
// An interpreter this executor lacks fails the run (500) with a message
// naming the interpreter and the executor's host, before anything starts.
//
// The source is written into a private temporary directory, which is the
// child's working directory; the arguments are the params, the shard index
// and the shard total. stdout and stderr become run-log lines. Exit code 0 is
// success; anything else is a 500 with the exit code. When the run is
// cancelled, the child's process group gets SIGTERM, then SIGKILL after
// kill_grace.
//
// The child's environment is the executor's without its GNOMON_ variables
// (as RunProcess gives). A workflow node's run (RunRequest.workflow_run_id or
// inputs set) adds its own, and only such a run:
//   GNOMON_WORKFLOW_RUN_ID  its workflow run.
//   GNOMON_INPUT_<NODE>     each parent's output, under
//                           ScriptInputVariable(parent). A name two parents
//                           share holds the first one's (a run-log line names
//                           the other); a value holding a NUL or longer than
//                           Linux takes (128 KiB) is left out, with a run-log
//                           line.
//   GNOMON_OUTPUT_FILE      an empty file of the private directory; what the
//                           script writes there (one final newline dropped,
//                           at most kMaxOutputBytes, UTF-8) becomes the run's
//                           output once it has exited, whatever its exit
//                           code. Otherwise the output is not set and a
//                           run-log line says why; the result stands.
//
//   RunScript(ctx, request.script(), {.kill_grace = absl::Seconds(3)});
//
// Thread safety: thread-safe; blocks the calling thread until the child exits.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_SCRIPT_RUNNER_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_SCRIPT_RUNNER_H_

#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "gnomon/executor/job_context.h"
#include "gnomon/v1/common.pb.h"

namespace gnomon::executor::internal {

struct ScriptOptions {
  absl::Duration kill_grace = absl::Seconds(3);
  // Resource limits (RunOptions::script_max_*); 0: not limited.
  int max_memory_mib = 0;
  int max_open_files = 0;
  int max_file_mib = 0;
};

void RunScript(JobContext& ctx, const v1::ScriptTask& script, const ScriptOptions& options);

// "GNOMON_INPUT_" and `node` upper-cased, every byte but [A-Z0-9_] made '_':
// "fetch-day.v2" -> "GNOMON_INPUT_FETCH_DAY_V2".
std::string ScriptInputVariable(std::string_view node);

// Whether RunScript knows the language (it may still lack the interpreter).
bool IsScriptLanguage(v1::ScriptLanguage language);

// The executable file `name` resolves to on $PATH ("" if none); a name with
// a '/' is itself. With `error`, why none: EACCES if only files that cannot be
// executed were found (as execvp says), else ENOENT.
std::string FindOnPath(const std::string& name, int* error = nullptr);

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_SCRIPT_RUNNER_H_

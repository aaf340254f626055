// RunProcess: runs a child process on behalf of a job, the way script (GLUE)
// runs do, so handlers that shell out behave well too.
//
// The child gets its own process group, /dev/null as stdin, and its stdout and
// stderr become run-log lines as they are written. If the run is cancelled
// (killed, timed out, covered), the whole process group gets SIGTERM, then
// everything the child started gets SIGKILL after `kill_grace`. When the
// child exits, whatever it left running is killed: nothing a job starts
// outlives it — background children, and those that left the group with
// setsid(2) or double forks too (a subreaper process per run collects them;
// Linux only).
//
// The child's environment is the executor's minus every variable whose name
// starts with GNOMON_: those configure the SDK and carry its credentials
// (GNOMON_ACCESS_TOKEN, the group's token; GNOMON_TLS_KEY), which a job's code
// must not get. The rest (PATH, HOME, LANG, TMPDIR, ...) is passed on, with
// ProcessOptions::env added on top; a value a child needs must be there or in
// the executor's environment under another name.
//
//   absl::StatusOr<int> exit = gnomon::executor::RunProcess(ctx, {"/bin/sh", "-c", cmd});
//   if (!exit.ok()) ctx.SetResult(500, std::string(exit.status().message()));
//   else if (*exit != 0) ctx.SetResult(500, "exit code " + std::to_string(*exit));
//
// Thread safety: thread-safe; blocks the calling thread until the child exits.
#ifndef GNOMON_EXECUTOR_PROCESS_H_
#define GNOMON_EXECUTOR_PROCESS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gnomon/executor/job_context.h"

namespace gnomon::executor {

struct ProcessOptions {
  // The child's working directory; empty means the executor's.
  std::string working_dir;
  // Variables set in the child's environment, replacing inherited ones of the
  // same name. A name must be non-empty without '=' and must not start with
  // GNOMON_ (InvalidArgument otherwise); no name or value may hold a NUL.
  std::map<std::string, std::string> env;
  // The child's own limit: when it runs longer, its process group is stopped
  // as on cancellation and RunProcess returns DeadlineExceeded. Infinite:
  // only the run's cancellation stops it.
  absl::Duration timeout = absl::InfiniteDuration();
  // Between SIGTERM and SIGKILL after cancellation or the timeout.
  absl::Duration kill_grace = absl::Seconds(3);
};

// Returns the exit code (0-255), 128 + the signal number if the child died of
// a signal, DeadlineExceeded if options.timeout stopped it, or an error if it
// could not be started. argv[0] is looked up in PATH unless it holds a '/'.
absl::StatusOr<int> RunProcess(JobContext& ctx, const std::vector<std::string>& argv,
                               const ProcessOptions& options = {});

}  // namespace gnomon::executor

#endif  // GNOMON_EXECUTOR_PROCESS_H_

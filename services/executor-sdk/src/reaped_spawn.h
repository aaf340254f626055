// SpawnReaped: starts a job's child process under a reaper of its own, so
// that nothing the child starts outlives it — not even a process that left
// its process group with setsid(2), which a kill of the group misses.
//
// The reaper is a fork of the executor that makes itself a child subreaper
// (prctl PR_SET_CHILD_SUBREAPER): every descendant of the child whose parent
// dies is re-parented to the reaper instead of init, whatever its session or
// group. The reaper starts the child, waits for it, then SIGKILLs and reaps
// every process left below it (its children, read from /proc, until there are
// none) and exits with the child's status: its exit code, or 128 + the signal
// that killed it. Child and reaper share one process group, whose id is the
// reaper's pid; the reaper ignores SIGTERM, SIGINT, SIGHUP and SIGQUIT (the
// child gets them as usual), and on SIGUSR1 kills everything below it at once.
//
// So a caller stops a run by signalling the group (`kill(-pid, SIGTERM)`),
// and after a grace asks the reaper to finish it (`kill(pid, SIGUSR1)`). The
// reaper holds no descriptor of the executor's but the child's stdin, stdout
// and stderr.
//
//   absl::StatusOr<pid_t> pid = SpawnReaped({argv, env, "/tmp", out_fd});
//
// Thread safety: thread-safe (between fork and exec only async-signal-safe
// calls are made).
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_REAPED_SPAWN_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_REAPED_SPAWN_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace gnomon::executor::internal {

struct SpawnSpec {
  // argv[0] is looked up in the executor's PATH unless it holds a '/'.
  std::vector<std::string> argv;
  // "NAME=value" entries, the child's whole environment.
  std::vector<std::string> env;
  // The child's working directory; empty: the executor's.
  std::string working_dir;
  // Becomes the child's stdout and stderr (stdin is /dev/null).
  int output_fd = -1;
};

// The reaper's pid (also the group's id), or FailedPrecondition "cannot start
// <argv[0]>: <reason>" when the child could not be executed.
absl::StatusOr<pid_t> SpawnReaped(const SpawnSpec& spec);

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_REAPED_SPAWN_H_

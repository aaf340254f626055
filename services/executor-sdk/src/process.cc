#include "gnomon/executor/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "services/executor-sdk/src/child_environment.h"
#include "services/executor-sdk/src/process_internal.h"
#include "services/executor-sdk/src/reaped_spawn.h"

extern char** environ;

namespace gnomon::executor {
namespace {

// Splits buffered output into complete lines and logs them.
void LogLines(JobContext& ctx, std::string& pending, bool flush_partial) {
  size_t start = 0;
  for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    ctx.Log(std::string_view(pending).substr(start, nl - start));
  }
  pending.erase(0, start);
  if (flush_partial && !pending.empty()) {
    ctx.Log(pending);
    pending.clear();
  }
  if (pending.size() > 64 * 1024) {  // an endless line: log it in pieces
    ctx.Log(pending);
    pending.clear();
  }
}

}  // namespace

absl::StatusOr<int> RunProcess(JobContext& ctx, const std::vector<std::string>& argv,
                               const ProcessOptions& options) {
  if (absl::Status env_ok = internal::ValidateExtraEnvironment(options.env); !env_ok.ok()) {
    return env_ok;
  }
  return internal::RunProcessWithEnvironment(
      ctx, argv, internal::ChildEnvironment(environ, options.env), options);
}

namespace internal {

absl::StatusOr<int> RunProcessWithEnvironment(JobContext& ctx, const std::vector<std::string>& argv,
                                              std::vector<std::string> env,
                                              const ProcessOptions& options) {
  if (argv.empty()) return absl::InvalidArgumentError("empty command");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  absl::StatusOr<pid_t> spawned = SpawnReaped({argv, std::move(env), options.working_dir, fds[1]});
  ::close(fds[1]);
  if (!spawned.ok()) {
    ::close(fds[0]);
    return spawned.status();
  }
  const pid_t pid = *spawned;

  std::string pending;
  bool pipe_open = true;
  bool exited = false;
  int status = 0;
  const absl::Time started = absl::Now();
  bool timed_out = false;
  absl::Time term_sent = absl::InfiniteFuture();
  char buf[8192];
  while (!exited || pipe_open) {
    // Polls the output (fd -1 is ignored once closed) with a short timeout so
    // cancellation and the child's exit are noticed promptly.
    struct pollfd p = {pipe_open ? fds[0] : -1, POLLIN, 0};
    int ready = ::poll(&p, 1, exited ? 0 : 50);
    if (pipe_open && ready > 0) {
      ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n > 0) {
        pending.append(buf, static_cast<size_t>(n));
        LogLines(ctx, pending, false);
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        pipe_open = false;
      }
    } else if (pipe_open && ready == 0 && exited) {
      pipe_open = false;  // background grandchildren keep the pipe: stop reading
    }
    if (!exited && ::waitpid(pid, &status, WNOHANG) == pid) exited = true;
    if (!exited && !timed_out && options.timeout != absl::InfiniteDuration() &&
        absl::Now() - started >= options.timeout) {
      timed_out = true;
    }
    if (!exited && (ctx.cancelled() || timed_out)) {
      absl::Time now = absl::Now();
      if (term_sent == absl::InfiniteFuture()) {
        ::kill(-pid, SIGTERM);  // The child's group; its reaper ignores it.
        term_sent = now;
      } else if (now - term_sent >= options.kill_grace) {
        // The reaper SIGKILLs everything below it and exits. Asked again
        // each turn: a signal that came just before it waited is not lost.
        ::kill(pid, SIGUSR1);
      }
    }
  }
  // The reaper (reaped_spawn.h) killed whatever the child left behind, in
  // its group or not, before it exited: nothing a job starts outlives it.
  LogLines(ctx, pending, true);
  ::close(fds[0]);
  if (timed_out) {
    return absl::DeadlineExceededError(absl::StrCat(argv[0], " ran longer than its timeout of ",
                                                    absl::FormatDuration(options.timeout),
                                                    " and was stopped"));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

}  // namespace internal
}  // namespace gnomon::executor

#include "gnomon/executor/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "services/executor-sdk/src/child_environment.h"

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
  if (argv.empty()) return absl::InvalidArgumentError("empty command");
  if (absl::Status env_ok = internal::ValidateExtraEnvironment(options.env); !env_ok.ok()) {
    return env_ok;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  if (!options.working_dir.empty()) {
    posix_spawn_file_actions_addchdir_np(&actions, options.working_dir.c_str());
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGCHLD, SIGQUIT}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> env = internal::ChildEnvironment(environ, options.env);
  std::vector<char*> envp;
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  if (rc != 0) {
    ::close(fds[0]);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start ", argv[0], ": ", std::strerror(rc)));
  }

  std::string pending;
  bool pipe_open = true;
  bool exited = false;
  int status = 0;
  const absl::Time started = absl::Now();
  bool timed_out = false;
  absl::Time term_sent = absl::InfiniteFuture();
  bool kill_sent = false;
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
        ::kill(-pid, SIGTERM);
        term_sent = now;
      } else if (!kill_sent && now - term_sent >= options.kill_grace) {
        ::kill(-pid, SIGKILL);
        kill_sent = true;
      }
    }
  }
  // Whatever is left of the group goes with the run, however it ended: a
  // job's background children do not outlive it (nor hold the pipe).
  if (!kill_sent) ::kill(-pid, SIGKILL);
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

}  // namespace gnomon::executor

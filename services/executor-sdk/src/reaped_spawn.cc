#include "services/executor-sdk/src/reaped_spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "services/executor-sdk/src/script_runner.h"

namespace gnomon::executor::internal {
namespace {

// The fd the reaper keeps the error pipe on (after 0, 1, 2).
constexpr int kErrorFd = 3;

// Async-signal-safe from here on: these run in the forked reaper.

[[noreturn]] void ReportAndExit(int error) {
  ssize_t ignored = ::write(kErrorFd, &error, sizeof error);
  (void)ignored;
  ::_exit(127);
}

// SIGKILLs every child of the reaper (its thread's, read from /proc): the
// orphans re-parented to it included. Returns how many were signalled.
int KillChildren() {
  const int fd = ::open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[4096];
  pid_t pid = 0;
  int killed = 0;
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
    for (ssize_t i = 0; i < n; ++i) {
      if (buf[i] >= '0' && buf[i] <= '9') {
        pid = pid * 10 + (buf[i] - '0');
      } else if (pid > 0) {
        killed += ::kill(pid, SIGKILL) == 0;
        pid = 0;
      }
    }
  }
  if (pid > 0) killed += ::kill(pid, SIGKILL) == 0;
  ::close(fd);
  return killed;
}

void SetDisposition(int sig, void (*handler)(int)) {
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  ::sigaction(sig, &sa, nullptr);
}

constexpr int kStopSignals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};

[[noreturn]] void ExecChild(const char* path, char* const* argv, char* const* envp,
                            const char* working_dir) {
  for (int sig : kStopSignals) SetDisposition(sig, SIG_DFL);
  SetDisposition(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (working_dir != nullptr && ::chdir(working_dir) != 0) ReportAndExit(errno);
  ::execve(path, argv, envp);
  ReportAndExit(errno);
}

[[noreturn]] void RunReaper(int output_fd, int error_fd, const char* path, char* const* argv,
                            char* const* envp, const char* working_dir) {
  // SIGCHLD and SIGUSR1 are taken with sigwaitinfo, no handler: one that
  // arrives while the reaper is busy stays pending, so none is missed (and a
  // SIGUSR1 sent early cannot end the reaper).
  sigset_t waited;
  sigemptyset(&waited);
  sigaddset(&waited, SIGCHLD);
  sigaddset(&waited, SIGUSR1);
  ::sigprocmask(SIG_SETMASK, &waited, nullptr);
  ::setpgid(0, 0);
  // The descriptors the child gets, then none of the executor's.
  const int out = ::fcntl(output_fd, F_DUPFD_CLOEXEC, 10);
  const int err = ::fcntl(error_fd, F_DUPFD_CLOEXEC, 10);
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (out < 0 || err < 0 || null < 0 || ::dup2(null, 0) < 0 || ::dup2(out, 1) < 0 ||
      ::dup2(out, 2) < 0 || ::dup2(err, kErrorFd) < 0) {
    ::_exit(127);
  }
  ::fcntl(kErrorFd, F_SETFD, FD_CLOEXEC);
  ::syscall(SYS_close_range, kErrorFd + 1, ~0U, 0);
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) ReportAndExit(errno);
  for (int sig : kStopSignals) SetDisposition(sig, SIG_IGN);
  SetDisposition(SIGPIPE, SIG_IGN);
  SetDisposition(SIGCHLD, SIG_DFL);
  SetDisposition(SIGUSR1, SIG_DFL);

  const pid_t child = ::fork();
  if (child < 0) ReportAndExit(errno);
  if (child == 0) ExecChild(path, argv, envp, working_dir);
  ::close(kErrorFd);
  int status = 0;
  bool exited = false, finish = false;
  for (;;) {
    int st = 0;
    pid_t done;
    while ((done = ::waitpid(-1, &st, WNOHANG)) > 0) {
      if (done == child) {
        status = st;
        exited = true;
      }
    }
    if (done < 0 && errno == ECHILD) break;
    if (exited || finish) KillChildren();
    if (::sigwaitinfo(&waited, nullptr) == SIGUSR1) finish = true;
  }
  if (WIFEXITED(status)) ::_exit(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) ::_exit(128 + WTERMSIG(status));
  ::_exit(255);
}

}  // namespace

absl::StatusOr<pid_t> SpawnReaped(const SpawnSpec& spec) {
  if (spec.argv.empty()) return absl::InvalidArgumentError("empty command");
  // A name with a '/' goes to execve as it is (its errno, if any, comes back
  // through the error pipe); others are looked up as execvp would.
  int not_found = 0;
  const std::string path = spec.argv[0].find('/') != std::string::npos
                               ? spec.argv[0]
                               : FindOnPath(spec.argv[0], &not_found);
  if (path.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start ", spec.argv[0], ": ", std::strerror(not_found)));
  }
  std::vector<char*> argv, envp;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const char* working_dir = spec.working_dir.empty() ? nullptr : spec.working_dir.c_str();
  int errors[2];
  if (::pipe2(errors, O_CLOEXEC) != 0) {
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    RunReaper(spec.output_fd, errors[1], path.c_str(), argv.data(), envp.data(), working_dir);
  }
  const int fork_error = errno;
  ::close(errors[1]);
  if (pid < 0) {
    ::close(errors[0]);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(fork_error)));
  }
  ::setpgid(pid, pid);  // As the reaper does, so a kill of the group cannot come first.
  // EOF once the child has executed (the pipe is close-on-exec); else its errno.
  int exec_error = 0;
  ssize_t n;
  while ((n = ::read(errors[0], &exec_error, sizeof exec_error)) < 0 && errno == EINTR) {
  }
  ::close(errors[0]);
  if (n == static_cast<ssize_t>(sizeof exec_error)) {
    int ignored;
    while (::waitpid(pid, &ignored, 0) < 0 && errno == EINTR) {
    }
    return absl::FailedPreconditionError(
        absl::StrCat("cannot start ", spec.argv[0], ": ", std::strerror(exec_error)));
  }
  return pid;
}

}  // namespace gnomon::executor::internal

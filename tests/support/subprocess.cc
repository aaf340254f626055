#include "tests/support/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

extern char** environ;
#include <filesystem>
#include <stdexcept>

#include "absl/time/clock.h"

namespace gnomon::testing {
namespace {

std::vector<char*> CStrings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

pid_t Spawn(std::vector<std::string> argv, const std::map<std::string, std::string>& env,
            int out_fd, int err_fd) {
  // Everything the child needs is built before fork: between fork and exec a
  // multi-threaded parent's child may only make async-signal-safe calls.
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    if (env.count(kv.substr(0, kv.find('='))) == 0) envs.push_back(kv);
  }
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> args = CStrings(argv);
  std::vector<char*> envp = CStrings(envs);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);  // Own process group, so a test can signal the whole tree.
    // Die with the test: a test killed by a timeout leaves no servers behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    execvpe(args[0], args.data(), envp.data());  // A bare name is looked up in PATH.
    static const char kMsg[] = "exec failed\n";
    ssize_t ignored = write(STDERR_FILENO, kMsg, sizeof(kMsg) - 1);
    (void)ignored;
    _exit(127);
  }
  return pid;
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) out.append(buf, n);
  return out;
}

}  // namespace

Subprocess::Subprocess(std::vector<std::string> argv, std::map<std::string, std::string> env) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error("pipe");
  pid_ = Spawn(std::move(argv), env, out[1], err[1]);
  close(out[1]);
  close(err[1]);
  out_ = std::thread([this, fd = out[0]] { Pump(fd); });
  err_ = std::thread([this, fd = err[0]] { Pump(fd); });
}

Subprocess::~Subprocess() {
  if (!reaped_) {
    Kill(SIGKILL);
    Wait();
  }
  out_.join();
  err_.join();
}

void Subprocess::Pump(int fd) {
  std::string pending;
  char buf[4096];
  ssize_t n;
  while ((n = read(fd, buf, sizeof(buf))) > 0) {
    pending.append(buf, n);
    size_t nl;
    while ((nl = pending.find('\n')) != std::string::npos) {
      absl::MutexLock l(&mu_);
      lines_.push_back(pending.substr(0, nl));
      pending.erase(0, nl + 1);
    }
  }
  close(fd);
  absl::MutexLock l(&mu_);
  if (!pending.empty()) lines_.push_back(pending);
  --open_streams_;
}

std::optional<std::string> Subprocess::WaitForLine(const std::string& needle,
                                                   absl::Duration timeout) {
  absl::MutexLock l(&mu_);
  size_t checked = 0;
  std::optional<std::string> found;
  auto ready = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    for (; checked < lines_.size(); ++checked) {
      if (lines_[checked].find(needle) != std::string::npos) {
        found = lines_[checked];
        return true;
      }
    }
    return open_streams_ == 0;
  };
  mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
  return found;
}

std::string Subprocess::Output() const {
  absl::MutexLock l(&mu_);
  std::string out;
  for (const auto& line : lines_) out += line + "\n";
  return out;
}

void Subprocess::Kill(int sig) {
  if (!reaped_) kill(pid_, sig);
}

int Subprocess::Wait() {
  if (reaped_) return exit_code_;
  int status = 0;
  waitpid(pid_, &status, 0);
  Reaped(status);
  return exit_code_;
}

void Subprocess::Reaped(int status) {
  reaped_ = true;
  exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  absl::MutexLock l(&mu_);
  auto drained = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return open_streams_ == 0; };
  mu_.AwaitWithTimeout(absl::Condition(&drained), absl::Seconds(5));
}

std::optional<int> Subprocess::WaitFor(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!reaped_) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      Reaped(status);
      break;
    }
    if (absl::Now() >= deadline) return std::nullopt;
    absl::SleepFor(absl::Milliseconds(10));  // waitpid has no timeout; poll the exit.
  }
  return exit_code_;
}

CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env) {
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return {};
  pid_t pid = Spawn(argv, env, out[1], err[1]);
  close(out[1]);
  close(err[1]);
  CommandResult r;
  std::thread t([&] { r.err = ReadAll(err[0]); });
  r.out = ReadAll(out[0]);
  t.join();
  close(out[0]);
  close(err[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "gnomon-test-XXXXXX").string();
  char* p = mkdtemp(tmpl.data());
  if (p == nullptr) throw std::runtime_error("mkdtemp");
  path_ = p;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace gnomon::testing

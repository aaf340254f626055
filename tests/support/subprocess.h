// Subprocess: starts a real binary for integration and end-to-end tests,
// captures its stdout and stderr line by line, and stops it.
//
//   Subprocess p({GNOMOND_PATH, "--listen=127.0.0.1:0"});
//   std::optional<std::string> line = p.WaitForLine("listening on", absl::Seconds(20));
//   p.Kill(SIGKILL);
//
// Waiting is on output the process prints (an event), with a deadline as a
// failure guard — never a fixed sleep.
//
// Thread safety: thread-safe.
#ifndef GNOMON_TESTS_SUPPORT_SUBPROCESS_H_
#define GNOMON_TESTS_SUPPORT_SUBPROCESS_H_

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gnomon::testing {

class Subprocess {
 public:
  // Starts argv[0] with `env` added to the environment.
  explicit Subprocess(std::vector<std::string> argv, std::map<std::string, std::string> env = {});
  ~Subprocess();  // SIGKILLs a process still running.

  pid_t pid() const { return pid_; }
  // The first line (stdout or stderr) containing `needle`, seen so far or
  // within `timeout`.
  std::optional<std::string> WaitForLine(const std::string& needle, absl::Duration timeout)
      ABSL_LOCKS_EXCLUDED(mu_);
  // All output so far (for failure messages).
  std::string Output() const ABSL_LOCKS_EXCLUDED(mu_);
  void Kill(int sig);
  // Waits for exit, and for what it wrote before it to be read (so Output()
  // is complete; at most 5 s, as a child it started may hold its pipes);
  // returns the exit code, or 128+signal.
  int Wait();
  // Like Wait(), but gives up after `timeout` (nullopt: still running).
  std::optional<int> WaitFor(absl::Duration timeout);

 private:
  void Pump(int fd);
  // Records the exit `status` waitpid gave, then waits (at most 5 s) until
  // both pipes are read to their end.
  void Reaped(int status) ABSL_LOCKS_EXCLUDED(mu_);

  pid_t pid_ = -1;
  bool reaped_ = false;
  int exit_code_ = -1;
  std::thread out_, err_;
  mutable absl::Mutex mu_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mu_);
  int open_streams_ ABSL_GUARDED_BY(mu_) = 2;
};

// Runs a command to completion (argv[0] a path, or a name looked up in PATH);
// returns exit code and stdout/stderr.
struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};
CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env = {});

// A fresh temporary directory, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_SUBPROCESS_H_

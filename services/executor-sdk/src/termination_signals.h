// TerminationSignals: Executor::Run()'s ownership of SIGINT and SIGTERM.
//
// While an instance lives, both signals are handled by a handler that only
// writes the signal's number to a process-wide self-pipe (write(2) is
// async-signal-safe), whichever thread the kernel picks to take them; the
// owner reads the pipe. The calling thread unblocks both signals, so they are
// delivered even in a program that blocked them before (threads started
// later, by Start(), inherit that). The destructor puts back the previous
// handlers and the calling thread's previous mask.
//
//   auto signals = TerminationSignals::Install(&logger);
//   int sig = (*signals)->Wait();    // a signal number, or 0 after Wake()
//   (*signals)->ExitOnSignal(0);     // from now on a signal ends the process
//   ... drain ...
//   signals->reset();                // handlers and mask restored
//
// The pipe is created once and never closed: a handler still running on
// another thread while the handlers are being restored writes to the same
// pipe, never to a reused descriptor; what it writes late is discarded by
// the next Install().
//
// Thread safety: one instance per process at a time (Install() refuses a
// second); construct and destroy it on the same thread. Wake() may be called
// from any thread.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_TERMINATION_SIGNALS_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_TERMINATION_SIGNALS_H_

#include <signal.h>

#include <memory>
#include <thread>

#include "absl/status/statusor.h"
#include "services/executor-sdk/src/logger.h"

namespace gnomon::executor::internal {

class TerminationSignals {
 public:
  // FailedPrecondition if another instance lives (another Run() owns the
  // signals); Internal if the pipe or handlers cannot be set up.
  static absl::StatusOr<std::unique_ptr<TerminationSignals>> Install(const Logger* logger);
  ~TerminationSignals();
  TerminationSignals(const TerminationSignals&) = delete;
  TerminationSignals& operator=(const TerminationSignals&) = delete;

  // Blocks until SIGINT or SIGTERM arrives (returns its number) or Wake() is
  // called (returns 0).
  int Wait();
  // Makes a Wait() return 0 (now, or at once when it is next called).
  void Wake();
  // Starts a thread that ignores the next `absorb` signals and, on the one
  // after, logs and ends the process with that signal's default action
  // (killed by the signal) without waiting for anything. Stopped by the
  // destructor. Call it after Wait() has returned.
  void ExitOnSignal(int absorb);

 private:
  explicit TerminationSignals(const Logger* logger) : logger_(logger) {}

  const Logger* const logger_;
  struct sigaction old_int_ = {};
  struct sigaction old_term_ = {};
  sigset_t old_mask_ = {};
  std::thread exit_watcher_;
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_TERMINATION_SIGNALS_H_

#include "services/executor-sdk/src/termination_signals.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace gnomon::executor::internal {
namespace {

// Bytes on the pipe besides signal numbers.
constexpr unsigned char kWakeByte = 0;
constexpr unsigned char kQuitByte = 255;

std::atomic<bool> g_owned{false};
// Lock-free, so the handler may read it.
std::atomic<int> g_write_fd{-1};
static_assert(std::atomic<int>::is_always_lock_free);

void OnSignal(int sig) {
  const int saved_errno = errno;
  const int fd = g_write_fd.load(std::memory_order_relaxed);
  const unsigned char byte = static_cast<unsigned char>(sig);
  // Non-blocking: with 64 KiB of unread signals, dropping one loses nothing.
  if (fd >= 0) (void)!::write(fd, &byte, 1);
  errno = saved_errno;
}

// The process-wide pipe's read end (created on first use, never closed), or
// -1 with errno set.
int PipeReadFd() {
  static const int read_fd = [] {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
    if (::fcntl(fds[1], F_SETFL, O_NONBLOCK) != 0) return -1;
    g_write_fd.store(fds[1]);
    return fds[0];
  }();
  return read_fd;
}

void WriteByte(unsigned char byte) {
  const int fd = g_write_fd.load();
  while (fd >= 0 && ::write(fd, &byte, 1) < 0 && errno == EINTR) {
  }
}

// Blocks for the next byte. Waits in poll(), not read(): ThreadSanitizer
// runs a signal handler at once only for a thread inside a call it knows
// to block (poll is one, read is not); otherwise it defers the handler to the
// thread's next intercepted call, which a thread asleep in read never makes.
unsigned char ReadByte() {
  pollfd p{PipeReadFd(), POLLIN, 0};
  unsigned char byte = kQuitByte;
  for (;;) {
    if (::poll(&p, 1, -1) != 1) continue;  // EINTR
    if (::read(p.fd, &byte, 1) == 1) return byte;
  }
}

// Discards what earlier owners left unread.
void DiscardPending() {
  pollfd p{PipeReadFd(), POLLIN, 0};
  unsigned char byte;
  while (::poll(&p, 1, 0) == 1 && (p.revents & POLLIN) != 0) {
    if (::read(p.fd, &byte, 1) != 1) break;
  }
}

sigset_t TheSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

bool IsTermination(unsigned char byte) { return byte == SIGINT || byte == SIGTERM; }

}  // namespace

absl::StatusOr<std::unique_ptr<TerminationSignals>> TerminationSignals::Install(
    const Logger* logger) {
  bool expected = false;
  if (!g_owned.compare_exchange_strong(expected, true)) {
    return absl::FailedPreconditionError(
        "SIGINT and SIGTERM are already owned by another Executor::Run()");
  }
  if (PipeReadFd() < 0) {
    g_owned.store(false);
    return absl::InternalError(
        absl::StrCat("cannot create the signal pipe: ", std::strerror(errno)));
  }
  DiscardPending();
  std::unique_ptr<TerminationSignals> signals(new TerminationSignals(logger));
  struct sigaction action = {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, &signals->old_int_);
  ::sigaction(SIGTERM, &action, &signals->old_term_);
  const sigset_t set = TheSignals();
  ::pthread_sigmask(SIG_UNBLOCK, &set, &signals->old_mask_);
  return signals;
}

TerminationSignals::~TerminationSignals() {
  if (exit_watcher_.joinable()) {
    WriteByte(kQuitByte);
    exit_watcher_.join();
  }
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
  ::pthread_sigmask(SIG_SETMASK, &old_mask_, nullptr);
  g_owned.store(false);
}

int TerminationSignals::Wait() {
  for (;;) {
    const unsigned char byte = ReadByte();
    if (byte == kWakeByte) return 0;
    if (IsTermination(byte)) return byte;
  }
}

void TerminationSignals::Wake() { WriteByte(kWakeByte); }

void TerminationSignals::ExitOnSignal(int absorb) {
  exit_watcher_ = std::thread([logger = logger_, absorb]() mutable {
    for (;;) {
      const unsigned char byte = ReadByte();
      if (byte == kQuitByte) return;
      if (!IsTermination(byte)) continue;
      if (absorb > 0) {
        --absorb;
        logger->Info(absl::StrCat("signal ", static_cast<int>(byte), ": already draining"));
        continue;
      }
      const int sig = byte;
      logger->Warning(absl::StrCat("signal ", sig,
                                   " during the drain: exiting at once; unacknowledged results "
                                   "stay in the spool"));
      // The signal's default action, taken on this thread: the process ends
      // as killed by it (what a shell or supervisor expects).
      struct sigaction action = {};
      action.sa_handler = SIG_DFL;
      sigemptyset(&action.sa_mask);
      ::sigaction(sig, &action, nullptr);
      sigset_t set;
      sigemptyset(&set);
      sigaddset(&set, sig);
      ::pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
      ::raise(sig);
      ::_exit(128 + sig);
    }
  });
}

}  // namespace gnomon::executor::internal

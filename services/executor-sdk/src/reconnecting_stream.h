// ReconnectingStream: the reconnect-with-failover loop of the SDK's clients
// (the registry session and the result reporter).
//
// On its own thread it opens one stream after another, rotating through the
// endpoints (0, 1, ..., n-1, 0, ...). After each stream it waits a jittered,
// growing backoff — reset when the stream made progress (registered, had an
// item acknowledged) — and stops once the owner's stop flag is set: at the
// top of an attempt, after a stream ends, and during the backoff wait, which
// the flag ends at once.
//
// The stop flag and its mutex belong to the owner, because its streams wait
// on them too: the owner sets the flag with the mutex held (cancelling its
// open stream), then calls Join().
//
//   ReconnectingStream loop({.endpoints = 2, .backoff = {...}}, &mu_, &stopping_);
//   loop.Start({.run_stream = [&](size_t i, bool* progressed) { return RunSession(i, progressed);
//   },
//               .ended = [&](size_t i, const grpc::Status& s, bool progressed, absl::Duration
//               delay) {
//                 /* log why, with mu_ held */ }});
//   ...
//   { absl::MutexLock l(&mu_); stopping_ = true; }
//   loop.Join();
//
// Thread safety: Start and Join from the owner's thread; the hooks run on the
// loop's thread.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_RECONNECTING_STREAM_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_RECONNECTING_STREAM_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "services/common/client/backoff.h"
#include "services/common/client/clock.h"

namespace gnomon::executor::internal {

struct ReconnectOptions {
  size_t endpoints = 0;  // How many to rotate through; none: the loop ends at once.
  BackoffOptions backoff;
  // Paces the backoff waits (tests pass a SimulatedClock).
  Clock* clock = &RealClock();
  uint64_t seed = std::random_device{}();  // Of the backoff's jitter.
};

struct ReconnectHooks {
  // Optional; with the mutex held: whether a stream is worth opening now
  // (the loop waits until it is, or until stopped). Unset: always.
  std::function<bool()> ready;
  // Runs one stream to endpoint `index` until it ends (mutex not held);
  // sets *progressed when it did useful work, which resets the backoff.
  std::function<grpc::Status(size_t index, bool* progressed)> run_stream;
  // With the mutex held and not stopping: the stream to `index` ended with
  // `status`; the next attempt comes after `delay`.
  std::function<void(size_t index, const grpc::Status& status, bool progressed,
                     absl::Duration delay)>
      ended;
};

class ReconnectingStream {
 public:
  // `*stopping` is guarded by `mu`; both outlive this object.
  ReconnectingStream(ReconnectOptions options, absl::Mutex* mu, const bool* stopping)
      : options_(options), mu_(mu), stopping_(stopping) {}
  ~ReconnectingStream() { Join(); }
  ReconnectingStream(const ReconnectingStream&) = delete;
  ReconnectingStream& operator=(const ReconnectingStream&) = delete;

  // Starts the loop's thread (once).
  void Start(ReconnectHooks hooks);
  // Waits for the loop to end; the owner has set the stop flag first.
  void Join();

 private:
  void Loop();

  const ReconnectOptions options_;
  absl::Mutex* const mu_;
  const bool* const stopping_ ABSL_PT_GUARDED_BY(mu_);
  ReconnectHooks hooks_;
  std::thread thread_;
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_RECONNECTING_STREAM_H_

// BatchedWriter: a queue that hands its items to a flush function in batches
// (one store transaction for many items, not one each), and retries failed
// items with backoff.
//
// Flushes are at least `min_interval` apart unless `flush_at` worth of items
// waits: at low rates one flush then covers several items, under load they
// follow each other at once. A flush takes whole items up to `max_batch`
// worth (at least one). Items the flush function hands back failed: they go
// back to the front of the queue, in the order given, and the next flush
// waits a backoff (reset after a flush that failed nothing). Items added
// during a flush wait for the next one.
//
//   BatchedWriter<Update> writer({.flush_at = 1024, .clock = clock},
//                                [&](std::vector<Update> batch) -> std::vector<Update> {
//                                  if (absl::Status s = store->Write(batch); !s.ok()) return batch;
//                                  return {};
//                                });
//   std::thread t([&] { writer.Run(); });
//   writer.Add(update);
//   writer.Stop(); t.join();   // with flush_on_stop, flushes what is queued first
//
// Thread safety: Add, Stop and queued() from any thread; Run on one thread.
#ifndef GNOMON_SERVICES_COMMON_SERVER_BATCHED_WRITER_H_
#define GNOMON_SERVICES_COMMON_SERVER_BATCHED_WRITER_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <limits>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/backoff.h"
#include "services/common/client/clock.h"

namespace gnomon {

template <typename T>
class BatchedWriter {
 public:
  struct Options {
    // Queued weight that starts a flush without waiting for min_interval.
    size_t flush_at = 1024;
    // Weight taken into one flush (whole items, at least one).
    size_t max_batch = std::numeric_limits<size_t>::max();
    // Flushes at least this far apart, on pacing_clock.
    absl::Duration min_interval = absl::Milliseconds(10);
    // Waits after a flush that handed items back.
    BackoffOptions retry = {absl::Milliseconds(50), absl::Seconds(2), 2.0};
    // On Stop: flush what is queued, then return (true), or return at once,
    // leaving it queued (false). A failed flush after Stop is not retried.
    bool flush_on_stop = true;
    // Paces the retry waits (the owner's injected clock).
    Clock* clock = &RealClock();
    // Paces min_interval. Real time by default: it paces writes to a real
    // store, and a test moving a simulated `clock` need not move it too.
    Clock* pacing_clock = &RealClock();
    // An item's weight (unset: 1 each).
    std::function<size_t(const T&)> weight;
  };
  // Writes a batch; returns the items that failed (empty: all written).
  using Flush = std::function<std::vector<T>(std::vector<T> batch)>;

  BatchedWriter(Options options, Flush flush)
      : options_(std::move(options)), flush_(std::move(flush)) {}
  BatchedWriter(const BatchedWriter&) = delete;
  BatchedWriter& operator=(const BatchedWriter&) = delete;

  void Add(T item) ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    queued_ += Weight(item);
    queue_.push_back(std::move(item));
  }

  // Weight queued and not yet taken into a flush.
  size_t queued() const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    return queued_;
  }

  // Waits until less than `weight` is queued (or Stop), at most `timeout`
  // on the pacing clock; whether it is. Producers that can wait (a stream
  // that can stop reading) call it before Add, so the queue stays bounded
  // and the back-pressure reaches whoever sends to them.
  bool AwaitBelow(size_t weight, absl::Duration timeout) const ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    auto below = [this, weight]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopped_ || queued_ < weight; };
    return options_.pacing_clock->AwaitWithDeadline(&mu_, absl::Condition(&below),
                                                    options_.pacing_clock->Now() + timeout);
  }

  // Flushes until Stop() (see flush_on_stop).
  void Run() ABSL_LOCKS_EXCLUDED(mu_) {
    Backoff backoff(options_.retry);
    absl::Time last_flush = absl::InfinitePast();
    while (true) {
      std::vector<T> batch;
      {
        absl::MutexLock l(&mu_);
        auto ready = [this]()
                         ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopped_ || !queue_.empty(); };
        mu_.Await(absl::Condition(&ready));
        auto full = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
          return stopped_ || queued_ >= options_.flush_at;
        };
        options_.pacing_clock->AwaitWithDeadline(&mu_, absl::Condition(&full),
                                                 last_flush + options_.min_interval);
        if (stopped_ && (!options_.flush_on_stop || queue_.empty())) return;
        last_flush = options_.pacing_clock->Now();
        size_t taken = 0;
        while (!queue_.empty() && taken < options_.max_batch) {
          const size_t w = Weight(queue_.front());
          taken += w;
          queued_ -= w;
          batch.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
      }
      std::vector<T> failed = flush_(std::move(batch));
      absl::MutexLock l(&mu_);
      if (failed.empty()) {
        backoff.Reset();
        continue;
      }
      for (auto it = failed.rbegin(); it != failed.rend(); ++it) {
        queued_ += Weight(*it);
        queue_.push_front(std::move(*it));
      }
      if (stopped_) return;
      options_.clock->AwaitWithDeadline(&mu_, absl::Condition(&stopped_),
                                        options_.clock->Now() + backoff.Next());
    }
  }

  void Stop() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock l(&mu_);
    stopped_ = true;
  }

 private:
  size_t Weight(const T& item) const { return options_.weight ? options_.weight(item) : 1; }

  const Options options_;
  const Flush flush_;
  mutable absl::Mutex mu_;
  std::deque<T> queue_ ABSL_GUARDED_BY(mu_);
  size_t queued_ ABSL_GUARDED_BY(mu_) = 0;  // Weight of queue_.
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_BATCHED_WRITER_H_

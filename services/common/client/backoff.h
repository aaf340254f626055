// Backoff: exponential delays with full jitter for reconnect loops.
//
//   Backoff b({.initial = absl::Milliseconds(100), .max = absl::Seconds(5)});
//   while (!Connect()) clock.Sleep...(b.Next());
//   b.Reset();  // after a success
//
// Thread safety: not thread-safe; one per retry loop.
#ifndef GNOMON_SERVICES_COMMON_CLIENT_BACKOFF_H_
#define GNOMON_SERVICES_COMMON_CLIENT_BACKOFF_H_

#include <cstdint>
#include <random>

#include "absl/time/time.h"

namespace gnomon {

struct BackoffOptions {
  absl::Duration initial = absl::Milliseconds(100);
  absl::Duration max = absl::Seconds(5);
  double multiplier = 2.0;
};

class Backoff {
 public:
  explicit Backoff(BackoffOptions options, uint64_t seed = std::random_device{}())
      : options_(options), current_(options.initial), rng_(seed) {}

  // The next delay: uniform in [current/2, current], then current grows.
  absl::Duration Next() {
    absl::Duration upper = current_;
    current_ = std::min(options_.max, current_ * options_.multiplier);
    std::uniform_int_distribution<int64_t> dist(absl::ToInt64Microseconds(upper) / 2,
                                                absl::ToInt64Microseconds(upper));
    return absl::Microseconds(dist(rng_));
  }
  void Reset() { current_ = options_.initial; }

 private:
  BackoffOptions options_;
  absl::Duration current_;
  std::mt19937_64 rng_;
};

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_CLIENT_BACKOFF_H_

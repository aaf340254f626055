// RateLimiter: a token bucket per key (a credential), so one busy or runaway
// client cannot starve the others of the admin API.
//
//   RateLimiter limiter(RateLimit{/*per_second=*/50, /*burst=*/100}, &RealClock());
//   if (!limiter.Allow(caller.credential)) return RateLimited();
//
// Each key's bucket holds up to `burst` calls and refills at `per_second`;
// a call takes one. per_second <= 0 turns limiting off. Keys are credential
// identities (digests), never secrets. Buckets that have refilled completely
// are forgotten when the map grows, so memory stays bounded by the keys busy
// at once.
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_COMMON_SERVER_RATE_LIMITER_H_
#define GNOMON_SERVICES_COMMON_SERVER_RATE_LIMITER_H_

#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"

namespace gnomon {

struct RateLimit {
  // Sustained calls per second per key; <= 0 means unlimited.
  double per_second = 50;
  // Calls a key may make at once after being idle.
  int burst = 100;
};

class RateLimiter {
 public:
  RateLimiter(RateLimit limit, Clock* clock) : limit_(limit), clock_(clock) {}

  // Takes one call from `key`'s bucket; false when it is empty.
  bool Allow(std::string_view key) ABSL_LOCKS_EXCLUDED(mu_);
  // Whether `key`'s bucket holds a call, without taking it: for limits that
  // count only some outcomes (Peek first, Allow once the outcome is known).
  bool Peek(std::string_view key) ABSL_LOCKS_EXCLUDED(mu_);
  const RateLimit& limit() const { return limit_; }

 private:
  struct Bucket {
    double tokens = 0;
    absl::Time updated;
  };
  // `key`'s bucket, refilled up to `now`.
  Bucket& Refilled(std::string_view key, absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Drops buckets that are full again (as good as new).
  void ForgetIdle(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const RateLimit limit_;
  Clock* const clock_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Bucket> buckets_ ABSL_GUARDED_BY(mu_);
};

// The refusal of a call beyond `limit`: RESOURCE_EXHAUSTED saying the limit.
absl::Status RateLimitedError(const RateLimit& limit);

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_RATE_LIMITER_H_

#include "services/common/server/rate_limiter.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace gnomon {
namespace {

constexpr size_t kForgetAbove = 4096;

}  // namespace

bool RateLimiter::Allow(std::string_view key) {
  if (limit_.per_second <= 0) return true;
  absl::MutexLock l(&mu_);
  Bucket& b = Refilled(key, clock_->Now());
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

bool RateLimiter::Peek(std::string_view key) {
  if (limit_.per_second <= 0) return true;
  absl::MutexLock l(&mu_);
  return Refilled(key, clock_->Now()).tokens >= 1;
}

RateLimiter::Bucket& RateLimiter::Refilled(std::string_view key, absl::Time now) {
  const double burst = std::max(1, limit_.burst);
  if (buckets_.size() > kForgetAbove) ForgetIdle(now);
  auto [it, fresh] = buckets_.try_emplace(std::string(key), Bucket{burst, now});
  Bucket& b = it->second;
  if (!fresh && now > b.updated) {
    b.tokens =
        std::min(burst, b.tokens + absl::ToDoubleSeconds(now - b.updated) * limit_.per_second);
    b.updated = now;
  }
  return b;
}

void RateLimiter::ForgetIdle(absl::Time now) {
  const double burst = std::max(1, limit_.burst);
  absl::erase_if(buckets_, [&](const auto& kv) {
    return kv.second.tokens + absl::ToDoubleSeconds(now - kv.second.updated) * limit_.per_second >=
           burst;
  });
}

absl::Status RateLimitedError(const RateLimit& limit) {
  return absl::ResourceExhaustedError(
      absl::StrCat("rate limit: this credential may make ", limit.per_second,
                   " calls per second (bursts of ", limit.burst, "); retry later"));
}

}  // namespace gnomon

#include "services/common/server/rate_limiter.h"

#include <algorithm>

namespace gnomon {
namespace {

constexpr size_t kForgetAbove = 4096;

}  // namespace

bool RateLimiter::Allow(std::string_view key) {
  if (limit_.per_second <= 0) return true;
  const absl::Time now = clock_->Now();
  const double burst = std::max(1, limit_.burst);
  absl::MutexLock l(&mu_);
  if (buckets_.size() > kForgetAbove) ForgetIdle(now);
  auto [it, fresh] = buckets_.try_emplace(std::string(key), Bucket{burst, now});
  Bucket& b = it->second;
  if (!fresh && now > b.updated) {
    b.tokens =
        std::min(burst, b.tokens + absl::ToDoubleSeconds(now - b.updated) * limit_.per_second);
    b.updated = now;
  }
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}

void RateLimiter::ForgetIdle(absl::Time now) {
  const double burst = std::max(1, limit_.burst);
  absl::erase_if(buckets_, [&](const auto& kv) {
    return kv.second.tokens + absl::ToDoubleSeconds(now - kv.second.updated) * limit_.per_second >=
           burst;
  });
}

}  // namespace gnomon

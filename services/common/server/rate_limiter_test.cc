#include "services/common/server/rate_limiter.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace gnomon {
namespace {

int Allowed(RateLimiter& limiter, const std::string& key, int calls) {
  int n = 0;
  for (int i = 0; i < calls; ++i) n += limiter.Allow(key) ? 1 : 0;
  return n;
}

TEST(RateLimiter, BurstThenRefusesUntilRefilled) {
  SimulatedClock clock(absl::FromUnixSeconds(1000));
  RateLimiter limiter(RateLimit{10, 20}, &clock);
  EXPECT_EQ(Allowed(limiter, "admin:a", 25), 20);
  clock.Advance(absl::Milliseconds(100));  // One call's worth.
  EXPECT_EQ(Allowed(limiter, "admin:a", 5), 1);
  clock.Advance(absl::Seconds(1));
  EXPECT_EQ(Allowed(limiter, "admin:a", 50), 10);
  clock.Advance(absl::Hours(1));  // Refills to the burst, not beyond.
  EXPECT_EQ(Allowed(limiter, "admin:a", 50), 20);
}

TEST(RateLimiter, KeysAreIndependent) {
  SimulatedClock clock(absl::FromUnixSeconds(1000));
  RateLimiter limiter(RateLimit{1, 3}, &clock);
  EXPECT_EQ(Allowed(limiter, "admin:a", 10), 3);
  EXPECT_EQ(Allowed(limiter, "admin:b", 10), 3);
  EXPECT_FALSE(limiter.Allow("admin:a"));
}

TEST(RateLimiter, PeekTakesNothing) {
  SimulatedClock clock(absl::FromUnixSeconds(1000));
  RateLimiter limiter(RateLimit{1, 2}, &clock);
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(limiter.Peek("login:a"));
  EXPECT_EQ(Allowed(limiter, "login:a", 10), 2);
  EXPECT_FALSE(limiter.Peek("login:a"));
  clock.Advance(absl::Seconds(1));
  EXPECT_TRUE(limiter.Peek("login:a"));
}

TEST(RateLimiter, ZeroRateIsUnlimited) {
  SimulatedClock clock(absl::FromUnixSeconds(1000));
  RateLimiter limiter(RateLimit{0, 1}, &clock);
  EXPECT_EQ(Allowed(limiter, "k", 1000), 1000);
}

TEST(RateLimiter, ForgetsIdleKeysWithoutGivingExtraCalls) {
  SimulatedClock clock(absl::FromUnixSeconds(1000));
  RateLimiter limiter(RateLimit{1, 2}, &clock);
  EXPECT_EQ(Allowed(limiter, "busy", 5), 2);
  for (int i = 0; i < 5000; ++i) limiter.Allow("idle-" + std::to_string(i));
  // "busy" is still empty: forgetting only drops full buckets.
  EXPECT_FALSE(limiter.Allow("busy"));
}

TEST(RateLimiter, ConcurrentCallersShareOneBucket) {
  SimulatedClock clock(absl::FromUnixSeconds(1000));
  RateLimiter limiter(RateLimit{1, 100}, &clock);
  std::vector<std::thread> threads;
  std::atomic<int> allowed{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] { allowed += Allowed(limiter, "shared", 50); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(allowed.load(), 100);
}

}  // namespace
}  // namespace gnomon

#include "services/scheduler/trigger_pools.h"

#include <atomic>
#include <thread>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace gnomon::scheduler {
namespace {

TEST(TriggerPoolsTest, AJobSlowMoreThanTheLimitThisMinuteMovesToTheSlowPool) {
  SimulatedClock clock(absl::FromUnixMillis(60'000 * 1000));
  TriggerPoolOptions o;
  o.fast_threads = 1;
  o.slow_threads = 1;
  TriggerPools pools(&clock, o);
  for (int i = 0; i < 10; ++i) pools.RecordDispatch(7, absl::Milliseconds(501));
  EXPECT_FALSE(pools.IsSlow(7));  // Ten times is the limit, not over it.
  pools.RecordDispatch(7, absl::Milliseconds(500));  // Not slower than the threshold.
  EXPECT_FALSE(pools.IsSlow(7));
  pools.RecordDispatch(7, absl::Seconds(2));
  EXPECT_TRUE(pools.IsSlow(7));
  EXPECT_FALSE(pools.IsSlow(8));
  absl::Notification ran;
  pools.Submit(7, [&] { ran.Notify(); });
  ran.WaitForNotification();
  EXPECT_EQ(pools.stats().to_slow_pool, 1u);
  clock.Advance(absl::Minutes(1));  // A new minute starts afresh.
  EXPECT_FALSE(pools.IsSlow(7));
}

TEST(TriggerPoolsTest, AFullPoolMakesSubmitWaitInsteadOfDropping) {
  SimulatedClock clock(absl::FromUnixMillis(0));
  TriggerPoolOptions o;
  o.fast_threads = 1;
  o.slow_threads = 1;
  o.fast_queue = 1;
  TriggerPools pools(&clock, o);
  absl::Notification release, started;
  std::atomic<int> done{0};
  pools.Submit(1, [&] {
    started.Notify();
    release.WaitForNotification();
    ++done;
  });
  started.WaitForNotification();        // The only worker is busy.
  pools.Submit(1, [&] { ++done; });     // Fills the queue.
  absl::Notification third_submitted;
  std::thread producer([&] {
    pools.Submit(1, [&] { ++done; });   // Must wait for room.
    third_submitted.Notify();
  });
  // The producer is blocked until the worker frees a slot.
  EXPECT_FALSE(third_submitted.WaitForNotificationWithTimeout(absl::Milliseconds(50)));
  release.Notify();
  third_submitted.WaitForNotification();
  producer.join();
  pools.Stop();
  EXPECT_EQ(done.load(), 3);
  EXPECT_EQ(pools.stats().backpressure_waits, 1u);
}

}  // namespace
}  // namespace gnomon::scheduler

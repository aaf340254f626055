#include "services/scheduler/trigger_pools.h"

#include <atomic>
#include <map>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
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
  EXPECT_FALSE(pools.IsSlow(7));                     // Ten times is the limit, not over it.
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
  started.WaitForNotification();     // The only worker is busy.
  pools.Submit(1, [&] { ++done; });  // Fills the queue.
  EXPECT_EQ(pools.stats().fast_queued, 1u);
  EXPECT_EQ(pools.stats().slow_queued, 0u);
  absl::Notification third_submitted;
  std::thread producer([&] {
    pools.Submit(1, [&] { ++done; });  // Must wait for room.
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

TEST(TriggerPoolsTest, TasksOfOneJobRunOneAtATimeInSubmitOrder) {
  SimulatedClock clock(absl::FromUnixMillis(0));
  TriggerPoolOptions o;
  o.fast_threads = 4;
  TriggerPools pools(&clock, o);
  absl::Mutex mu;
  std::map<int64_t, std::vector<int>> order;
  std::map<int64_t, int> inside;
  bool overlap = false;
  for (int i = 0; i < 300; ++i) {
    const int64_t job = i % 3;
    pools.Submit(job, [&, job, i] {
      {
        absl::MutexLock l(&mu);
        if (++inside[job] > 1) overlap = true;
        order[job].push_back(i);
      }
      std::this_thread::yield();
      absl::MutexLock l(&mu);
      --inside[job];
    });
  }
  pools.Stop();  // runs everything queued
  absl::MutexLock l(&mu);
  EXPECT_FALSE(overlap);
  for (int64_t job = 0; job < 3; ++job) {
    ASSERT_EQ(order[job].size(), 100u);
    for (size_t k = 1; k < order[job].size(); ++k) EXPECT_LT(order[job][k - 1], order[job][k]);
  }
}

TEST(TriggerPoolsTest, AJobKeepsItsOrderWhenItMovesToTheSlowPool) {
  SimulatedClock clock(absl::FromUnixMillis(60'000 * 1000));
  TriggerPoolOptions o;
  o.fast_threads = 2;
  o.slow_threads = 2;
  TriggerPools pools(&clock, o);
  absl::Mutex mu;
  std::vector<int> order;
  absl::Notification first_running, release;
  pools.Submit(7, [&] {
    first_running.Notify();
    release.WaitForNotification();
    absl::MutexLock l(&mu);
    order.push_back(0);
  });
  first_running.WaitForNotification();
  // The job turns slow while its first task runs: the rest go to the slow pool, in order.
  for (int i = 0; i < 12; ++i) pools.RecordDispatch(7, absl::Seconds(1));
  ASSERT_TRUE(pools.IsSlow(7));
  for (int i = 1; i <= 50; ++i) {
    pools.Submit(7, [&, i] {
      absl::MutexLock l(&mu);
      order.push_back(i);
    });
  }
  release.Notify();
  pools.Stop();
  absl::MutexLock l(&mu);
  ASSERT_EQ(order.size(), 51u);
  for (int i = 0; i <= 50; ++i) EXPECT_EQ(order[i], i);
}

}  // namespace
}  // namespace gnomon::scheduler

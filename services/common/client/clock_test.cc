#include "services/common/client/clock.h"

#include <thread>

#include "gtest/gtest.h"

namespace gnomon {
namespace {

TEST(SimulatedClockTest, AdvanceWakesWaiterAtDeadline) {
  SimulatedClock clock(absl::FromUnixMillis(1000));
  absl::Mutex mu;
  bool never = false;
  bool woke_by_cond = true;
  std::thread waiter([&] {
    absl::MutexLock l(&mu);
    woke_by_cond =
        clock.AwaitWithDeadline(&mu, absl::Condition(&never), absl::FromUnixMillis(1500));
  });
  clock.BlockUntilWaiters(1);
  clock.Advance(absl::Milliseconds(499));
  EXPECT_EQ(clock.waiters(), 1);  // deadline not reached yet
  clock.Advance(absl::Milliseconds(1));
  waiter.join();
  EXPECT_FALSE(woke_by_cond);
  EXPECT_EQ(clock.NowMillis(), 1500);
}

TEST(SimulatedClockTest, ConditionWakesWaiterBeforeDeadline) {
  SimulatedClock clock(absl::FromUnixMillis(0));
  absl::Mutex mu;
  bool ready = false;
  bool result = false;
  std::thread waiter([&] {
    absl::MutexLock l(&mu);
    result = clock.AwaitWithDeadline(&mu, absl::Condition(&ready), absl::FromUnixMillis(10'000));
  });
  clock.BlockUntilWaiters(1);
  {
    absl::MutexLock l(&mu);
    ready = true;
  }
  waiter.join();
  EXPECT_TRUE(result);
  EXPECT_EQ(clock.NowMillis(), 0);
}

}  // namespace
}  // namespace gnomon

#include "services/scheduler/dispatch_timer.h"

#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace gnomon::scheduler {
namespace {

TEST(DispatchTimerTest, RunsEachTaskAtItsInstantInOrder) {
  SimulatedClock clock(absl::FromUnixMillis(1'000'000));
  DispatchTimer timer(&clock);
  absl::Mutex mu;
  std::vector<int> ran;
  auto note = [&](int i) {
    return [&, i] {
      absl::MutexLock l(&mu);
      ran.push_back(i);
    };
  };
  timer.At(1'000'050, note(2));
  timer.At(1'000'020, note(1));
  timer.At(999'000, note(0));  // Already due.
  std::thread t([&] { timer.Run(); });
  auto ran_count = [&] {
    absl::MutexLock l(&mu);
    return ran.size();
  };
  clock.BlockUntilWaiters(1);  // Parked until the next instant.
  EXPECT_EQ(ran_count(), 1u);
  clock.AdvanceTo(absl::FromUnixMillis(1'000'019));
  clock.BlockUntilWaiters(1);
  EXPECT_EQ(ran_count(), 1u);  // Not a millisecond early.
  clock.AdvanceTo(absl::FromUnixMillis(1'000'020));
  {
    absl::MutexLock l(&mu);
    auto two = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return ran.size() == 2; };
    mu.Await(absl::Condition(&two));
  }
  // A task added for an earlier instant than the one waited for wakes it.
  absl::Notification early;
  timer.At(1'000'030, [&] { early.Notify(); });
  clock.AdvanceTo(absl::FromUnixMillis(1'000'030));
  early.WaitForNotification();
  EXPECT_EQ(timer.size(), 1u);
  timer.Stop();  // Runs the rest at once rather than dropping it.
  t.join();
  EXPECT_EQ(ran, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(timer.size(), 0u);
}

}  // namespace
}  // namespace gnomon::scheduler

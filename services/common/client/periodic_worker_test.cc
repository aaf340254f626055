// PeriodicWorker on a SimulatedClock: when passes run, Wake and Stop. No
// sleeps: the test moves the clock and waits for the worker to park.
#include "services/common/client/periodic_worker.h"

#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/client/clock.h"

namespace gnomon {
namespace {

using ::testing::ElementsAre;

absl::Time At(absl::Duration d) { return absl::UnixEpoch() + d; }

// Records the clock's time at each pass.
class Passes {
 public:
  explicit Passes(const Clock* clock) : clock_(clock) {}
  void Record() {
    absl::MutexLock l(&mu_);
    times_.push_back(clock_->Now());
  }
  // Waits for the n-th pass; returns the times of all so far.
  std::vector<absl::Time> Await(size_t n) {
    absl::MutexLock l(&mu_);
    auto enough = [this, n]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return times_.size() >= n; };
    mu_.Await(absl::Condition(&enough));
    return times_;
  }
  std::vector<absl::Time> times() {
    absl::MutexLock l(&mu_);
    return times_;
  }

 private:
  const Clock* const clock_;
  absl::Mutex mu_;
  std::vector<absl::Time> times_ ABSL_GUARDED_BY(mu_);
};

// Starts `worker` on an hour's period and returns once it waits after its
// first pass (the clock never reaches the second).
void StartAndPark(PeriodicWorker& worker, SimulatedClock& clock, Passes& passes) {
  worker.Start(absl::Hours(1), [&passes] { passes.Record(); });
  passes.Await(1);
  clock.BlockUntilWaiters(1);
}

TEST(PeriodicWorkerTest, RunsAtOnceThenAPeriodAfterEachPass) {
  SimulatedClock clock(absl::UnixEpoch());
  Passes passes(&clock);
  PeriodicWorker worker(&clock);
  worker.Start(absl::Seconds(1), [&] { passes.Record(); });
  passes.Await(1);
  clock.BlockUntilWaiters(1);
  clock.Advance(absl::Milliseconds(500));  // Half a period: no pass.
  clock.Advance(absl::Milliseconds(500));
  passes.Await(2);
  clock.BlockUntilWaiters(1);
  clock.Advance(absl::Seconds(1));
  EXPECT_THAT(passes.Await(3),
              ElementsAre(At(absl::ZeroDuration()), At(absl::Seconds(1)), At(absl::Seconds(2))));
  worker.Stop();
}

TEST(PeriodicWorkerTest, APassChoosesWhenTheNextOneRuns) {
  SimulatedClock clock(absl::UnixEpoch());
  Passes passes(&clock);
  PeriodicWorker worker(&clock);
  worker.Start([&] {
    passes.Record();
    return clock.Now() + absl::Seconds(5);
  });
  passes.Await(1);
  clock.BlockUntilWaiters(1);
  clock.Advance(absl::Seconds(4));
  clock.Advance(absl::Seconds(1));
  EXPECT_THAT(passes.Await(2), ElementsAre(At(absl::ZeroDuration()), At(absl::Seconds(5))));
  worker.Stop();
}

TEST(PeriodicWorkerTest, WakeRunsAPassWithoutWaitingForThePeriod) {
  SimulatedClock clock(absl::UnixEpoch());
  Passes passes(&clock);
  PeriodicWorker worker(&clock);
  StartAndPark(worker, clock, passes);
  worker.Wake();
  EXPECT_THAT(passes.Await(2), ElementsAre(At(absl::ZeroDuration()), At(absl::ZeroDuration())));
  worker.Stop();
  EXPECT_EQ(passes.times().size(), 2u);
}

TEST(PeriodicWorkerTest, AWakeDuringAPassRunsAnotherRightAfterIt) {
  SimulatedClock clock(absl::UnixEpoch());
  Passes passes(&clock);
  absl::Notification in_pass;
  absl::Notification release;
  PeriodicWorker worker(&clock);
  worker.Start(absl::Hours(1), [&] {
    passes.Record();
    if (!in_pass.HasBeenNotified()) {
      in_pass.Notify();
      release.WaitForNotification();
    }
  });
  in_pass.WaitForNotification();
  worker.Wake();
  release.Notify();
  EXPECT_EQ(passes.Await(2).size(), 2u);  // The clock never moved.
  worker.Stop();
}

TEST(PeriodicWorkerTest, StopEndsTheWaitAtOnce) {
  SimulatedClock clock(absl::UnixEpoch());
  Passes passes(&clock);
  PeriodicWorker worker(&clock);
  StartAndPark(worker, clock, passes);
  worker.Stop();  // Returns although the clock never reaches the next pass.
  EXPECT_EQ(passes.times().size(), 1u);
  EXPECT_EQ(clock.Now(), absl::UnixEpoch());
}

TEST(PeriodicWorkerTest, StopLetsAPassUnderWayFinishAndRunsNoMore) {
  SimulatedClock clock(absl::UnixEpoch());
  absl::Notification in_pass;
  absl::Notification release;
  Passes finished(&clock);
  PeriodicWorker worker(&clock);
  worker.Start(absl::ZeroDuration(), [&] {
    if (!in_pass.HasBeenNotified()) in_pass.Notify();
    release.WaitForNotification();
    finished.Record();
  });
  in_pass.WaitForNotification();
  std::thread stopper([&] { worker.Stop(); });
  release.Notify();
  stopper.join();
  // The pass under way ended (later ones, period 0, may have run before the
  // stop was seen); none runs after Stop returned, woken or not.
  const size_t at_stop = finished.times().size();
  EXPECT_GE(at_stop, 1u);
  worker.Wake();
  EXPECT_EQ(finished.times().size(), at_stop);
}

TEST(PeriodicWorkerTest, StopBeforeStartAndTwiceIsHarmless) {
  SimulatedClock clock(absl::UnixEpoch());
  Passes passes(&clock);
  PeriodicWorker worker(&clock);
  worker.Stop();
  worker.Start(absl::Seconds(1), [&] { passes.Record(); });  // Not after Stop.
  worker.Stop();
  EXPECT_TRUE(passes.times().empty());
}

TEST(PeriodicWorkerTest, WakesFromManyThreadsWhilePassesRun) {
  SimulatedClock clock(absl::UnixEpoch());
  Passes passes(&clock);
  PeriodicWorker worker(&clock);
  worker.Start(absl::Hours(1), [&] { passes.Record(); });
  std::vector<std::thread> wakers;
  for (int t = 0; t < 4; ++t) {
    wakers.emplace_back([&worker] {
      for (int i = 0; i < 200; ++i) worker.Wake();
    });
  }
  for (std::thread& t : wakers) t.join();
  worker.Wake();
  passes.Await(2);  // At least the first pass and one for the wakes.
  worker.Stop();
}

}  // namespace
}  // namespace gnomon

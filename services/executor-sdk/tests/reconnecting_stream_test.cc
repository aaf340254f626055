// ReconnectingStream with a fake stream and a simulated clock: the order of
// the endpoints, the backoff between attempts, and stopping.
#include "services/executor-sdk/src/reconnecting_stream.h"

#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/client/clock.h"

namespace gnomon::executor::internal {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The owner's side: the stop flag, and what the loop did.
class Owner {
 public:
  ReconnectOptions Options(size_t endpoints, absl::Duration initial, absl::Duration max) {
    return {.endpoints = endpoints,
            .backoff = {.initial = initial, .max = max},
            .clock = &clock,
            .seed = 7};
  }

  // Hooks whose streams fail at once, except those listed in `progress` (by
  // attempt number, from 0), which make progress first.
  ReconnectHooks FailingHooks(std::vector<bool> progress = {}) {
    return {.run_stream =
                [this, progress](size_t index, bool* progressed) {
                  absl::MutexLock l(&mu);
                  *progressed = attempts.size() < progress.size() && progress[attempts.size()];
                  attempts.push_back(index);
                  return grpc::Status(grpc::StatusCode::UNAVAILABLE, "down");
                },
            .ended =
                [this](size_t, const grpc::Status& status, bool, absl::Duration delay)
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
                      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
                      delays.push_back(delay);
                    }};
  }

  // Lets a loop that has not waited yet make `n` attempts: each time it
  // waits out its backoff, the clock is moved on by exactly that delay.
  void RunAttempts(size_t n) {
    for (size_t done = 0; done < n; ++done) {
      absl::Duration delay;
      {
        absl::MutexLock l(&mu);
        auto ended = [this, done]()
                         ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return delays.size() > done; };
        mu.Await(absl::Condition(&ended));
        delay = delays[done];
      }
      if (done + 1 == n) return;  // Leave the last wait pending.
      clock.BlockUntilWaiters(1);
      clock.Advance(delay);
    }
  }

  void SetStopping() {
    absl::MutexLock l(&mu);
    stopping = true;
  }
  std::vector<size_t> Attempts() {
    absl::MutexLock l(&mu);
    return attempts;
  }
  std::vector<absl::Duration> Delays() {
    absl::MutexLock l(&mu);
    return delays;
  }

  SimulatedClock clock{absl::UnixEpoch()};
  absl::Mutex mu;
  bool stopping ABSL_GUARDED_BY(mu) = false;
  std::vector<size_t> attempts ABSL_GUARDED_BY(mu);
  std::vector<absl::Duration> delays ABSL_GUARDED_BY(mu);
};

TEST(ReconnectingStreamTest, RotatesThroughTheEndpointsInOrder) {
  Owner owner;
  ReconnectingStream loop(owner.Options(3, absl::Milliseconds(100), absl::Seconds(5)), &owner.mu,
                          &owner.stopping);
  loop.Start(owner.FailingHooks());
  owner.RunAttempts(7);
  owner.SetStopping();
  loop.Join();
  EXPECT_THAT(owner.Attempts(), ElementsAre(0, 1, 2, 0, 1, 2, 0));
}

// Each delay is drawn from [bound / 2, bound]; the bound doubles up to the
// maximum and drops back to the initial one after a stream that progressed.
TEST(ReconnectingStreamTest, BackoffGrowsToItsMaximumAndResetsAfterProgress) {
  Owner owner;
  ReconnectingStream loop(owner.Options(2, absl::Milliseconds(100), absl::Milliseconds(400)),
                          &owner.mu, &owner.stopping);
  loop.Start(owner.FailingHooks({false, false, false, false, true, false}));
  owner.RunAttempts(6);
  owner.SetStopping();
  loop.Join();
  const std::vector<absl::Duration> delays = owner.Delays();
  ASSERT_EQ(delays.size(), 6u);
  const std::vector<absl::Duration> bounds = {absl::Milliseconds(100), absl::Milliseconds(200),
                                              absl::Milliseconds(400), absl::Milliseconds(400),
                                              absl::Milliseconds(100), absl::Milliseconds(200)};
  for (size_t i = 0; i < delays.size(); ++i) {
    EXPECT_GE(delays[i], bounds[i] / 2) << "attempt " << i;
    EXPECT_LE(delays[i], bounds[i]) << "attempt " << i;
  }
}

TEST(ReconnectingStreamTest, StopDuringTheBackoffEndsTheWaitAtOnce) {
  Owner owner;
  // A backoff of an hour on a clock that never moves: only the stop can end it.
  ReconnectingStream loop(owner.Options(1, absl::Hours(1), absl::Hours(1)), &owner.mu,
                          &owner.stopping);
  loop.Start(owner.FailingHooks());
  owner.RunAttempts(1);
  owner.clock.BlockUntilWaiters(1);
  owner.SetStopping();
  loop.Join();
  EXPECT_THAT(owner.Attempts(), ElementsAre(0));
  EXPECT_EQ(owner.clock.Now(), absl::UnixEpoch());
}

TEST(ReconnectingStreamTest, StopWhileAStreamRunsEndsWithoutReportingIt) {
  Owner owner;
  ReconnectingStream loop(owner.Options(1, absl::Milliseconds(100), absl::Seconds(5)), &owner.mu,
                          &owner.stopping);
  absl::Notification streaming;
  ReconnectHooks hooks = owner.FailingHooks();
  hooks.run_stream = [&](size_t, bool*) {
    streaming.Notify();
    absl::MutexLock l(&owner.mu);
    owner.mu.Await(absl::Condition(&owner.stopping));  // As a cancelled stream ends.
    return grpc::Status(grpc::StatusCode::CANCELLED, "stopping");
  };
  loop.Start(std::move(hooks));
  streaming.WaitForNotification();
  owner.SetStopping();
  loop.Join();
  EXPECT_THAT(owner.Delays(), IsEmpty());
}

TEST(ReconnectingStreamTest, OpensAStreamOnlyWhenReady) {
  Owner owner;
  ReconnectingStream loop(owner.Options(2, absl::Milliseconds(100), absl::Seconds(5)), &owner.mu,
                          &owner.stopping);
  bool ready = false;  // Guarded by owner.mu.
  ReconnectHooks hooks = owner.FailingHooks();
  hooks.ready = [&] { return ready; };
  loop.Start(std::move(hooks));
  {
    absl::MutexLock l(&owner.mu);
    ready = true;
  }
  owner.RunAttempts(1);
  owner.SetStopping();
  loop.Join();
  EXPECT_THAT(owner.Attempts(), ElementsAre(0));
}

TEST(ReconnectingStreamTest, StopWhileWaitingToBeReady) {
  Owner owner;
  ReconnectingStream loop(owner.Options(2, absl::Milliseconds(100), absl::Seconds(5)), &owner.mu,
                          &owner.stopping);
  ReconnectHooks hooks = owner.FailingHooks();
  hooks.ready = [] { return false; };
  loop.Start(std::move(hooks));
  owner.SetStopping();
  loop.Join();
  EXPECT_THAT(owner.Attempts(), IsEmpty());
}

TEST(ReconnectingStreamTest, WithoutEndpointsTheLoopEndsAtOnce) {
  Owner owner;
  ReconnectingStream loop(owner.Options(0, absl::Milliseconds(100), absl::Seconds(5)), &owner.mu,
                          &owner.stopping);
  loop.Start(owner.FailingHooks());
  loop.Join();  // Without a stop.
  EXPECT_THAT(owner.Attempts(), IsEmpty());
}

}  // namespace
}  // namespace gnomon::executor::internal

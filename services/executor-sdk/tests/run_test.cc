// Executor::Run(), Stop() and Wait(): a real SIGTERM/SIGINT sent to this
// process stops a blocking Run() after draining the running run; Stop() from
// another thread ends Run() and Wait(); a second signal during the drain ends
// the process; the previous handlers and signal mask come back.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <optional>
#include <thread>

#include "absl/synchronization/notification.h"
#include "gnomon/executor/executor.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/executor-sdk/tests/test_env.h"

namespace gnomon::executor {
namespace {

using testing::BeanRun;
using testing::DispatchClient;

// Counts SIGTERMs reaching the handler the test had before Run().
std::atomic<int> g_previous_handler_calls{0};
void PreviousHandler(int) { g_previous_handler_calls.fetch_add(1); }

class RunTest : public SdkTest {
 protected:
  // Registered and acknowledged (the executor beats only once the registry
  // answered; before that, a stop cancels the session without Deregister).
  bool WaitRegistered() {
    return registry_.WaitForRegistrations(1, kTestWait) && registry_.WaitForBeats(1, kTestWait);
  }

  // Sends probe runs (new ids, job 99) until one is refused because the
  // executor is shutting down: the signal has been taken and the drain began.
  bool WaitUntilShuttingDown() {
    DispatchClient dispatch(dispatch_);
    const absl::Time deadline = absl::Now() + kTestWait;
    for (int64_t id = 9000; absl::Now() < deadline; ++id) {
      std::optional<v1::RunAnswer> answer = dispatch.Send(BeanRun(id, 99, "probe"));
      if (!answer.has_value()) return false;
      if (answer->has_rejected() && answer->rejected().kind() == v1::REJECT_KIND_SHUTTING_DOWN) {
        return true;
      }
    }
    return false;
  }

  // An executor (not started) with a handler "hold" that reports it started
  // and returns when `release_` is notified (or it is cancelled), and "probe".
  std::unique_ptr<Executor> HoldingExecutor() {
    auto executor = Executor::Create(Options());
    EXPECT_TRUE(executor.ok()) << executor.status();
    EXPECT_TRUE((*executor)
                    ->RegisterHandler("hold",
                                      [this](JobContext& ctx) {
                                        started_.Notify();
                                        while (!release_.HasBeenNotified() && !ctx.cancelled()) {
                                          ctx.cancellation().WaitForCancellation(
                                              absl::Milliseconds(5));
                                        }
                                        if (ctx.cancelled())
                                          ctx.SetResult(kHandleFailure, "cancelled");
                                      })
                    .ok());
    EXPECT_TRUE((*executor)->RegisterHandler("probe", [](JobContext&) {}).ok());
    return std::move(*executor);
  }

  absl::Notification started_;
  absl::Notification release_;
};

TEST_F(RunTest, SigtermToTheProcessDrainsTheRunningRunAndRunReturns) {
  std::unique_ptr<Executor> executor = HoldingExecutor();
  absl::Status run_status = absl::UnknownError("Run() has not returned");
  std::thread runner([&] { run_status = executor->Run(absl::Seconds(60)); });
  ASSERT_TRUE(WaitRegistered());

  DispatchClient dispatch(dispatch_);
  std::optional<v1::RunAnswer> answer = dispatch.Send(BeanRun(1, 7, "hold"));
  ASSERT_TRUE(answer.has_value() && answer->has_accepted());
  ASSERT_TRUE(started_.WaitForNotificationWithTimeout(kTestWait));

  ASSERT_EQ(::kill(::getpid(), SIGTERM), 0);  // process-directed: any thread may take it
  ASSERT_TRUE(WaitUntilShuttingDown());
  // Still running and not cancelled: the drain waits for it.
  EXPECT_FALSE(logs_.WaitForResult(1, absl::ZeroDuration()).has_value());
  release_.Notify();
  runner.join();
  EXPECT_TRUE(run_status.ok()) << run_status;

  // Run() returned after the drain: the result was acknowledged and the
  // executor left the registry.
  std::optional<v1::RunResult> result = logs_.WaitForResult(1, absl::ZeroDuration());
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->handle_code(), kHandleSuccess);
  EXPECT_TRUE(registry_.WaitForDeregistrations(1, kTestWait));
}

TEST_F(RunTest, SigintReachesRunEvenWhenBlockedAndPreviousHandlerAndMaskComeBack) {
  struct sigaction mine = {};
  mine.sa_handler = PreviousHandler;
  sigemptyset(&mine.sa_mask);
  struct sigaction before = {};
  ASSERT_EQ(::sigaction(SIGINT, &mine, &before), 0);
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGINT);
  sigset_t old_mask;
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &blocked, &old_mask), 0);

  // Run() on this (blocked) thread: it unblocks SIGINT here while it runs.
  std::unique_ptr<Executor> executor = HoldingExecutor();
  std::thread sender([&] {
    if (!WaitRegistered()) return;
    ::kill(::getpid(), SIGINT);
  });
  absl::Status run_status = executor->Run(absl::Seconds(5));
  sender.join();
  EXPECT_TRUE(run_status.ok()) << run_status;
  EXPECT_TRUE(registry_.WaitForDeregistrations(1, kTestWait));
  EXPECT_EQ(g_previous_handler_calls.load(), 0);

  struct sigaction after = {};
  ASSERT_EQ(::sigaction(SIGINT, nullptr, &after), 0);
  EXPECT_EQ(after.sa_handler, &PreviousHandler);
  sigset_t mask_after;
  ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, nullptr, &mask_after), 0);
  EXPECT_EQ(sigismember(&mask_after, SIGINT), 1);

  ASSERT_EQ(::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr), 0);
  ASSERT_EQ(::sigaction(SIGINT, &before, nullptr), 0);
}

TEST_F(RunTest, StopFromAnotherThreadEndsRunAndWait) {
  std::unique_ptr<Executor> executor = HoldingExecutor();
  absl::Status run_status = absl::UnknownError("Run() has not returned");
  std::thread runner([&] { run_status = executor->Run(absl::Seconds(60)); });
  ASSERT_TRUE(registry_.WaitForRegistrations(1, kTestWait));
  DispatchClient dispatch(dispatch_);
  std::optional<v1::RunAnswer> answer = dispatch.Send(BeanRun(1, 7, "hold"));
  ASSERT_TRUE(answer.has_value() && answer->has_accepted());
  ASSERT_TRUE(started_.WaitForNotificationWithTimeout(kTestWait));

  std::thread stopper([&] { executor->Stop(absl::Seconds(60)); });
  ASSERT_TRUE(WaitUntilShuttingDown());
  release_.Notify();
  executor->Wait();
  // Wait() returned: the drain is over, the run's result is in.
  std::optional<v1::RunResult> result = logs_.WaitForResult(1, absl::ZeroDuration());
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->handle_code(), kHandleSuccess);
  runner.join();
  stopper.join();
  EXPECT_TRUE(run_status.ok()) << run_status;
}

TEST_F(RunTest, WaitReturnsAfterStopFromAnotherThreadWithoutRun) {
  std::unique_ptr<Executor> executor = StartExecutor(Options(), [](Executor&) {});
  ASSERT_TRUE(WaitRegistered());
  std::thread stopper([&] { executor->Stop(); });
  executor->Wait();
  EXPECT_TRUE(registry_.WaitForDeregistrations(1, kTestWait));
  stopper.join();
  // Stopped for good: Run() refuses, Shutdown() returns at once.
  EXPECT_THAT(executor->Run(), StatusIs(absl::StatusCode::kFailedPrecondition));
  executor->Shutdown();
}

TEST_F(RunTest, StopFromAHandlerEndsRun) {
  auto created = Executor::Create(Options());
  ASSERT_TRUE(created.ok());
  std::unique_ptr<Executor> executor = std::move(*created);
  Executor* self = executor.get();
  ASSERT_TRUE(executor->RegisterHandler("quit", [self](JobContext&) { self->Stop(); }).ok());
  std::thread sender([&] {
    if (!registry_.WaitForRegistrations(1, kTestWait)) return;
    DispatchClient dispatch(dispatch_);
    dispatch.Send(BeanRun(1, 7, "quit"));
  });
  EXPECT_TRUE(executor->Run().ok());
  sender.join();
  std::optional<v1::RunResult> result = logs_.WaitForResult(1, absl::ZeroDuration());
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->handle_code(), kHandleSuccess);
}

TEST_F(RunTest, OneRunAtATimeOwnsTheSignals) {
  std::unique_ptr<Executor> first = HoldingExecutor();
  absl::Status run_status = absl::UnknownError("Run() has not returned");
  std::thread runner([&] { run_status = first->Run(); });
  ASSERT_TRUE(registry_.WaitForRegistrations(1, kTestWait));  // Run() has the signals.

  ExecutorOptions options = Options();
  auto second = Executor::Create(options);
  ASSERT_TRUE(second.ok());
  absl::Status refused = (*second)->Run();
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kFailedPrecondition));
  EXPECT_NE(refused.message().find("SIGINT and SIGTERM"), std::string::npos) << refused;

  first->Stop();
  runner.join();
  EXPECT_TRUE(run_status.ok()) << run_status;
}

TEST_F(RunTest, StopBeforeRunMakesRunFail) {
  auto executor = Executor::Create(Options());
  ASSERT_TRUE(executor.ok());
  (*executor)->Stop();
  (*executor)->Wait();  // Stopped before it started: returns at once.
  EXPECT_THAT((*executor)->Run(), StatusIs(absl::StatusCode::kFailedPrecondition));
}

using RunDeathTest = RunTest;

TEST_F(RunDeathTest, ASecondSignalDuringTheDrainEndsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        std::unique_ptr<Executor> executor = HoldingExecutor();
        std::thread runner([&] { (void)executor->Run(absl::Seconds(60)); });
        if (!registry_.WaitForRegistrations(1, kTestWait)) std::_Exit(10);
        DispatchClient dispatch(dispatch_);
        std::optional<v1::RunAnswer> answer = dispatch.Send(BeanRun(1, 7, "hold"));
        if (!answer.has_value() || !answer->has_accepted()) std::_Exit(11);
        if (!started_.WaitForNotificationWithTimeout(kTestWait)) std::_Exit(12);
        ::kill(::getpid(), SIGTERM);
        if (!WaitUntilShuttingDown()) std::_Exit(13);
        ::kill(::getpid(), SIGTERM);
        // The handler holds the drain until it is released, which never
        // happens: only the second signal can end the process.
        runner.join();
        std::_Exit(14);
      },
      ::testing::KilledBySignal(SIGTERM), "during the drain: exiting at once");
}

}  // namespace
}  // namespace gnomon::executor

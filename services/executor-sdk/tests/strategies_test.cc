// Block strategies, capacity, timeouts, kills and worker replacement, over the
// executor's scheduler stream.
#include <atomic>
#include <memory>

#include "absl/synchronization/notification.h"
#include "google/protobuf/util/time_util.h"
#include "services/executor-sdk/tests/test_env.h"

namespace gnomon::executor {
namespace {

using testing::BeanRun;
using testing::DispatchClient;

// A handler that blocks until released or cancelled, and records what it saw.
struct Gate {
  absl::Notification release;
  std::atomic<int> entered{0};
  Handler handler() {
    return [this](JobContext& ctx) {
      ++entered;
      ctx.Log("entered " + ctx.params());
      while (!release.HasBeenNotified()) {
        if (ctx.cancellation().WaitForCancellation(absl::Milliseconds(5))) {
          ctx.Log("cancelled");
          return;
        }
      }
    };
  }
};

class StrategiesTest : public SdkTest {};

TEST_F(StrategiesTest, SerialExecutionQueuesRunsInOrder) {
  Gate gate;
  auto executor = StartExecutor(
      Options(), [&](Executor& e) { ASSERT_TRUE(e.RegisterHandler("gate", gate.handler()).ok()); });
  DispatchClient dispatch(dispatch_);
  auto first = dispatch.Send(BeanRun(1, 7, "gate", "a"));
  auto second = dispatch.Send(BeanRun(2, 7, "gate", "b"));
  auto third = dispatch.Send(BeanRun(3, 7, "gate", "c"));
  ASSERT_TRUE(first && second && third);
  ASSERT_TRUE(first->has_accepted() && second->has_accepted() && third->has_accepted());
  EXPECT_EQ(first->accepted().queue_position(), 0u);
  EXPECT_EQ(second->accepted().queue_position(), 1u);
  EXPECT_EQ(third->accepted().queue_position(), 2u);
  // Only the first runs; the others wait behind it.
  ASSERT_TRUE(logs_.WaitForStarted(1, kTestWait));
  // The handler's first line is logged after it entered ("started" is
  // reported just before the handler is called and may arrive first).
  ASSERT_TRUE(logs_.WaitForLines(1, 1, kTestWait));
  EXPECT_EQ(gate.entered.load(), 1);
  std::optional<v1::IdleBeatResponse> idle = dispatch.IdleBeat(7);
  ASSERT_TRUE(idle.has_value());
  EXPECT_FALSE(idle->idle());
  EXPECT_EQ(idle->running(), 1u);
  EXPECT_EQ(idle->queued(), 2u);
  EXPECT_TRUE(registry_.WaitForBeat(
      [](const v1::Beat& b) {
        return b.running_runs() == 1 && b.busy_jobs_size() == 1 && b.busy_jobs(0).job_id() == 7 &&
               b.busy_jobs(0).queued() == 2;
      },
      kTestWait));
  gate.release.Notify();
  for (int run : {1, 2, 3}) {
    auto result = logs_.WaitForResult(run, kTestWait);
    ASSERT_TRUE(result) << run;
    EXPECT_EQ(result->handle_code(), 200);
  }
  // FIFO: each run started after the previous one ended.
  auto r1 = logs_.WaitForResult(1, kTestWait), r2 = logs_.WaitForResult(2, kTestWait),
       r3 = logs_.WaitForResult(3, kTestWait);
  EXPECT_LE(google::protobuf::util::TimeUtil::TimestampToMicroseconds(r1->end_time()),
            google::protobuf::util::TimeUtil::TimestampToMicroseconds(r2->start_time()));
  EXPECT_LE(google::protobuf::util::TimeUtil::TimestampToMicroseconds(r2->end_time()),
            google::protobuf::util::TimeUtil::TimestampToMicroseconds(r3->start_time()));
}

TEST_F(StrategiesTest, DiscardLaterRejectsWhileRunning) {
  Gate gate;
  auto executor = StartExecutor(
      Options(), [&](Executor& e) { ASSERT_TRUE(e.RegisterHandler("gate", gate.handler()).ok()); });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(
      dispatch.Send(BeanRun(1, 7, "gate", "", v1::BLOCK_STRATEGY_DISCARD_LATER))->has_accepted());
  auto later = dispatch.Send(BeanRun(2, 7, "gate", "", v1::BLOCK_STRATEGY_DISCARD_LATER));
  ASSERT_TRUE(later && later->has_rejected());
  EXPECT_EQ(later->rejected().code(), 506);
  EXPECT_NE(later->rejected().reason().find("DISCARD_LATER"), std::string::npos);
  EXPECT_EQ(later->rejected().kind(), v1::REJECT_KIND_BLOCK_STRATEGY);
  // Another job is not affected.
  EXPECT_TRUE(
      dispatch.Send(BeanRun(3, 8, "gate", "", v1::BLOCK_STRATEGY_DISCARD_LATER))->has_accepted());
  gate.release.Notify();
  ASSERT_TRUE(logs_.WaitForResult(1, kTestWait));
  EXPECT_EQ(logs_.WaitForResult(1, kTestWait)->handle_code(), 200);
}

TEST_F(StrategiesTest, CoverEarlyKillsTheRunningRunAndStartsTheNewOne) {
  Gate gate;
  auto executor = StartExecutor(
      Options(), [&](Executor& e) { ASSERT_TRUE(e.RegisterHandler("gate", gate.handler()).ok()); });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 7, "gate"))->has_accepted());
  ASSERT_TRUE(logs_.WaitForStarted(1, kTestWait));
  ASSERT_TRUE(
      dispatch.Send(BeanRun(2, 7, "gate", "", v1::BLOCK_STRATEGY_COVER_EARLY))->has_accepted());
  auto covered = logs_.WaitForResult(1, kTestWait);
  ASSERT_TRUE(covered);
  EXPECT_EQ(covered->handle_code(), 503);
  EXPECT_NE(covered->handle_message().find("COVER_EARLY"), std::string::npos);
  ASSERT_TRUE(logs_.WaitForStarted(2, kTestWait));
  gate.release.Notify();
  auto fresh = logs_.WaitForResult(2, kTestWait);
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->handle_code(), 200);
}

TEST_F(StrategiesTest, CapacityLimitsRunsExecutingAtOnceAndQueuesTheRest) {
  Gate gate;
  ExecutorOptions options = Options();
  options.max_concurrent_runs = 2;
  options.max_queued_runs = 2;
  auto executor = StartExecutor(
      options, [&](Executor& e) { ASSERT_TRUE(e.RegisterHandler("gate", gate.handler()).ok()); });
  DispatchClient dispatch(dispatch_);
  EXPECT_TRUE(dispatch.Send(BeanRun(1, 1, "gate"))->has_accepted());
  EXPECT_TRUE(dispatch.Send(BeanRun(2, 2, "gate"))->has_accepted());
  ASSERT_TRUE(logs_.WaitForStarted(1, kTestWait));
  ASSERT_TRUE(logs_.WaitForStarted(2, kTestWait));
  // Beyond the two workers, runs wait: behind their job, or for a worker.
  EXPECT_TRUE(dispatch.Send(BeanRun(3, 2, "gate"))->has_accepted());
  EXPECT_TRUE(dispatch.Send(BeanRun(4, 3, "gate"))->has_accepted());
  // Only a full queue is refused, and says so: the scheduler routes it elsewhere.
  auto full = dispatch.Send(BeanRun(5, 4, "gate"));
  ASSERT_TRUE(full && full->has_rejected());
  EXPECT_EQ(full->rejected().code(), 506);
  EXPECT_EQ(full->rejected().kind(), v1::REJECT_KIND_QUEUE_FULL);
  EXPECT_NE(full->rejected().reason().find("at capacity"), std::string::npos);
  EXPECT_FALSE(logs_.WaitForStarted(4, absl::ZeroDuration()));
  gate.release.Notify();
  for (int run : {1, 2, 3, 4}) {
    auto result = logs_.WaitForResult(run, kTestWait);
    ASSERT_TRUE(result) << run;
    EXPECT_EQ(result->handle_code(), 200) << run;
  }
  // Room again once the queue drained.
  auto again = dispatch.Send(BeanRun(6, 4, "gate"));
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->has_accepted());
}

TEST_F(StrategiesTest, CooperativeHandlerTimesOutWith502) {
  auto executor = StartExecutor(Options(), [&](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("wait", [](JobContext& ctx) {
                   EXPECT_NE(ctx.deadline(), absl::InfiniteFuture());
                   ctx.cancellation().WaitForCancellation(absl::Hours(1));
                   ctx.SetResult(200, "the handler's own result is overridden");
                 }).ok());
  });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch
                  .Send(BeanRun(1, 1, "wait", "", v1::BLOCK_STRATEGY_SERIAL_EXECUTION,
                                absl::Milliseconds(200)))
                  ->has_accepted());
  auto result = logs_.WaitForResult(1, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 502);
  EXPECT_NE(result->handle_message().find("timed out"), std::string::npos);
}

TEST_F(StrategiesTest, HandlerIgnoringCancellationIsReportedAndItsWorkerReplaced) {
  // Shared with the handler, which copies it before waiting: the abandoned
  // thread returns after Notify, possibly after this test body (and the
  // executor holding the handler) is gone.
  auto unblock = std::make_shared<absl::Notification>();
  auto executor = StartExecutor(Options(), [unblock](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("stuck", [unblock](JobContext& ctx) {
                   const std::shared_ptr<absl::Notification> keep = unblock;
                   if (ctx.params() == "block") {
                     keep->WaitForNotification();
                     return;  // abandoned by now: touches nothing of the executor's
                   }
                   ctx.Log("ran " + ctx.params());
                 }).ok());
  });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch
                  .Send(BeanRun(1, 1, "stuck", "block", v1::BLOCK_STRATEGY_SERIAL_EXECUTION,
                                absl::Milliseconds(100)))
                  ->has_accepted());
  ASSERT_TRUE(dispatch.Send(BeanRun(2, 1, "stuck", "next"))->has_accepted());
  auto stuck = logs_.WaitForResult(1, kTestWait);
  ASSERT_TRUE(stuck);
  EXPECT_EQ(stuck->handle_code(), 502);
  // The queued run is not stuck behind the abandoned handler.
  auto next = logs_.WaitForResult(2, kTestWait);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->handle_code(), 200);
  unblock->Notify();  // the abandoned thread finishes; its late result is dropped
  executor->Shutdown(absl::Seconds(5));
  EXPECT_EQ(logs_.result_items(), 2);
}

TEST_F(StrategiesTest, KillTargetsOneRunNotTheQueue) {
  Gate gate;
  auto executor = StartExecutor(
      Options(), [&](Executor& e) { ASSERT_TRUE(e.RegisterHandler("gate", gate.handler()).ok()); });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 7, "gate"))->has_accepted());
  ASSERT_TRUE(dispatch.Send(BeanRun(2, 7, "gate"))->has_accepted());
  ASSERT_TRUE(dispatch.Send(BeanRun(3, 7, "gate"))->has_accepted());
  ASSERT_TRUE(logs_.WaitForStarted(1, kTestWait));

  auto kill = [&](int64_t run) {
    std::optional<v1::KillResponse> response = dispatch.Kill(run, "by test");
    EXPECT_TRUE(response.has_value());
    return response.has_value() && response->found();
  };
  EXPECT_TRUE(kill(2));  // queued
  auto queued = logs_.WaitForResult(2, kTestWait);
  ASSERT_TRUE(queued);
  EXPECT_EQ(queued->handle_code(), 503);
  EXPECT_NE(queued->handle_message().find("by test"), std::string::npos);
  EXPECT_TRUE(kill(1));  // running
  auto running = logs_.WaitForResult(1, kTestWait);
  ASSERT_TRUE(running);
  EXPECT_EQ(running->handle_code(), 503);
  EXPECT_FALSE(kill(999));
  // Run 3 still runs.
  ASSERT_TRUE(logs_.WaitForStarted(3, kTestWait));
  gate.release.Notify();
  auto third = logs_.WaitForResult(3, kTestWait);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->handle_code(), 200);
  EXPECT_FALSE(logs_.WaitForStarted(2, absl::ZeroDuration()));
}

TEST_F(StrategiesTest, InitAndDestroyHooksRunPerJob) {
  std::atomic<int> inits{0}, destroys{0};
  ExecutorOptions options = Options();
  auto executor = StartExecutor(options, [&](Executor& e) {
    HandlerHooks hooks;
    hooks.init = [&] {
      ++inits;
      return absl::OkStatus();
    };
    hooks.destroy = [&] { ++destroys; };
    ASSERT_TRUE(e.RegisterHandler(
                     "hooked", [](JobContext&) {}, hooks)
                    .ok());
  });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 1, "hooked"))->has_accepted());
  ASSERT_TRUE(logs_.WaitForResult(1, kTestWait));
  executor->Shutdown(absl::Seconds(5));
  EXPECT_EQ(inits.load(), 1);
  EXPECT_EQ(destroys.load(), 1);
}

TEST_F(StrategiesTest, ShutdownRejectsNewRunsAndCancelsStragglers) {
  Gate gate;
  auto executor = StartExecutor(
      Options(), [&](Executor& e) { ASSERT_TRUE(e.RegisterHandler("gate", gate.handler()).ok()); });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 1, "gate"))->has_accepted());
  ASSERT_TRUE(dispatch.Send(BeanRun(2, 1, "gate"))->has_accepted());
  ASSERT_TRUE(logs_.WaitForStarted(1, kTestWait));
  executor->Shutdown(absl::Milliseconds(100));
  auto running = logs_.WaitForResult(1, kTestWait);
  auto queued = logs_.WaitForResult(2, kTestWait);
  ASSERT_TRUE(running && queued);
  EXPECT_EQ(running->handle_code(), 503);
  EXPECT_EQ(queued->handle_code(), 503);
  EXPECT_TRUE(registry_.WaitForDeregistrations(1, kTestWait));
}

}  // namespace
}  // namespace gnomon::executor

// A real executor dispatched the same run again and again — resent on the
// same stream, re-dispatched by another scheduler replica, by a deposed one
// with a stale epoch, and after the run ended — executes its handler once and
// reports one result; every answer after the first says "already accepted".
// So does an executor restarted on the same spool, for the runs whose results
// its spool holds.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "services/executor-sdk/testing/fake_servers.h"
#include "services/executor-sdk/tests/test_env.h"

namespace gnomon::executor {
namespace {

using testing::BeanRun;
using testing::DispatchClient;
using testing::FakeLogService;
using testing::TestServer;

// Counts handler invocations per run; runs of "held" wait for `release`.
struct Invocations {
  absl::Mutex mu;
  std::map<int64_t, int> by_run ABSL_GUARDED_BY(mu);
  absl::Notification release;

  Handler handler() {
    return [this](JobContext& ctx) {
      {
        absl::MutexLock l(&mu);
        ++by_run[ctx.run_id()];
      }
      release.WaitForNotificationWithTimeout(kTestWait);
    };
  }
  int of(int64_t run_id) {
    absl::MutexLock l(&mu);
    return by_run[run_id];
  }
};

v1::RunRequest Fenced(v1::RunRequest run, int64_t epoch) {
  run.set_fence_partition(3);
  run.set_fence_epoch(epoch);
  return run;
}

// The answer to `run`, which must be an acceptance.
v1::Accepted Accept(DispatchClient& scheduler, const v1::RunRequest& run) {
  std::optional<v1::RunAnswer> answer = scheduler.Send(run);
  EXPECT_TRUE(answer.has_value());
  if (!answer.has_value()) return {};
  EXPECT_TRUE(answer->has_accepted()) << answer->ShortDebugString();
  return answer->accepted();
}

// A second gnomond replica ("b") besides the fixture's: the executor holds a
// stream to each, and both dispatch to it.
class RedispatchTest : public SdkTest {
 protected:
  RedispatchTest() : replica_b_(kTestToken, kTestApp, "b"), replica_b_server_({&replica_b_}) {}

  ExecutorOptions TwoReplicas() {
    ExecutorOptions options = Options();
    options.scheduler_endpoints = {server_.address(), replica_b_server_.address()};
    return options;
  }

  testing::FakeDispatch replica_b_;
  TestServer replica_b_server_;
};

TEST_F(RedispatchTest, ASecondDispatchOfTheSameRunDoesNotRunItAgain) {
  Invocations calls;
  auto executor = StartExecutor(TwoReplicas(), [&](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("held", calls.handler()).ok());
  });
  ASSERT_NE(executor, nullptr);
  const v1::RunRequest run = BeanRun(501, 9, "held");

  DispatchClient replica_a(dispatch_);
  EXPECT_FALSE(Accept(replica_a, Fenced(run, 2)).already_accepted());
  // Resent on the same stream (the answer was lost, say), then by the replica
  // that took the partition over, then by the deposed one: its stale epoch
  // would refuse a new run, but this one is only answered.
  EXPECT_TRUE(Accept(replica_a, Fenced(run, 2)).already_accepted());
  DispatchClient replica_b(replica_b_);
  EXPECT_TRUE(Accept(replica_b, Fenced(run, 3)).already_accepted());
  EXPECT_TRUE(Accept(replica_a, Fenced(run, 2)).already_accepted());
  std::optional<v1::RunAnswer> stale = replica_a.Send(Fenced(BeanRun(502, 9, "held"), 2));
  ASSERT_TRUE(stale.has_value());
  EXPECT_EQ(stale->rejected().kind(), v1::REJECT_KIND_STALE_EPOCH);

  calls.release.Notify();
  ASSERT_TRUE(logs_.WaitForResult(501, kTestWait).has_value());
  // After it ended, too. A later run of the same job (one at a time, in
  // arrival order) ends after anything queued before it, so once its result
  // is in, a second execution of run 501 would have shown.
  EXPECT_TRUE(Accept(replica_b, Fenced(run, 3)).already_accepted());
  EXPECT_FALSE(Accept(replica_b, Fenced(BeanRun(503, 9, "held"), 3)).already_accepted());
  ASSERT_TRUE(logs_.WaitForResult(503, kTestWait).has_value());
  EXPECT_EQ(calls.of(501), 1);
  EXPECT_EQ(calls.of(503), 1);
  EXPECT_EQ(logs_.result_items(), 2);
}

// The executor ran a run and was restarted, with the same spool, before the
// log service acknowledged its result; a scheduler that never had the answer
// (its stream broke, or it took the partition over) sends the run again. The
// restarted executor knows the run from its spool: it answers "already
// accepted" and does not run the handler a second time, and the result the
// first process spooled is the one reported.
TEST_F(RedispatchTest, ARestartedExecutorRemembersTheRunsItsSpoolHolds) {
  FakeLogService log_only(kTestToken, kTestApp);
  // Nothing listens on the log endpoint yet: results stay in the spool.
  auto placeholder = std::make_unique<TestServer>(std::vector<grpc::Service*>{&log_only});
  const int log_port = placeholder->port();
  const std::string log_address = placeholder->address();
  placeholder->Stop();
  ExecutorOptions options = Options();
  options.log_endpoints = {log_address};
  options.spool_dir = TempDir("redispatch-spool");
  Invocations calls;
  calls.release.Notify();  // Runs end at once.
  const v1::RunRequest run = BeanRun(601, 9, "held");
  {
    auto executor = StartExecutor(options, [&](Executor& e) {
      ASSERT_TRUE(e.RegisterHandler("held", calls.handler()).ok());
    });
    ASSERT_NE(executor, nullptr);
    DispatchClient scheduler(dispatch_);
    EXPECT_FALSE(Accept(scheduler, run).already_accepted());
    executor->Shutdown(absl::Seconds(2));  // Its result cannot be delivered.
    EXPECT_EQ(calls.of(601), 1);
  }

  auto restarted = StartExecutor(
      options, [&](Executor& e) { ASSERT_TRUE(e.RegisterHandler("held", calls.handler()).ok()); });
  ASSERT_NE(restarted, nullptr);
  // The restarted process's stream (the first one's may not have ended yet).
  ASSERT_TRUE(dispatch_.WaitForHellos(2, kTestWait));
  DispatchClient scheduler(dispatch_);
  EXPECT_TRUE(Accept(scheduler, run).already_accepted());
  // A run it never had is still run.
  EXPECT_FALSE(Accept(scheduler, BeanRun(602, 9, "held")).already_accepted());

  TestServer log_server({&log_only}, log_port);
  ASSERT_TRUE(log_only.WaitForResult(601, kTestWait).has_value());
  ASSERT_TRUE(log_only.WaitForResult(602, kTestWait).has_value());
  EXPECT_EQ(calls.of(601), 1);
  EXPECT_EQ(calls.of(602), 1);
}

// A new partition holder's question (RunRequest.probe) about runs its
// predecessor left in doubt: "already accepted" for a run held here, "not
// held" for one that is not, and nothing ever starts; the question's epoch
// fences the predecessor off, so its late dispatch of the run is refused.
TEST_F(RedispatchTest, AProbeOnlyAsksAndFencesThePredecessorOff) {
  Invocations calls;
  auto executor = StartExecutor(TwoReplicas(), [&](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("held", calls.handler()).ok());
  });
  ASSERT_NE(executor, nullptr);
  DispatchClient predecessor(dispatch_);
  EXPECT_FALSE(Accept(predecessor, Fenced(BeanRun(601, 9, "held"), 4)).already_accepted());

  DispatchClient successor(replica_b_);
  v1::RunRequest held = Fenced(BeanRun(601, 9, "held"), 5);
  held.set_probe(true);
  EXPECT_TRUE(Accept(successor, held).already_accepted());
  v1::RunRequest not_held = Fenced(BeanRun(602, 9, "held"), 5);
  not_held.set_probe(true);
  std::optional<v1::RunAnswer> answer = successor.Send(not_held);
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(answer->rejected().kind(), v1::REJECT_KIND_NOT_HELD) << answer->ShortDebugString();

  // The predecessor's dispatch of 602 arrives after the question: refused.
  std::optional<v1::RunAnswer> late = predecessor.Send(Fenced(BeanRun(602, 9, "held"), 4));
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(late->rejected().kind(), v1::REJECT_KIND_STALE_EPOCH) << late->ShortDebugString();
  // The successor sends it for real: it runs, once.
  EXPECT_FALSE(Accept(successor, Fenced(BeanRun(602, 9, "held"), 5)).already_accepted());
  calls.release.Notify();
  ASSERT_TRUE(logs_.WaitForResult(601, kTestWait).has_value());
  ASSERT_TRUE(logs_.WaitForResult(602, kTestWait).has_value());
  EXPECT_EQ(calls.of(601), 1);
  EXPECT_EQ(calls.of(602), 1);
  EXPECT_EQ(logs_.result_items(), 2);
}

}  // namespace
}  // namespace gnomon::executor

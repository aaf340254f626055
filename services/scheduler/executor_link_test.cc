// ExecutorLink against an in-process Executor service on loopback: runs
// queued together are answered per run; an executor that never answers gets
// its runs failed after the answer timeout, and runs held back by the
// in-flight limit fail with RESOURCE_EXHAUSTED once they have waited as long.
#include "services/scheduler/executor_link.h"

#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/server/grpc_server.h"
#include "services/common/status/status_matchers.h"
#include "services/executor-sdk/testing/fake_servers.h"

namespace gnomon::scheduler {
namespace {

using ::testing::HasSubstr;

// Accepts every run (or, when silent, reads and never answers).
class FakeExecutor final : public v1::Executor::Service {
 public:
  explicit FakeExecutor(bool silent) : silent_(silent) {}

  grpc::Status Dispatch(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::DispatchResponse, v1::DispatchRequest>* stream) override {
    v1::DispatchRequest request;
    while (stream->Read(&request)) {
      v1::DispatchResponse response;
      for (const v1::RunRequest& run : request.runs()) {
        response.add_answers()->set_run_id(run.run_id());
        response.mutable_answers()->rbegin()->mutable_accepted();
      }
      {
        absl::MutexLock l(&mu_);
        runs_ += request.runs_size();
      }
      if (!silent_ && !stream->Write(response)) break;
    }
    return grpc::Status::OK;
  }

  bool WaitForRuns(int n) {
    absl::MutexLock l(&mu_);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return runs_ >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(30));
  }
  int runs() {
    absl::MutexLock l(&mu_);
    return runs_;
  }

 private:
  const bool silent_;
  absl::Mutex mu_;
  int runs_ ABSL_GUARDED_BY(mu_) = 0;
};

// Refuses the scheduler's token, as an executor of a manual group left on a
// rotated-out token does.
class RefusingExecutor final : public v1::Executor::Service {
 public:
  grpc::Status Dispatch(
      grpc::ServerContext*,
      grpc::ServerReaderWriter<v1::DispatchResponse, v1::DispatchRequest>*) override {
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "missing or wrong x-gnomon-access-token");
  }
};

// Collects callback outcomes by run id.
struct Outcomes {
  absl::Mutex mu;
  std::map<int64_t, absl::StatusOr<v1::RunAnswer>> by_run ABSL_GUARDED_BY(mu);

  DispatchCallback For(int64_t run_id) {
    return [this, run_id](absl::StatusOr<v1::RunAnswer> r) {
      absl::MutexLock l(&mu);
      by_run.emplace(run_id, std::move(r));
    };
  }
  bool WaitFor(size_t n) {
    absl::MutexLock l(&mu);
    auto enough = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return by_run.size() >= n; };
    return mu.AwaitWithTimeout(absl::Condition(&enough), absl::Seconds(30));
  }
};

v1::RunRequest NoopRun(int64_t id) {
  v1::RunRequest run;
  run.set_run_id(id);
  run.set_job_id(1);
  run.mutable_bean()->set_handler("noop");
  return run;
}

TEST(ExecutorLinkTest, EveryQueuedRunGetsItsOwnAnswer) {
  FakeExecutor executor(/*silent=*/false);
  executor::testing::TestServer server({&executor});
  Outcomes outcomes;
  ExecutorLink link(server.address(), "token", &RealClock(), absl::Seconds(30), *DefaultDialer());
  constexpr int kRuns = 2000;
  for (int i = 1; i <= kRuns; ++i) link.Send(NoopRun(i), outcomes.For(i));
  ASSERT_TRUE(outcomes.WaitFor(kRuns));
  absl::MutexLock l(&outcomes.mu);
  for (const auto& [id, r] : outcomes.by_run) {
    ASSERT_TRUE(r.ok()) << id << ": " << r.status();
    EXPECT_EQ(r->run_id(), id);
    EXPECT_TRUE(r->has_accepted());
  }
}

// The executor took nothing, so the runs fail for certain (not kUnknown,
// which would have them asked again as maybe accepted), saying why.
TEST(ExecutorLinkTest, RunsRefusedForTheTokenSaySo) {
  RefusingExecutor executor;
  executor::testing::TestServer server({&executor});
  Outcomes outcomes;
  ExecutorLink link(server.address(), "old-token", &RealClock(), absl::Seconds(30),
                    *DefaultDialer());
  for (int i = 1; i <= 3; ++i) link.Send(NoopRun(i), outcomes.For(i));
  ASSERT_TRUE(outcomes.WaitFor(3));
  absl::MutexLock l(&outcomes.mu);
  for (const auto& [id, r] : outcomes.by_run) {
    EXPECT_THAT(r, StatusIs(absl::StatusCode::kUnauthenticated,
                            HasSubstr("refused the group's access token")))
        << id;
  }
}

TEST(ExecutorLinkTest, SilentExecutorTimesOutAndTheBacklogIsFailedNotKept) {
  FakeExecutor executor(/*silent=*/true);
  executor::testing::TestServer server({&executor});
  SimulatedClock clock(absl::FromUnixSeconds(1'000'000));
  Outcomes outcomes;
  const absl::Duration timeout = absl::Seconds(10);
  ExecutorLink link(server.address(), "token", &clock, timeout, *DefaultDialer());
  const int in_flight = static_cast<int>(ExecutorLink::kMaxInFlight);
  const int total = in_flight + 5;
  for (int i = 1; i <= total; ++i) link.Send(NoopRun(i), outcomes.For(i));
  // The link sends up to its limit and holds the rest back.
  ASSERT_TRUE(executor.WaitForRuns(in_flight));
  clock.BlockUntilWaiters(1);  // The writer is parked.
  EXPECT_EQ(executor.runs(), in_flight);

  clock.Advance(timeout + absl::Seconds(1));
  ASSERT_TRUE(outcomes.WaitFor(total));
  absl::MutexLock l(&outcomes.mu);
  int timed_out = 0, held_back = 0;
  for (const auto& [id, r] : outcomes.by_run) {
    ASSERT_FALSE(r.ok()) << id;
    if (r.status().code() == absl::StatusCode::kUnknown) {  // Sent: it may have accepted it.
      EXPECT_THAT(r.status().message(), HasSubstr("did not answer"));
      ++timed_out;
    } else {
      EXPECT_THAT(r, StatusIs(absl::StatusCode::kResourceExhausted,
                              HasSubstr("8192 runs unanswered, limit 8192")));
      ++held_back;
    }
  }
  EXPECT_EQ(timed_out, in_flight);
  EXPECT_EQ(held_back, 5);
}

TEST(ExecutorLinksTest, ClosingAfterTheAnswersFailsNothingThatWasSent) {
  FakeExecutor executor(/*silent=*/false);
  executor::testing::TestServer server({&executor});
  Outcomes outcomes;
  ExecutorLinks links(&RealClock());
  constexpr int kRuns = 500;
  for (int i = 1; i <= kRuns; ++i)
    links.Send(server.address(), "token", NoopRun(i), outcomes.For(i));
  ASSERT_TRUE(links.AwaitAnswered(absl::Seconds(30)));
  links.CloseAll();
  absl::MutexLock l(&outcomes.mu);
  ASSERT_EQ(outcomes.by_run.size(), static_cast<size_t>(kRuns));
  for (const auto& [id, r] : outcomes.by_run)
    EXPECT_TRUE(r.ok() && r->has_accepted()) << id << ": " << r.status();
}

TEST(ExecutorLinksTest, AwaitingAnswersFromASilentExecutorGivesUpAtTheLimit) {
  FakeExecutor executor(/*silent=*/true);
  executor::testing::TestServer server({&executor});
  SimulatedClock clock(absl::FromUnixSeconds(1'000'000));
  Outcomes outcomes;
  ExecutorLinks links(&clock, absl::Seconds(10));
  links.Send(server.address(), "token", NoopRun(1), outcomes.For(1));
  ASSERT_TRUE(executor.WaitForRuns(1));
  bool answered = true;
  std::thread waiter([&] { answered = links.AwaitAnswered(absl::Seconds(5)); });
  clock.BlockUntilWaiters(2);  // The link's writer and the waiter.
  clock.Advance(absl::Seconds(5));
  waiter.join();
  EXPECT_FALSE(answered);
  links.CloseAll();  // Sent, never answered: the executor may hold it.
  ASSERT_TRUE(outcomes.WaitFor(1));
  absl::MutexLock l(&outcomes.mu);
  EXPECT_THAT(outcomes.by_run.at(1), StatusIs(absl::StatusCode::kUnknown));
}

}  // namespace
}  // namespace gnomon::scheduler

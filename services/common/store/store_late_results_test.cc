// StoreTest (a result that arrives after the provisional "executor lost"
// verdict): it replaces the verdict with the executor's own outcome and
// times, keeps the daily statistics exact, and the run's follow-up is decided
// once; a result for a run that ended any other way stays a duplicate. Run
// against every backend; the suite is instantiated in store_test.cc.
#include <cstdint>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/stats_histogram.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr char kExecutor[] = "10.0.0.3:9999";
constexpr int64_t kLostAt = 50'000;  // When the verdict is given.

// A result reported by the executor, with its own start time.
v1::ReportItem Ran(int64_t run_id, int32_t code, int64_t start_ms, int64_t end_ms) {
  v1::ReportItem item = StoreTest::Result(run_id, code, end_ms);
  item.mutable_result()->mutable_start_time()->set_seconds(start_ms / 1000);
  return item;
}

// Dispatches run `id` to kExecutor, reports it started at `started_ms` (0:
// not reported), then fails it with the executor-lost verdict. Returns `id`.
int64_t Lose(Store& store, int64_t id, int64_t started_ms = 0) {
  EXPECT_TRUE(store.RecordDispatches({Dispatched(id, kExecutor, 1000, 1)}).ok());
  if (started_ms > 0) {
    EXPECT_TRUE(store.ApplyReports({StoreTest::Started(id, started_ms)}, 0).ok());
  }
  absl::StatusOr<int64_t> n =
      store.FailRuns({id}, v1::HANDLE_CODE_EXECUTOR_LOST, "executor lost", kLostAt);
  EXPECT_TRUE(n.ok() && *n == 1) << n.status();
  return id;
}

// The report row of `job_id` for day 0 (the tests' runs trigger on it).
v1::StatsRow Day0(Store& store, int64_t job_id) {
  absl::StatusOr<std::vector<v1::StatsRow>> rows = store.GetStats(0, 86'400'000, job_id);
  EXPECT_TRUE(rows.ok() && rows->size() == 1) << rows.status();
  return rows.ok() && rows->size() == 1 ? rows->front() : v1::StatsRow{};
}

TEST_P(StoreTest, LateResultReplacesTheVerdictAndTheReportFollows) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t succeeded = Lose(store(), Insert(MakeRun(job_, 10'000)));
  const int64_t failed = Lose(store(), Insert(MakeRun(job_, 20'000)), 21'000);
  v1::StatsRow verdict = Day0(store(), job_.id());
  EXPECT_EQ(verdict.failed(), 2);
  EXPECT_EQ(verdict.succeeded(), 0);

  ASSERT_OK_AND_ASSIGN(
      acks, store().ApplyReports(
                {Ran(succeeded, 200, 12'000, 15'000), Ran(failed, 500, 30'000, 90'000)}, 0));
  EXPECT_THAT(acks, ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED));
  ASSERT_OK_AND_ASSIGN(ok, store().GetRun(succeeded));
  EXPECT_EQ(ok.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(ok.handle_code(), 200);
  EXPECT_EQ(ok.handle_message(), "ok");
  EXPECT_EQ(ok.start_time().seconds(), 12);
  EXPECT_EQ(ok.end_time().seconds(), 15);
  EXPECT_EQ(ok.executor_address(), kExecutor);
  ASSERT_OK_AND_ASSIGN(bad, store().GetRun(failed));
  EXPECT_EQ(bad.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(bad.handle_code(), 500);
  EXPECT_EQ(bad.handle_message(), "boom");
  EXPECT_EQ(bad.start_time().seconds(), 21);  // Reported before the verdict: kept.
  EXPECT_EQ(bad.end_time().seconds(), 90);

  // failed -> succeeded for one run; the other stays failed. Durations: the
  // verdict's 29 s is taken back for the executor's 3 s and 69 s.
  v1::StatsRow after = Day0(store(), job_.id());
  EXPECT_EQ(after.running(), 0);
  EXPECT_EQ(after.succeeded(), 1);
  EXPECT_EQ(after.failed(), 1);
  EXPECT_EQ(internal::DurationBucket(after.duration_p50_ms()), internal::DurationBucket(3'000));
  EXPECT_EQ(internal::DurationBucket(after.duration_p99_ms()), internal::DurationBucket(69'000));

  // Replays change nothing: the run ended by its executor's own result.
  ASSERT_OK_AND_ASSIGN(
      replays, store().ApplyReports(
                   {Ran(succeeded, 200, 12'000, 15'000), Ran(failed, 500, 30'000, 90'000)}, 0));
  EXPECT_THAT(replays, ElementsAre(v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_DUPLICATE));
  v1::StatsRow replayed = Day0(store(), job_.id());
  EXPECT_EQ(replayed.succeeded(), 1);
  EXPECT_EQ(replayed.failed(), 1);
}

TEST_P(StoreTest, LateResultReplacesOnlyTheExecutorLostVerdict) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t reported = Insert(MakeRun(job_, 10'000));
  const int64_t unconfirmed = Insert(MakeRun(job_, 20'000));
  const int64_t own_504 = Insert(MakeRun(job_, 30'000));
  const int64_t lost = Lose(store(), Insert(MakeRun(job_, 40'000)));
  ASSERT_OK(store().ApplyReports({Result(reported, 500, 11'000)}, 0).status());
  ASSERT_OK(
      store().FailRuns({unconfirmed}, v1::HANDLE_CODE_FAILURE, "never confirmed", 21'000).status());
  // A handler may report 504 itself: that is its result, not a verdict.
  ASSERT_OK(store().ApplyReports({Result(own_504, 504, 31'000)}, 0).status());
  // The lost run's executor reports 504 too: it replaces the verdict, once.
  ASSERT_OK_AND_ASSIGN(
      acks, store().ApplyReports({Result(reported, 200, 12'000), Result(unconfirmed, 200, 22'000),
                                  Result(own_504, 504, 31'000), Result(lost, 504, 60'000),
                                  Result(lost, 504, 60'000)},
                                 0));
  EXPECT_THAT(acks, ElementsAre(v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_DUPLICATE,
                                v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_APPLIED,
                                v1::REPORT_ACK_DUPLICATE));
  ASSERT_OK_AND_ASSIGN(run, store().GetRun(lost));
  EXPECT_EQ(run.handle_message(), "boom");
  EXPECT_EQ(run.end_time().seconds(), 60);
  ASSERT_OK_AND_ASSIGN(kept, store().GetRun(unconfirmed));
  EXPECT_EQ(kept.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(kept.handle_message(), "never confirmed");
  EXPECT_EQ(Day0(store(), job_.id()).failed(), 4);
}

TEST_P(StoreTest, LateResultLeavesTheFollowupDecidedOnce) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  // Not handled yet, and deferred waiting for its retry's delay: handled on
  // the result instead, at once.
  const int64_t waiting = Lose(store(), Insert(MakeRun(job_, 10'000)));
  ASSERT_OK(store().DeferFollowups({{waiting, kFarFuture - 1}}));
  ASSERT_OK_AND_ASSIGN(none_due, store().ListPendingFollowups(100, 60'000, {}));
  EXPECT_THAT(none_due, IsEmpty());
  // Handled: the verdict's follow-up fired a retry (attempt 1).
  const int64_t retried = Lose(store(), Insert(MakeRun(job_, 20'000)));
  ASSERT_OK(store().CompleteFollowups({retried}));
  v1::Run retry = MakeRun(job_, 20'000, 0, 1);
  retry.set_trigger_type(v1::TRIGGER_TYPE_RETRY);
  retry.set_first_run_id(retried);
  const int64_t retry_id = Insert(retry);

  ASSERT_OK_AND_ASSIGN(
      acks, store().ApplyReports(
                {Ran(waiting, 200, 11'000, 13'000), Ran(retried, 500, 21'000, 23'000)}, 0));
  EXPECT_THAT(acks, ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED));
  ASSERT_OK_AND_ASSIGN(due, store().ListPendingFollowups(100, 60'000, {}));
  ASSERT_THAT(Ids(due), ElementsAre(waiting));
  EXPECT_EQ(due[0].status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(due[0].end_time().seconds(), 13);
  // The retry stands and no second one is due: the late failure brings no
  // follow-up back (and a second retry could not be inserted anyway).
  ASSERT_OK_AND_ASSIGN(r, store().GetRun(retried));
  EXPECT_EQ(r.handle_code(), 500);
  ASSERT_OK_AND_ASSIGN(pending_retry, store().GetRun(retry_id));
  EXPECT_EQ(pending_retry.status(), v1::RUN_STATUS_PENDING);
  ASSERT_OK(store().CompleteFollowups({waiting}));
  EXPECT_THAT(PendingFollowups(store()), IsEmpty());
}

}  // namespace
}  // namespace gnomon::store::testing

// StoreTest (follow-ups, FailRuns, the dispatch/result race, retry and child
// uniqueness, retention), run against every backend; the suite is
// instantiated in store_test.cc.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// A dispatch outcome: FAILED (no executor) at `ms`.
DispatchUpdate DispatchFailed(int64_t run_id, int64_t ms) {
  DispatchUpdate u;
  u.run_id = run_id;
  u.status = v1::RUN_STATUS_FAILED;
  u.trigger_code = v1::HANDLE_CODE_NO_EXECUTOR;
  u.trigger_message = "no executor";
  u.dispatch_ms = ms;
  u.handle_code = v1::HANDLE_CODE_NO_EXECUTOR;
  u.handle_message = "no live executor";
  u.end_ms = ms;
  u.fence_epoch = 2;
  return u;
}

#define EXPECT_OK_RUN(id) EXPECT_TRUE(store().GetRun(id).ok()) << "run " << (id)

TEST_P(StoreTest, EveryWayARunEndsMakesAPendingFollowupEarliestEndFirst) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t succeeded = Insert(MakeRun(job_, 1000));
  const int64_t failed = Insert(MakeRun(job_, 2000));
  const int64_t undispatched = Insert(MakeRun(job_, 3000));
  const int64_t lost = Insert(MakeRun(job_, 4000));
  const int64_t still_running = Insert(MakeRun(job_, 5000));
  v1::Run born_failed = MakeRun(job_, 6000);
  born_failed.set_status(v1::RUN_STATUS_FAILED);
  born_failed.mutable_end_time()->set_seconds(6);
  const int64_t inserted_failed = Insert(born_failed);
  EXPECT_THAT(PendingFollowups(store()), ElementsAre(inserted_failed));

  ASSERT_OK(store().RecordDispatches(
      {Dispatched(succeeded, "10.0.0.1:1", 1100, 1), Dispatched(failed, "10.0.0.1:1", 2100, 1),
       Dispatched(lost, "10.0.0.1:1", 4100, 1), Dispatched(still_running, "10.0.0.1:1", 5100, 1)}));
  EXPECT_THAT(PendingFollowups(store()), ElementsAre(inserted_failed));  // RUNNING is not an end.

  // Ends at 9 s (result), 8 s (result), 3 s (dispatch failed), 7 s (lost).
  ASSERT_OK_AND_ASSIGN(
      acks, store().ApplyReports({Result(succeeded, 200, 9000), Result(failed, 500, 8000)}, 0));
  EXPECT_THAT(acks, ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED));
  ASSERT_OK(store().RecordDispatches({DispatchFailed(undispatched, 3000)}));
  ASSERT_OK_AND_ASSIGN(changed, store().FailRuns({lost}, 504, "executor lost", 7000));
  EXPECT_EQ(changed, 1);

  ASSERT_OK_AND_ASSIGN(pending, store().ListPendingFollowups(100, kFarFuture, {}));
  EXPECT_THAT(Ids(pending), ElementsAre(undispatched, inserted_failed, lost, failed, succeeded));
  EXPECT_EQ(pending[0].status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(pending[0].handle_code(), v1::HANDLE_CODE_NO_EXECUTOR);
  EXPECT_EQ(pending[2].handle_code(), 504);
  EXPECT_EQ(pending[2].handle_message(), "executor lost");
  EXPECT_EQ(pending[4].status(), v1::RUN_STATUS_SUCCEEDED);
  ASSERT_OK_AND_ASSIGN(first_two, store().ListPendingFollowups(2, kFarFuture, {}));
  EXPECT_THAT(Ids(first_two), ElementsAre(undispatched, inserted_failed));
  // Each scheduler replica reads the follow-ups of its own partitions.
  ASSERT_OK_AND_ASSIGN(
      theirs, store().ListPendingFollowups(
                  100, kFarFuture, {(PartitionOf(job_.id()) + 1) % store().partition_count()}));
  EXPECT_TRUE(theirs.empty());
  ASSERT_OK_AND_ASSIGN(mine,
                       store().ListPendingFollowups(100, kFarFuture, {PartitionOf(job_.id())}));
  EXPECT_EQ(mine.size(), 5u);

  // A deferred follow-up is not listed before its due instant, so it cannot
  // crowd out the others; from then on it is listed first.
  ASSERT_OK(store().DeferFollowups({{undispatched, 50'000}, {inserted_failed, 60'000}}));
  ASSERT_OK_AND_ASSIGN(before, store().ListPendingFollowups(2, 49'999, {}));
  EXPECT_THAT(Ids(before), ElementsAre(lost, failed));
  ASSERT_OK_AND_ASSIGN(at_due, store().ListPendingFollowups(100, 50'000, {}));
  EXPECT_THAT(Ids(at_due), ElementsAre(lost, failed, succeeded, undispatched));
  ASSERT_OK_AND_ASSIGN(later, store().ListPendingFollowups(100, 60'000, {}));
  EXPECT_THAT(Ids(later), ElementsAre(lost, failed, succeeded, undispatched, inserted_failed));
  ASSERT_OK(store().DeferFollowups({{undispatched, 0}, {inserted_failed, 0}}));

  // Completing is idempotent, and unknown ids are harmless.
  ASSERT_OK(store().CompleteFollowups({undispatched, lost, 999999}));
  ASSERT_OK(store().CompleteFollowups({undispatched, lost}));
  EXPECT_THAT(PendingFollowups(store()), ElementsAre(inserted_failed, failed, succeeded));
  ASSERT_OK(store().CompleteFollowups({}));

  // A late dispatch answer or FailRuns on an ended run ends nothing, and a
  // late result replacing the executor-lost verdict after its follow-up was
  // handled (store_late_results_test.cc) brings no follow-up back either.
  ASSERT_OK_AND_ASSIGN(late, store().ApplyReports({Result(lost, 200, 9500)}, 0));
  EXPECT_THAT(late, ElementsAre(v1::REPORT_ACK_APPLIED));
  ASSERT_OK_AND_ASSIGN(replay, store().ApplyReports({Result(lost, 200, 9500)}, 0));
  EXPECT_THAT(replay, ElementsAre(v1::REPORT_ACK_DUPLICATE));
  ASSERT_OK(store().RecordDispatches({DispatchFailed(undispatched, 9600)}));
  ASSERT_OK_AND_ASSIGN(again, store().FailRuns({undispatched, lost}, 504, "again", 9700));
  EXPECT_EQ(again, 0);
  ASSERT_OK(store().CompleteFollowups({inserted_failed, failed, succeeded}));
  EXPECT_THAT(PendingFollowups(store()), IsEmpty());

  ASSERT_OK_AND_ASSIGN(running, store().GetRun(still_running));
  EXPECT_EQ(running.status(), v1::RUN_STATUS_RUNNING);
}

TEST_P(StoreTest, ASuccessWithNothingToFollowEndsTheRunWithoutAFollowup) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  v1::Job spec = MakeJob(group_.id(), "plain");
  spec.clear_child_job_ids();
  ASSERT_OK_AND_ASSIGN(plain, store().CreateJob(spec, v1::JOB_STATE_RUNNING, 0, 1));
  const v1::Run plain_run = MakeRun(plain, 1000);
  ASSERT_FALSE(plain_run.success_has_followups());
  const int64_t succeeded = Insert(plain_run);
  const int64_t failed = Insert(MakeRun(plain, 2000));
  const int64_t lost_then_succeeded = Insert(MakeRun(plain, 3000));
  const int64_t with_children = Insert(MakeRun(job_, 4000));
  ASSERT_OK_AND_ASSIGN(stored_plain, store().GetRun(succeeded));
  EXPECT_FALSE(stored_plain.success_has_followups());
  ASSERT_OK_AND_ASSIGN(stored_with_children, store().GetRun(with_children));
  EXPECT_TRUE(stored_with_children.success_has_followups());

  ASSERT_OK(store().RecordDispatches({Dispatched(succeeded, "10.0.0.1:1", 1100, 1),
                                      Dispatched(failed, "10.0.0.1:1", 2100, 1),
                                      Dispatched(lost_then_succeeded, "10.0.0.1:1", 3100, 1),
                                      Dispatched(with_children, "10.0.0.1:1", 4100, 1)}));
  ASSERT_OK_AND_ASSIGN(
      acks, store().ApplyReports({Result(succeeded, 200, 1500), Result(failed, 500, 2500),
                                  Result(with_children, 200, 4500)},
                                 0));
  EXPECT_THAT(acks,
              ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED));
  ASSERT_OK_AND_ASSIGN(ended, store().GetRun(succeeded));
  EXPECT_EQ(ended.status(), v1::RUN_STATUS_SUCCEEDED);
  // A failure always has one (retries, alarms); a success only when its job
  // had something to follow it when the run was recorded.
  EXPECT_THAT(PendingFollowups(store()), ElementsAre(failed, with_children));

  // An executor-lost verdict has its follow-up (a retry waiting out its
  // delay); the executor's own success then makes it due at once.
  ASSERT_OK_AND_ASSIGN(changed,
                       store().FailRuns({lost_then_succeeded}, 504, "executor lost", 5000));
  EXPECT_EQ(changed, 1);
  ASSERT_OK(store().DeferFollowups({{lost_then_succeeded, 60'000}}));
  ASSERT_OK_AND_ASSIGN(late, store().ApplyReports({Result(lost_then_succeeded, 200, 3500)}, 0));
  EXPECT_THAT(late, ElementsAre(v1::REPORT_ACK_APPLIED));
  ASSERT_OK_AND_ASSIGN(due, store().ListPendingFollowups(100, 5001, {}));
  EXPECT_THAT(Ids(due), ElementsAre(failed, lost_then_succeeded, with_children));  // By end.
}

TEST_P(StoreTest, AlarmStatusIsRecordedOnTheRun) {
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("alarm-app"), 1000));
  ASSERT_OK_AND_ASSIGN(
      j, store().CreateJob(MakeJob(g.id(), "h"), v1::JOB_STATE_STOPPED, kNever, 1000));
  std::vector<v1::Run> runs = {MakeRun(j, 0)};
  ASSERT_OK(store().InsertRuns(runs).status());
  ASSERT_OK(store().RecordAlarmStatus(runs[0].id(), "sent: webhook"));
  ASSERT_OK_AND_ASSIGN(r, store().GetRun(runs[0].id()));
  EXPECT_EQ(r.alarm_status(), "sent: webhook");
  ASSERT_OK(store().RecordAlarmStatus(runs[0].id(), std::string(5000, 'x')));
  ASSERT_OK_AND_ASSIGN(r2, store().GetRun(runs[0].id()));
  EXPECT_EQ(r2.alarm_status().size(), 1024u);
}

TEST_P(StoreTest, FailRunsEndsOnlyPendingAndRunningRuns) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t pending = Insert(MakeRun(job_, 1000));
  const int64_t running = Insert(MakeRun(job_, 2000));
  const int64_t done = Insert(MakeRun(job_, 3000));
  ASSERT_OK(store().RecordDispatches(
      {Dispatched(running, "10.0.0.7:1", 2100, 1), Dispatched(done, "10.0.0.7:1", 3100, 1)}));
  ASSERT_OK(store().ApplyReports({Result(done, 200, 4000)}, 0).status());

  ASSERT_OK_AND_ASSIGN(changed,
                       store().FailRuns({pending, running, done, 424242}, 504, "lost", 5000));
  EXPECT_EQ(changed, 2);
  for (int64_t id : {pending, running}) {
    ASSERT_OK_AND_ASSIGN(run, store().GetRun(id));
    EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
    EXPECT_EQ(run.handle_code(), 504);
    EXPECT_EQ(run.handle_message(), "lost");
    EXPECT_EQ(run.end_time().seconds(), 5);
  }
  ASSERT_OK_AND_ASSIGN(kept, store().GetRun(done));
  EXPECT_EQ(kept.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(kept.handle_code(), 200);
  EXPECT_EQ(kept.end_time().seconds(), 4);
  ASSERT_OK_AND_ASSIGN(none, store().ListActiveRunsOn("10.0.0.7:1"));
  EXPECT_THAT(none, IsEmpty());
  ASSERT_OK_AND_ASSIGN(zero, store().FailRuns({}, 504, "lost", 5000));
  EXPECT_EQ(zero, 0);
}

TEST_P(StoreTest, DispatchAnswerAfterTheResultKeepsTheOutcome) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t id = Insert(MakeRun(job_, 60000));
  const int64_t started_id = Insert(MakeRun(job_, 120000));
  // The executor ran it and reported before the scheduler recorded the dispatch.
  v1::ReportItem result = Result(id, 200, 65000);
  result.mutable_result()->mutable_start_time()->set_seconds(62);
  ASSERT_OK(store().ApplyReports({result}, 0).status());
  ASSERT_OK(store()
                .ApplyReports({Started(started_id, 121000), Result(started_id, 500, 125000)}, 0)
                .status());

  ASSERT_OK(store().RecordDispatches({Dispatched(id, "10.0.0.5:9999", 61000, 9),
                                      Dispatched(started_id, "10.0.0.5:9999", 120500, 9)}));
  ASSERT_OK_AND_ASSIGN(run, store().GetRun(id));
  EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(run.handle_code(), 200);
  EXPECT_EQ(run.handle_message(), "ok");
  EXPECT_EQ(run.start_time().seconds(), 62);
  EXPECT_EQ(run.end_time().seconds(), 65);
  EXPECT_EQ(run.trigger_code(), 200);
  EXPECT_EQ(run.trigger_message(), "dispatched");
  EXPECT_EQ(run.executor_address(), "10.0.0.5:9999");  // Was empty.
  EXPECT_EQ(run.dispatch_time().seconds(), 61);
  EXPECT_EQ(run.fence_epoch(), 9);

  ASSERT_OK_AND_ASSIGN(other, store().GetRun(started_id));
  EXPECT_EQ(other.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(other.handle_code(), 500);
  EXPECT_EQ(other.executor_address(), "10.0.0.9:9999");  // Reported by the executor: kept.
  EXPECT_EQ(other.dispatch_time().seconds(), 120);
  EXPECT_EQ(other.fence_epoch(), 9);

  // A FAILED dispatch answer arriving after a success does not fail it.
  ASSERT_OK(store().CompleteFollowups({id, started_id}));
  ASSERT_OK(store().RecordDispatches({DispatchFailed(id, 70000)}));
  ASSERT_OK_AND_ASSIGN(still, store().GetRun(id));
  EXPECT_EQ(still.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(still.handle_code(), 200);
  EXPECT_EQ(still.end_time().seconds(), 65);
  EXPECT_EQ(still.trigger_code(), v1::HANDLE_CODE_NO_EXECUTOR);
  EXPECT_THAT(PendingFollowups(store()), IsEmpty());
}

TEST_P(StoreTest, RetriesAreUniquePerFirstRunAndAttempt) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t first = Insert(MakeRun(job_, 60000));
  const int64_t other_first = Insert(MakeRun(job_, 120000));
  auto retry = [&](int64_t first_run_id, uint32_t attempt) {
    v1::Run r = MakeRun(job_, 60000);
    r.set_trigger_type(v1::TRIGGER_TYPE_RETRY);
    r.set_first_run_id(first_run_id);
    r.set_attempt(attempt);
    return r;
  };
  // The same follow-up handled twice in one batch, then once more.
  std::vector<v1::Run> batch = {retry(first, 1), retry(first, 1), retry(other_first, 1),
                                retry(first, 2)};
  ASSERT_OK_AND_ASSIGN(out, store().InsertRuns(batch));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_TRUE(out[0].inserted);
  EXPECT_FALSE(out[1].inserted);
  EXPECT_EQ(out[1].run_id, out[0].run_id);
  EXPECT_TRUE(out[2].inserted);
  EXPECT_TRUE(out[3].inserted);
  EXPECT_EQ(batch[1].id(), 0);  // Not filled for a clash.

  std::vector<v1::Run> replay = {retry(first, 2)};
  ASSERT_OK_AND_ASSIGN(again, store().InsertRuns(replay));
  EXPECT_FALSE(again[0].inserted);
  EXPECT_EQ(again[0].run_id, out[3].run_id);
  ASSERT_OK_AND_ASSIGN(stored, store().GetRun(out[3].run_id));
  EXPECT_EQ(stored.first_run_id(), first);
  EXPECT_EQ(stored.attempt(), 2u);

  // Attempt 0 runs are not retries: any number of them.
  std::vector<v1::Run> manual = {retry(first, 0), retry(first, 0)};
  ASSERT_OK_AND_ASSIGN(zero, store().InsertRuns(manual));
  EXPECT_TRUE(zero[0].inserted);
  EXPECT_TRUE(zero[1].inserted);
}

TEST_P(StoreTest, ChildRunsAreUniquePerParentJobAndShard) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  ASSERT_OK_AND_ASSIGN(child_job, store().CreateJob(MakeJob(group_.id(), "child"),
                                                    v1::JOB_STATE_RUNNING, kNever, 1));
  const int64_t parent = Insert(MakeRun(job_, 60000));
  const int64_t other_parent = Insert(MakeRun(job_, 120000));
  auto child = [&](const v1::Job& job, int64_t parent_run_id, uint32_t shard) {
    v1::Run r = MakeRun(job, 0, shard);
    r.clear_scheduled_time();
    r.set_trigger_type(v1::TRIGGER_TYPE_PARENT);
    r.set_parent_run_id(parent_run_id);
    return r;
  };
  std::vector<v1::Run> batch = {child(child_job, parent, 0), child(child_job, parent, 1),
                                child(job_, parent, 0), child(child_job, other_parent, 0),
                                child(child_job, parent, 0)};
  ASSERT_OK_AND_ASSIGN(out, store().InsertRuns(batch));
  ASSERT_EQ(out.size(), 5u);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(out[i].inserted) << i;
  EXPECT_FALSE(out[4].inserted);
  EXPECT_EQ(out[4].run_id, out[0].run_id);

  std::vector<v1::Run> replay = {child(child_job, parent, 1)};
  ASSERT_OK_AND_ASSIGN(again, store().InsertRuns(replay));
  EXPECT_FALSE(again[0].inserted);
  EXPECT_EQ(again[0].run_id, out[1].run_id);
  ASSERT_OK_AND_ASSIGN(stored, store().GetRun(out[1].run_id));
  EXPECT_EQ(stored.parent_run_id(), parent);
  EXPECT_EQ(stored.trigger_type(), v1::TRIGGER_TYPE_PARENT);

  // The same parent link on a manual run is not a child trigger: no key.
  v1::Run manual = child(child_job, parent, 0);
  manual.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
  std::vector<v1::Run> manuals = {manual, manual};
  ASSERT_OK_AND_ASSIGN(m, store().InsertRuns(manuals));
  EXPECT_TRUE(m[0].inserted);
  EXPECT_TRUE(m[1].inserted);
}

// ---- Retention ---------------------------------------------------------------

TEST_P(StoreTest, DeleteRunsEndedBeforeTakesOldestEndedRunsWithTheirLogs) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  std::vector<int64_t> ended;  // Ending at 10 s, 20 s, ... 50 s, inserted in reverse order.
  for (int i = 5; i >= 1; --i) {
    const int64_t id = Insert(MakeRun(job_, i * 1000));
    ASSERT_OK(store()
                  .ApplyReports({Lines(id, 1, 3), Result(id, i % 2 ? 200 : 500, i * 10000)}, 0)
                  .status());
    ended.insert(ended.begin(), id);
  }
  ASSERT_OK(store().CompleteFollowups(ended));
  const int64_t running = Insert(MakeRun(job_, 6000));
  const int64_t awaiting_followup = Insert(MakeRun(job_, 7000));
  ASSERT_OK(store().ApplyReports({Result(awaiting_followup, 500, 1000)}, 0).status());

  ASSERT_OK_AND_ASSIGN(first, store().DeleteRunsEndedBefore(45000, 2));
  EXPECT_EQ(first, 2);
  EXPECT_THAT(store().GetRun(ended[0]), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_THAT(store().GetRun(ended[1]), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(lines, store().ReadRunLog(ended[0], 1, 10));
  EXPECT_THAT(lines, IsEmpty());
  ASSERT_OK_AND_ASSIGN(kept_lines, store().ReadRunLog(ended[2], 1, 10));
  EXPECT_EQ(kept_lines.size(), 3u);

  ASSERT_OK_AND_ASSIGN(second, store().DeleteRunsEndedBefore(45000, 100));
  EXPECT_EQ(second, 2);  // 30 s and 40 s; never the running run or an unhandled follow-up.
  ASSERT_OK_AND_ASSIGN(third, store().DeleteRunsEndedBefore(45000, 100));
  EXPECT_EQ(third, 0);
  for (int64_t id : {ended[4], running, awaiting_followup}) EXPECT_OK_RUN(id);

  // Once its follow-up is handled it may go.
  ASSERT_OK(store().CompleteFollowups({awaiting_followup}));
  ASSERT_OK_AND_ASSIGN(fourth, store().DeleteRunsEndedBefore(45000, 100));
  EXPECT_EQ(fourth, 1);
  ASSERT_OK_AND_ASSIGN(none, store().DeleteRunsEndedBefore(45000, 0));
  EXPECT_EQ(none, 0);
}

TEST_P(StoreTest, TrimRunsPerJobKeepsTheNewestOfEachJob) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  ASSERT_OK_AND_ASSIGN(small_job, store().CreateJob(MakeJob(group_.id(), "small"),
                                                    v1::JOB_STATE_RUNNING, kNever, 1));
  std::vector<int64_t> ids;  // job_: 6 runs, the 2nd oldest still running.
  for (int i = 1; i <= 6; ++i) {
    const int64_t id = Insert(MakeRun(job_, i * 1000));
    if (i != 2)
      ASSERT_OK(store().ApplyReports({Lines(id, 1, 2), Result(id, 200, i * 1000)}, 0).status());
    ids.push_back(id);
  }
  std::vector<int64_t> small;  // small_job: 2 runs, ended.
  for (int i = 1; i <= 2; ++i) {
    const int64_t id = Insert(MakeRun(small_job, i * 1000));
    ASSERT_OK(store().ApplyReports({Result(id, 200, i * 1000)}, 0).status());
    small.push_back(id);
  }
  ASSERT_OK(store().CompleteFollowups(ids));
  ASSERT_OK(store().CompleteFollowups(small));

  // Keep 3: of job_'s 3 older runs, the two ended ones go, oldest first.
  ASSERT_OK_AND_ASSIGN(first, store().TrimRunsPerJob(3, 1));
  EXPECT_EQ(first, 1);
  EXPECT_THAT(store().GetRun(ids[0]), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(lines, store().ReadRunLog(ids[0], 1, 10));
  EXPECT_THAT(lines, IsEmpty());
  ASSERT_OK_AND_ASSIGN(second, store().TrimRunsPerJob(3, 100));
  EXPECT_EQ(second, 1);
  EXPECT_THAT(store().GetRun(ids[2]), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(third, store().TrimRunsPerJob(3, 100));
  EXPECT_EQ(third, 0);
  for (int64_t id : {ids[1], ids[3], ids[4], ids[5], small[0], small[1]}) EXPECT_OK_RUN(id);

  // Keep 0 removes every ended run.
  ASSERT_OK_AND_ASSIGN(all, store().TrimRunsPerJob(0, 100));
  EXPECT_EQ(all, 5);
  EXPECT_OK_RUN(ids[1]);
}

}  // namespace
}  // namespace gnomon::store::testing

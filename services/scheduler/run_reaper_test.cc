// RunReaper: the verdicts on runs that cannot end by themselves, and what
// happens when a run's own result arrives around the verdict — before the
// reaper looks, between its read and its write, after it, or at the same
// time: the executor's result always stands; only the provisional "executor
// lost" verdict gives way to it, and a final verdict does not.
//
// The reaper runs on its own thread over a SimulatedClock; a test moves the
// clock and waits for the pass that follows (Pass()), never for real time.
#include "services/scheduler/run_reaper.h"

#include <algorithm>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/failing_run_store.h"
#include "services/common/store/testing/store_call_steps.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/testing/fake_executors.h"
#include "services/scheduler/testing/ownership.h"
#include "services/scheduler/testing/runs.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;
using ::testing::HasSubstr;
using testing::Result;
using testing::RunningRun;

constexpr int64_t kNow = 1'800'000'000'000;
constexpr absl::Duration kGrace = absl::Seconds(2);

v1::ExecutorInfo Executor(const std::string& address, const std::string& instance) {
  return testing::Registered("app", address, instance);
}

class RunReaperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(temp_.status().ok()) << temp_.status();
    absl::StatusOr<v1::Group> g = temp_.AddGroup("app", "token", kNow);
    ASSERT_TRUE(g.ok()) << g.status();
    v1::Job j;
    j.set_group_id(g->id());
    j.mutable_bean()->set_handler("h");
    // A child job: every end, success too, has a follow-up, so the tests
    // can count that each run's end queued exactly one.
    j.add_child_job_ids(99);
    absl::StatusOr<v1::Job> job = temp_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    ASSERT_TRUE(job.ok()) << job.status();
    job_ = *job;
    membership_.OnLeft([this](const v1::ExecutorInfo& e) { reaper_.ExecutorLeft(e); });
  }
  void TearDown() override { reaper_.Stop(); }

  // The live executors, as the registry's watch says (others have left).
  void Live(const std::vector<v1::ExecutorInfo>& executors) {
    membership_.Apply(testing::Snapshot(executors));
  }
  // Starts the reaper and waits for its first pass.
  void Start() {
    const int before = hook_.calls("ListRuns");
    reaper_.Start();
    AwaitPass(before);
  }
  // Moves the clock on and waits until the reaper's pass at that time is done.
  void Pass(absl::Duration d) {
    const int before = hook_.calls("ListRuns");
    clock_.Advance(d);
    AwaitPass(before);
  }
  // Every pass scans (scan_interval is shorter than any step): once a scan of
  // this pass began, the reaper is past its wait, and parks after the pass.
  void AwaitPass(int list_runs_before) {
    ASSERT_TRUE(hook_.AwaitCalls("ListRuns", list_runs_before + 1, absl::Minutes(1)));
    clock_.BlockUntilWaiters(1);
  }
  v1::Run Stored(int64_t id) {
    absl::StatusOr<v1::Run> r = temp_->GetRun(id);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : v1::Run();
  }
  v1::ReportAck Report(int64_t id, v1::HandleCode code, int64_t end_ms) {
    absl::StatusOr<std::vector<v1::ReportAck>> acks =
        temp_->ApplyReports({Result(id, code, end_ms)}, job_.group_id());
    EXPECT_TRUE(acks.ok()) << acks.status();
    return acks.ok() ? (*acks)[0] : v1::REPORT_ACK_UNSPECIFIED;
  }
  void ExpectVerdictAfterFailed(const std::string& call);
  // Runs whose follow-up is pending now.
  std::vector<int64_t> PendingFollowups() {
    absl::StatusOr<std::vector<v1::Run>> runs =
        temp_->ListPendingFollowups(100, clock_.NowMillis(), {});
    EXPECT_TRUE(runs.ok()) << runs.status();
    std::vector<int64_t> ids;
    if (runs.ok()) {
      for (const v1::Run& r : *runs) ids.push_back(r.id());
    }
    return ids;
  }

  store::testing::TempStore temp_;
  store::testing::StoreCallHook hook_;
  store::testing::FailingRunStore store_{temp_.get(), &hook_};
  v1::Job job_;
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  Membership membership_{"token", &clock_};
  RunReaperOptions options_ = [] {
    RunReaperOptions o;
    o.lost_grace = kGrace;
    o.pending_timeout = absl::Seconds(30);
    o.scan_interval = absl::Milliseconds(1);
    return o;
  }();
  InFlightRuns in_flight_;
  RunReaper reaper_{&store_, &membership_, &clock_, options_, nullptr, &in_flight_};
};

TEST_F(RunReaperTest, ARunOnAnExecutorThatLeftAndStayedGoneIsFailedAsLostOnceTheGraceIsOver) {
  Live({Executor("a:1", "one")});
  const int64_t id = RunningRun(temp_.get(), job_, "a:1", kNow);
  Live({});
  Start();
  Pass(kGrace - absl::Milliseconds(1));
  EXPECT_EQ(Stored(id).status(), v1::RUN_STATUS_RUNNING);
  Pass(absl::Milliseconds(1));
  const v1::Run run = Stored(id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(run.handle_code(), v1::HANDLE_CODE_EXECUTOR_LOST);
  EXPECT_EQ(run.handle_message(), "executor lost: a:1 left while the run was in flight");
}

TEST_F(RunReaperTest, AnExecutorBackAsTheSameProcessWithinTheGraceKeepsItsRuns) {
  // A registry blip: the process never stopped running the run.
  Live({Executor("a:1", "one")});
  const int64_t id = RunningRun(temp_.get(), job_, "a:1", kNow);
  Live({});
  Live({Executor("a:1", "one")});
  Start();
  Pass(kGrace);
  Pass(kGrace);
  EXPECT_EQ(Stored(id).status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(hook_.calls("FailRuns"), 0);
}

TEST_F(RunReaperTest, ARestartedExecutorsRunsAreLostThoughItsAddressIsLiveAndLaterRunsAreNot) {
  // The new process at the address does not hold the old one's runs; the
  // runs sent after the restart are the new one's.
  Live({Executor("a:1", "one")});
  const int64_t old_run = RunningRun(temp_.get(), job_, "a:1", kNow);
  clock_.Advance(absl::Milliseconds(5));
  Live({Executor("a:1", "two")});
  const int64_t new_run = RunningRun(temp_.get(), job_, "a:1", kNow + 10);
  Start();
  Pass(kGrace);
  const v1::Run lost = Stored(old_run);
  EXPECT_EQ(lost.handle_code(), v1::HANDLE_CODE_EXECUTOR_LOST);
  EXPECT_EQ(lost.handle_message(), "executor lost: a:1 restarted while the run was in flight");
  EXPECT_EQ(Stored(new_run).status(), v1::RUN_STATUS_RUNNING);
}

TEST_F(RunReaperTest, OnlyTheRunsOfPartitionsItHoldsAreReaped) {
  v1::Job other;
  other.set_group_id(job_.group_id());
  other.mutable_bean()->set_handler("h");
  absl::StatusOr<v1::Job> created =
      temp_->CreateJob(other, v1::JOB_STATE_STOPPED, store::kNever, kNow);
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_NE(testing::PartitionOf(created->id()), testing::PartitionOf(job_.id()));
  Live({Executor("a:1", "one")});
  const int64_t mine = RunningRun(temp_.get(), job_, "a:1", kNow);
  const int64_t theirs = RunningRun(temp_.get(), *created, "a:1", kNow);
  auto held = testing::Holding({testing::PartitionOf(job_.id())}, kNow + 60'000);
  reaper_.SetOwnership(held);
  Live({});
  Start();
  Pass(kGrace);
  Pass(kGrace);  // The scan for absent executors too.
  EXPECT_EQ(Stored(mine).status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(Stored(theirs).status(), v1::RUN_STATUS_RUNNING);  // Another replica's to reap.
}

// Each replica's periodic scans cover its own partitions, and all of them
// (not only on the holder of partition 0): a partition handed over is
// scanned by its new holder.
TEST_F(RunReaperTest, StalePendingRunsAreFailedByTheHolderOfTheirPartition) {
  v1::Job other;
  other.set_group_id(job_.group_id());
  other.mutable_bean()->set_handler("h");
  absl::StatusOr<v1::Job> created =
      temp_->CreateJob(other, v1::JOB_STATE_STOPPED, store::kNever, kNow);
  ASSERT_TRUE(created.ok()) << created.status();
  const int mine = testing::PartitionOf(job_.id());
  const int theirs = testing::PartitionOf(created->id());
  ASSERT_NE(mine, theirs);
  ASSERT_NE(mine, 0);  // Its holder does not hold partition 0.
  const int64_t my_run = testing::PendingRun(temp_.get(), job_, kNow);
  const int64_t their_run = testing::PendingRun(temp_.get(), *created, kNow);
  reaper_.SetOwnership(testing::Holding({mine}, kNow + 600'000));
  Start();
  Pass(absl::Seconds(31));
  EXPECT_EQ(Stored(my_run).status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(Stored(their_run).status(), v1::RUN_STATUS_PENDING);  // Not this replica's.
  reaper_.SetOwnership(testing::Holding({std::min(mine, theirs), std::max(mine, theirs)},
                                        kNow + 600'000));  // Handed over to it.
  Pass(absl::Seconds(5));
  EXPECT_EQ(Stored(their_run).status(), v1::RUN_STATUS_FAILED);
}

TEST_F(RunReaperTest, ARunStillPendingAfterThePendingTimeoutIsFailedAsNeverConfirmed) {
  const int64_t id = testing::PendingRun(temp_.get(), job_, kNow);
  Start();
  Pass(absl::Seconds(29));
  EXPECT_EQ(Stored(id).status(), v1::RUN_STATUS_PENDING);
  Pass(absl::Seconds(2));
  const v1::Run run = Stored(id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(run.handle_code(), v1::HANDLE_CODE_EXECUTOR_LOST);  // Provisional.
  EXPECT_THAT(run.handle_message(), HasSubstr("dispatch never confirmed"));
}

TEST_F(RunReaperTest, APendingRunThisReplicaIsStillSendingIsNotFailedHoweverLongItWaits) {
  // Recorded here; its dispatch outcome is queued behind a backlog of writes.
  in_flight_.BeginRecording(kNow);
  const int64_t id = testing::PendingRun(temp_.get(), job_, kNow);
  in_flight_.Sending(id);
  in_flight_.EndRecording(kNow);
  Start();
  Pass(absl::Seconds(120));
  EXPECT_EQ(Stored(id).status(), v1::RUN_STATUS_PENDING);
  // Its outcome is written: RUNNING, nothing for the reaper.
  store::DispatchUpdate u;
  u.run_id = id;
  u.executor_address = "a:1";
  u.dispatch_ms = kNow + 120'000;
  ASSERT_TRUE(temp_->RecordDispatches({u}).ok());
  in_flight_.Committed({id});
  Pass(absl::Seconds(31));
  EXPECT_EQ(Stored(id).status(), v1::RUN_STATUS_RUNNING);
}

TEST_F(RunReaperTest, ARunOnAnExecutorNoSchedulerSawLeaveIsFailedByTheScan) {
  // It died while every scheduler was down: no "left" came, only its absence.
  Live({});
  const int64_t id = RunningRun(temp_.get(), job_, "gone:1", kNow);
  Start();
  Pass(kGrace - absl::Milliseconds(1));
  EXPECT_EQ(Stored(id).status(), v1::RUN_STATUS_RUNNING);
  Pass(absl::Milliseconds(1));
  const v1::Run run = Stored(id);
  EXPECT_EQ(run.handle_code(), v1::HANDLE_CODE_EXECUTOR_LOST);
  EXPECT_THAT(run.handle_message(), HasSubstr("no longer registered"));
}

TEST_F(RunReaperTest, NothingIsOrphanedBeforeTheFirstMembershipSnapshot) {
  // Before it, "not live" is unknown: every executor would look absent.
  const int64_t id = RunningRun(temp_.get(), job_, "a:1", kNow);
  Start();
  Pass(kGrace);
  Pass(kGrace);
  EXPECT_EQ(Stored(id).status(), v1::RUN_STATUS_RUNNING);
}

// A lost executor's verdict when `call` fails once: tried again, not dropped.
// The executor restarted, so its address is live and no scan would ever
// find the old process's runs.
void RunReaperTest::ExpectVerdictAfterFailed(const std::string& call) {
  Live({Executor("a:1", "one")});
  const int64_t id = RunningRun(temp_.get(), job_, "a:1", kNow);
  Live({Executor("a:1", "two")});
  hook_.Set(store::testing::FailNext(call, absl::UnavailableError("store down")));
  Start();
  Pass(kGrace);
  EXPECT_EQ(Stored(id).status(), v1::RUN_STATUS_RUNNING);
  Pass(kGrace);
  const v1::Run run = Stored(id);
  EXPECT_EQ(run.handle_code(), v1::HANDLE_CODE_EXECUTOR_LOST);
  EXPECT_EQ(run.handle_message(), "executor lost: a:1 restarted while the run was in flight");
}

TEST_F(RunReaperTest, ALostExecutorsRunsAreFailedOnceTheStoreAnswersAgain) {
  ExpectVerdictAfterFailed("ListActiveRunsOn");
}

TEST_F(RunReaperTest, AVerdictTheStoreFailedToWriteIsWrittenLater) {
  ExpectVerdictAfterFailed("FailRuns");
}

// A run reaped while its result arrives.

TEST_F(RunReaperTest, AResultStoredBeforeTheReaperLooksStandsAndNothingIsFailed) {
  Live({Executor("a:1", "one")});
  const int64_t id = RunningRun(temp_.get(), job_, "a:1", kNow);
  Live({});
  ASSERT_EQ(Report(id, v1::HANDLE_CODE_SUCCESS, kNow + 1), v1::REPORT_ACK_APPLIED);
  Start();
  Pass(kGrace);
  const v1::Run run = Stored(id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(run.handle_code(), v1::HANDLE_CODE_SUCCESS);
}

TEST_F(RunReaperTest, AResultStoredBetweenTheReapersReadAndItsWriteStands) {
  Live({Executor("a:1", "one")});
  const int64_t id = RunningRun(temp_.get(), job_, "a:1", kNow);
  Live({});
  // The reaper has listed the run as RUNNING; the result commits first.
  hook_.Set(store::testing::DoBefore("FailRuns", [&] {
    EXPECT_EQ(Report(id, v1::HANDLE_CODE_SUCCESS, kNow + 1), v1::REPORT_ACK_APPLIED);
  }));
  Start();
  Pass(kGrace);
  ASSERT_EQ(hook_.calls("FailRuns"), 1);
  const v1::Run run = Stored(id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(run.handle_message(), "done");
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(run.end_time()), kNow + 1);
  EXPECT_THAT(PendingFollowups(), ::testing::ElementsAre(id));  // One follow-up: the success's.
}

TEST_F(RunReaperTest, ALateResultReplacesTheLostVerdictAndItsFollowupIsDecidedOnTheResult) {
  Live({Executor("a:1", "one")});
  const int64_t id = RunningRun(temp_.get(), job_, "a:1", kNow);
  Live({});
  Start();
  Pass(kGrace);
  ASSERT_EQ(Stored(id).handle_code(), v1::HANDLE_CODE_EXECUTOR_LOST);
  // The executor was only cut off; its spooled result arrives.
  EXPECT_EQ(Report(id, v1::HANDLE_CODE_SUCCESS, kNow + 500), v1::REPORT_ACK_APPLIED);
  const v1::Run run = Stored(id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(run.end_time()), kNow + 500);
  EXPECT_THAT(PendingFollowups(), ::testing::ElementsAre(id));
  // The same result again is a replay.
  EXPECT_EQ(Report(id, v1::HANDLE_CODE_SUCCESS, kNow + 500), v1::REPORT_ACK_DUPLICATE);
}

TEST_F(RunReaperTest, ANeverConfirmedVerdictIsReplacedByTheResultOfTheExecutorThatRanIt) {
  // The scheduler that sent it died with the executor's answer; the
  // executor ran it, and its result arrives after the pending timeout.
  const int64_t id = testing::PendingRun(temp_.get(), job_, kNow);
  Start();
  Pass(absl::Seconds(31));
  ASSERT_EQ(Stored(id).handle_code(), v1::HANDLE_CODE_EXECUTOR_LOST);
  EXPECT_EQ(Report(id, v1::HANDLE_CODE_SUCCESS, kNow + 31'000), v1::REPORT_ACK_APPLIED);
  const v1::Run run = Stored(id);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(run.end_time()), kNow + 31'000);
  EXPECT_EQ(Report(id, v1::HANDLE_CODE_SUCCESS, kNow + 31'000), v1::REPORT_ACK_DUPLICATE);
}

TEST_F(RunReaperTest, ResultsRacingTheReaperEndTheirRunsSucceededWhicheverCommitsFirst) {
  // Twenty executors leave; their results arrive while the reaper fails
  // their runs: each run ends as its executor said, exactly once.
  constexpr int kRuns = 20;
  std::vector<v1::ExecutorInfo> executors;
  for (int i = 0; i < kRuns; ++i) executors.push_back(Executor(absl::StrCat("e", i, ":1"), "one"));
  Live(executors);
  std::vector<int64_t> ids;
  for (int i = 0; i < kRuns; ++i)
    ids.push_back(RunningRun(temp_.get(), job_, executors[i].address(), kNow));
  Live({});
  Start();
  const int before = hook_.calls("ListRuns");
  clock_.Advance(kGrace);   // The reaper starts failing them...
  for (int64_t id : ids) {  // ...while their results arrive.
    EXPECT_EQ(Report(id, v1::HANDLE_CODE_SUCCESS, kNow + 100), v1::REPORT_ACK_APPLIED)
        << "run " << id;
  }
  AwaitPass(before);
  for (int64_t id : ids) {
    const v1::Run run = Stored(id);
    EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED) << "run " << id;
    EXPECT_EQ(TimeUtil::TimestampToMilliseconds(run.end_time()), kNow + 100) << "run " << id;
    EXPECT_EQ(Report(id, v1::HANDLE_CODE_SUCCESS, kNow + 100), v1::REPORT_ACK_DUPLICATE)
        << "run " << id;
  }
  EXPECT_EQ(PendingFollowups().size(), ids.size());  // One each.
}

}  // namespace
}  // namespace gnomon::scheduler

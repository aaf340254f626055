#include "services/scheduler/followups.h"

#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "services/common/store/testing/failing_followup_store.h"
#include "services/common/store/testing/failing_job_store.h"
#include "services/common/store/testing/store_call_steps.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/testing/fake_executors.h"
#include "services/scheduler/testing/recording_sink.h"
#include "services/scheduler/testing/runs.h"
#include "services/scheduler/trigger.h"

namespace gnomon::scheduler {
namespace {

constexpr int64_t kNow = 1'800'000'000'000;

// Notes the fires (retries, children) instead of recording them.
class NotingSink final : public FireSink {
 public:
  absl::StatusOr<std::vector<FireOutcome>> Fire(std::vector<FireSpec> fires) override {
    for (FireSpec& f : fires) seen.push_back(std::move(f));
    return std::vector<FireOutcome>(seen.size());
  }
  std::vector<FireSpec> seen;
};

class FollowupsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    absl::StatusOr<v1::Group> g = store_.AddGroup("app", "token", kNow);
    ASSERT_TRUE(g.ok()) << g.status();
    v1::Job j;
    j.set_group_id(g->id());
    j.mutable_bean()->set_handler("h");
    j.mutable_retry()->set_max_retries(1);  // At once: no backoff delay.
    absl::StatusOr<v1::Job> job = store_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    ASSERT_TRUE(job.ok()) << job.status();
    job_ = *job;
  }

  // A run of the job that an executor at 10.0.0.1:1 accepted.
  int64_t RunningRun() { return testing::RunningRun(store_.get(), job_, "10.0.0.1:1", kNow); }
  // Retries fired so far.
  size_t Retries() const {
    size_t n = 0;
    for (const FireSpec& f : sink_.seen) n += f.type == v1::TRIGGER_TYPE_RETRY;
    return n;
  }
  void TickAt(absl::Duration after_now) {
    clock_.AdvanceTo(absl::FromUnixMillis(kNow) + after_now);
    followups_.Tick();
  }

  store::testing::TempStore store_;
  v1::Job job_;
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  NotingSink sink_;
  ScheduleLoop loop_{store_.get(), &sink_, &clock_, {}};
  FollowupOptions options_ = [] {
    FollowupOptions o;
    o.lost_retry_wait = absl::Seconds(30);
    return o;
  }();
  Followups followups_{store_.get(), store_.get(), store_.get(), &sink_, &loop_, &clock_, options_};
};

// alarm.on: failures (the default), successes, or both; a job that alarms
// on success has a follow-up for each success (where it is raised).
TEST(AlarmsOnTest, FailureByDefaultSuccessOrBothWhenAsked) {
  v1::Job job;
  EXPECT_TRUE(AlarmsOn(job, /*success=*/false));
  EXPECT_FALSE(AlarmsOn(job, /*success=*/true));
  EXPECT_FALSE(SuccessHasFollowups(job));
  job.mutable_alarm()->set_on(v1::ALARM_ON_SUCCESS);
  EXPECT_FALSE(AlarmsOn(job, false));
  EXPECT_TRUE(AlarmsOn(job, true));
  EXPECT_TRUE(SuccessHasFollowups(job));
  job.mutable_alarm()->set_on(v1::ALARM_ON_BOTH);
  EXPECT_TRUE(AlarmsOn(job, false));
  EXPECT_TRUE(AlarmsOn(job, true));
}

TEST_F(FollowupsTest, AFailedRunIsRetriedAtOnce) {
  const int64_t id = RunningRun();
  ASSERT_TRUE(store_->FailRuns({id}, v1::HANDLE_CODE_FAILURE, "boom", kNow).ok());
  TickAt(absl::ZeroDuration());
  ASSERT_EQ(Retries(), 1u);
  EXPECT_EQ(sink_.seen[0].attempt, 1u);
  EXPECT_EQ(sink_.seen[0].first_run_id, id);
}

TEST_F(FollowupsTest, ARunDeclaredLostIsRetriedOnlyOnceItsExecutorStayedGoneTheWholeWait) {
  // "Executor lost" is provisional: the executor may still hold the run.
  const int64_t id = RunningRun();
  ASSERT_TRUE(store_->FailRuns({id}, v1::HANDLE_CODE_EXECUTOR_LOST, "executor lost", kNow).ok());
  TickAt(absl::ZeroDuration());
  TickAt(absl::Seconds(29));
  EXPECT_EQ(Retries(), 0u);
  TickAt(absl::Seconds(30));
  ASSERT_EQ(Retries(), 1u);
  EXPECT_EQ(sink_.seen[0].first_run_id, id);
}

TEST_F(FollowupsTest, ALateResultWithinTheWaitReplacesTheLostVerdictAndNothingIsRetried) {
  const int64_t id = RunningRun();
  ASSERT_TRUE(store_->FailRuns({id}, v1::HANDLE_CODE_EXECUTOR_LOST, "executor lost", kNow).ok());
  TickAt(absl::Seconds(1));
  // The executor was only unreachable: its spooled result arrives.
  ASSERT_TRUE(store_
                  ->ApplyReports({testing::Result(id, v1::HANDLE_CODE_SUCCESS, kNow + 5000)},
                                 job_.group_id())
                  .ok());
  TickAt(absl::Seconds(31));
  TickAt(absl::Seconds(60));
  EXPECT_EQ(Retries(), 0u);
  absl::StatusOr<v1::Run> run = store_->GetRun(id);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->status(), v1::RUN_STATUS_SUCCEEDED);
}

TEST_F(FollowupsTest, AJobIsPausedOnceItsRunsFailedThatManyTimesInARowAndASuccessResetsTheCount) {
  v1::Job j = job_;
  j.clear_id();
  j.set_name("pausing");
  j.mutable_retry()->set_max_retries(0);
  j.set_pause_after_failures(2);
  *j.mutable_schedule()->mutable_fix_rate() =
      google::protobuf::util::TimeUtil::SecondsToDuration(1);
  absl::StatusOr<v1::Job> job = store_->CreateJob(j, v1::JOB_STATE_RUNNING, kNow + 1000, kNow);
  ASSERT_TRUE(job.ok()) << job.status();
  auto end = [&](v1::HandleCode code) {
    const int64_t id = testing::RunningRun(store_.get(), *job, "10.0.0.1:1", kNow);
    EXPECT_TRUE(SuccessHasFollowups(*job));  // Its successes reset the count.
    EXPECT_TRUE(store_->ApplyReports({testing::Result(id, code, kNow + 10)}, job->group_id()).ok());
    TickAt(absl::Milliseconds(20));
    absl::StatusOr<v1::Job> now = store_->GetJob(job->id());
    EXPECT_TRUE(now.ok()) << now.status();
    return *now;
  };
  EXPECT_EQ(end(v1::HANDLE_CODE_FAILURE).consecutive_failures(), 1u);
  EXPECT_EQ(end(v1::HANDLE_CODE_SUCCESS).consecutive_failures(), 0u);  // Counted from 0 again.
  EXPECT_EQ(end(v1::HANDLE_CODE_FAILURE).state(), v1::JOB_STATE_RUNNING);
  const v1::Job paused = end(v1::HANDLE_CODE_FAILURE);
  EXPECT_EQ(paused.state(), v1::JOB_STATE_PAUSED);
  EXPECT_EQ(paused.consecutive_failures(), 2u);
  EXPECT_NE(paused.pause_reason().find("paused after 2 consecutive failures; the last, run "),
            std::string::npos)
      << paused.pause_reason();
  EXPECT_FALSE(paused.has_next_fire_time());  // Its schedule fires nothing more.
  EXPECT_EQ(Retries(), 0u);
  // Resuming (StartJob) clears the reason and the count.
  absl::StatusOr<v1::Job> resumed =
      store_->SetJobState(job->id(), v1::JOB_STATE_RUNNING, kNow + 2000, kNow);
  ASSERT_TRUE(resumed.ok());
  EXPECT_EQ(resumed->pause_reason(), "");
  EXPECT_EQ(resumed->consecutive_failures(), 0u);
}

TEST_F(FollowupsTest, AFailureHandledTwiceOrOutOfOrderIsCountedOnce) {
  v1::Job j = job_;
  j.clear_id();
  j.set_name("counted");
  j.set_pause_after_failures(5);
  absl::StatusOr<v1::Job> job = store_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<uint32_t> n = store_->RecordJobEnd(job->id(), 10, true);
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 1u);
  EXPECT_EQ(*store_->RecordJobEnd(job->id(), 10, true), 1u);  // The same run again.
  EXPECT_EQ(*store_->RecordJobEnd(job->id(), 9, true), 1u);   // An older run, ending late.
  EXPECT_EQ(*store_->RecordJobEnd(job->id(), 11, true), 2u);
  // Only a RUNNING job is paused.
  absl::StatusOr<bool> paused = store_->PauseJob(job->id(), "why", kNow);
  ASSERT_TRUE(paused.ok());
  EXPECT_FALSE(*paused);
}

TEST_F(FollowupsTest, AFixDelayJobsNextFireIsItsRunsEndPlusTheDelayWrittenByTheLoop) {
  v1::Job j = job_;
  j.clear_id();
  j.set_name("delayed");
  *j.mutable_schedule()->mutable_fix_delay() =
      google::protobuf::util::TimeUtil::SecondsToDuration(5);
  // Between runs: the cursor waits at kNever for the run's end.
  absl::StatusOr<v1::Job> job = store_->CreateJob(j, v1::JOB_STATE_RUNNING, store::kNever, kNow);
  ASSERT_TRUE(job.ok()) << job.status();
  v1::Run r;
  r.set_job_id(job->id());
  r.set_group_id(job->group_id());
  r.set_trigger_type(v1::TRIGGER_TYPE_FIX_DELAY);
  *r.mutable_trigger_time() = google::protobuf::util::TimeUtil::MillisecondsToTimestamp(kNow);
  *r.mutable_scheduled_time() = google::protobuf::util::TimeUtil::MillisecondsToTimestamp(kNow);
  r.set_handler("h");
  r.set_shard_total(1);
  r.set_status(v1::RUN_STATUS_PENDING);
  r.set_success_has_followups(SuccessHasFollowups(*job));
  std::vector<v1::Run> runs = {r};
  absl::StatusOr<std::vector<store::RunInsertOutcome>> in = store_->InsertRuns(runs);
  ASSERT_TRUE(in.ok()) << in.status();
  const int64_t id = (*in)[0].run_id;
  ASSERT_TRUE(store_
                  ->ApplyReports({testing::Result(id, v1::HANDLE_CODE_SUCCESS, kNow + 1500)},
                                 job->group_id())
                  .ok());
  TickAt(absl::Seconds(2));
  absl::StatusOr<v1::Job> after = store_->GetJob(job->id());
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(google::protobuf::util::TimeUtil::TimestampToMilliseconds(after->next_fire_time()),
            kNow + 1500 + 5000);
  // Done once written: the follow-up is not listed again.
  absl::StatusOr<std::vector<v1::Run>> pending =
      store_->ListPendingFollowups(10, kNow + 10'000, {});
  ASSERT_TRUE(pending.ok()) << pending.status();
  EXPECT_TRUE(pending->empty());
}

// A follow-up claimed twice: two replicas (two Followups) handle the same
// ended run — one lists it while the other is handling it. The store's
// unique keys make the second handling record nothing: one retry, one child
// run, one dispatch.
class FollowupClaimedTwiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(temp_.status().ok()) << temp_.status();
    absl::StatusOr<v1::Group> g = temp_.AddGroup("app", "token", kNow);
    ASSERT_TRUE(g.ok()) << g.status();
    group_id_ = g->id();
    membership_.Apply(
        testing::Snapshot({testing::Registered("app", "a:1"), testing::Registered("app", "b:1")}));
  }
  v1::Job Job(v1::RouteStrategy route, uint32_t retries, std::vector<int64_t> children = {}) {
    v1::Job j;
    j.set_group_id(group_id_);
    j.mutable_bean()->set_handler("h");
    j.set_route_strategy(route);
    j.mutable_retry()->set_max_retries(retries);
    j.set_child_trigger_mode(v1::CHILD_TRIGGER_MODE_ALL_SHARDS_SUCCEEDED);
    for (int64_t c : children) j.add_child_job_ids(c);
    absl::StatusOr<v1::Job> job = temp_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    EXPECT_TRUE(job.ok()) << job.status();
    return job.ok() ? *job : j;
  }
  // Fires `job` and has each of its runs accepted, then ended with `code`.
  std::vector<int64_t> Ended(const v1::Job& job, v1::HandleCode code) {
    FireSpec f;
    f.job = std::make_shared<const v1::Job>(job);
    absl::StatusOr<std::vector<FireOutcome>> out = trigger_.Fire({f});
    EXPECT_TRUE(out.ok()) << out.status();
    std::vector<int64_t> ids = out.ok() ? (*out)[0].run_ids : std::vector<int64_t>{};
    while (!executors_.sent.empty()) executors_.Answer(testing::Accepted());
    outcomes_.Stop();
    outcomes_.Run();  // Stopped: writes what is queued and returns.
    for (int64_t id : ids) {
      EXPECT_TRUE(temp_->ApplyReports({testing::Result(id, code, kNow)}, group_id_).ok());
    }
    return ids;
  }
  // The other replica handles everything pending when replica A reaches `point`.
  void BWhenAReaches(std::string point) {
    a_hook_.Set(store::testing::DoBefore(std::move(point), [this] { b_.Tick(); }));
  }
  std::vector<v1::Run> RunsOf(int64_t job_id) { return testing::RunsOf(temp_.get(), job_id); }

  store::testing::TempStore temp_;
  store::testing::StoreCallHook a_hook_;  // Around replica A's reads and writes, to stage the race.
  store::testing::FailingFollowupStore a_outbox_{temp_.get(), &a_hook_};
  store::testing::FailingJobStore a_jobs_{temp_.get(), &a_hook_};
  int64_t group_id_ = 0;
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  Membership membership_{"cluster-token", &clock_};
  testing::FakeExecutors executors_;
  DispatchRecorder outcomes_{temp_.get(), &clock_};
  GroupTargets targets_{temp_.get(), &membership_, &clock_};
  Deliveries deliveries_{{.executors = &executors_,
                          .outcomes = &outcomes_,
                          .targets = &targets_,
                          .clock = &clock_,
                          .partition_count = temp_->partition_count()}};
  RunRecorder recorder_{temp_.get(), &clock_};
  Trigger trigger_{&recorder_, &targets_, &deliveries_};
  ScheduleLoop loop_{temp_.get(), &trigger_, &clock_, {}};
  Followups a_{&a_outbox_, temp_.get(), &a_jobs_, &trigger_, &loop_, &clock_, {}};
  Followups b_{temp_.get(), temp_.get(), temp_.get(), &trigger_, &loop_, &clock_, {}};
};

TEST_F(FollowupClaimedTwiceTest, ARetryFiredByTheOtherReplicaFirstIsNotFiredAgain) {
  const v1::Job job = Job(v1::ROUTE_STRATEGY_FIRST, 3);
  const std::vector<int64_t> failed = Ended(job, v1::HANDLE_CODE_FAILURE);
  BWhenAReaches("GetJobs");  // A has listed the follow-up; B handles it all.
  a_.Tick();
  ASSERT_EQ(executors_.sent.size(), 1u);
  EXPECT_EQ(executors_.sent[0].run.attempt(), 1u);
  const std::vector<v1::Run> runs = RunsOf(job.id());
  ASSERT_EQ(runs.size(), 2u);  // The failed run and one retry.
  EXPECT_EQ(runs[0].first_run_id(), failed[0]);
  EXPECT_EQ(runs[0].attempt(), 1u);
}

TEST_F(FollowupClaimedTwiceTest, ARetryBeingCompletedByOneReplicaIsNotFiredAgainByTheOther) {
  const v1::Job job = Job(v1::ROUTE_STRATEGY_FIRST, 3);
  Ended(job, v1::HANDLE_CODE_FAILURE);
  BWhenAReaches("CompleteFollowups");  // A fired the retry; B lists the follow-up still pending.
  a_.Tick();
  EXPECT_EQ(executors_.sent.size(), 1u);
  EXPECT_EQ(RunsOf(job.id()).size(), 2u);
  absl::StatusOr<std::vector<v1::Run>> pending = temp_->ListPendingFollowups(10, kNow, {});
  ASSERT_TRUE(pending.ok());
  EXPECT_TRUE(pending->empty());
}

TEST_F(FollowupClaimedTwiceTest, AChildJobIsFiredOnceThoughTwoReplicasHandleItsParentsSuccess) {
  const v1::Job child = Job(v1::ROUTE_STRATEGY_FIRST, 0);
  const v1::Job parent = Job(v1::ROUTE_STRATEGY_FIRST, 0, {child.id()});
  const std::vector<int64_t> ran = Ended(parent, v1::HANDLE_CODE_SUCCESS);
  BWhenAReaches("GetJobs");
  a_.Tick();
  const std::vector<v1::Run> children = RunsOf(child.id());
  ASSERT_EQ(children.size(), 1u);
  EXPECT_EQ(children[0].parent_run_id(), ran[0]);
  EXPECT_EQ(children[0].trigger_type(), v1::TRIGGER_TYPE_PARENT);
  EXPECT_EQ(executors_.sent.size(), 1u);
}

TEST_F(FollowupClaimedTwiceTest, ABroadcastsChildrenFireOnceWhenItsShardsEndOnTwoReplicas) {
  // ALL_SHARDS_SUCCEEDED: whichever handling sees the last shard succeed
  // fires the children, anchored on shard 0, so concurrent ones collapse.
  const v1::Job child = Job(v1::ROUTE_STRATEGY_FIRST, 0);
  const v1::Job parent = Job(v1::ROUTE_STRATEGY_SHARDING_BROADCAST, 0, {child.id()});
  const std::vector<int64_t> shards = Ended(parent, v1::HANDLE_CODE_SUCCESS);
  ASSERT_EQ(shards.size(), 2u);
  BWhenAReaches("GetJobs");
  a_.Tick();
  const std::vector<v1::Run> children = RunsOf(child.id());
  ASSERT_EQ(children.size(), 1u);
  EXPECT_EQ(children[0].parent_run_id(), shards[0]);
}

TEST_F(FollowupClaimedTwiceTest, TwoReplicasHandlingTheSameFailuresAtOnceRetryEachOnce) {
  constexpr int kRuns = 20;
  const v1::Job job = Job(v1::ROUTE_STRATEGY_FIRST, 3);
  std::vector<int64_t> failed;
  for (int i = 0; i < kRuns; ++i)
    failed.push_back(testing::RunningRun(temp_.get(), job, "a:1", kNow));
  ASSERT_TRUE(temp_->FailRuns(failed, v1::HANDLE_CODE_FAILURE, "boom", kNow).ok());
  testing::RecordingSink sink(&recorder_);  // Thread-safe, unlike the fake executors.
  Followups one(temp_.get(), temp_.get(), temp_.get(), &sink, &loop_, &clock_, {});
  Followups two(temp_.get(), temp_.get(), temp_.get(), &sink, &loop_, &clock_, {});
  std::thread t1([&] { one.Tick(); });
  std::thread t2([&] { two.Tick(); });
  t1.join();
  t2.join();
  std::map<int64_t, int> retries;  // first run -> retries recorded
  for (const v1::Run& r : RunsOf(job.id())) {
    if (r.attempt() > 0) ++retries[r.first_run_id()];
  }
  ASSERT_EQ(retries.size(), failed.size());
  for (int64_t id : failed) EXPECT_EQ(retries[id], 1) << "run " << id;
}

}  // namespace
}  // namespace gnomon::scheduler

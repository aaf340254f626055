// Trigger, the production FireSink: a batch of fires is planned, recorded in
// one store call and dispatched; or, when a group or the store cannot be
// read, fails as a whole with nothing recorded and nothing sent.
#include "services/scheduler/trigger.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/metrics/testing/samples.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/testing/failing_job_store.h"
#include "services/common/store/testing/failing_run_store.h"
#include "services/common/store/testing/store_call_steps.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/testing/fake_executors.h"
#include "services/scheduler/testing/runs.h"

namespace gnomon::scheduler {
namespace {

using metrics::testing::SampleOf;
using ::testing::ElementsAre;
using testing::FakeExecutors;
using ::testing::IsEmpty;
using ::testing::SizeIs;

constexpr int64_t kNow = 1'800'000'000'000;

class TriggerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(temp_.status().ok()) << temp_.status();
    absl::StatusOr<v1::Group> group = temp_.AddGroup("app", "group-token", kNow);
    ASSERT_TRUE(group.ok()) << group.status();
    group_ = *group;
    membership_.Apply(
        testing::Snapshot({testing::Registered("app", "a:1"), testing::Registered("app", "b:1")}));
  }

  std::shared_ptr<const v1::Job> Job(v1::RouteStrategy strategy) {
    v1::Job j;
    j.set_group_id(group_.id());
    j.mutable_bean()->set_handler("h");
    j.set_route_strategy(strategy);
    absl::StatusOr<v1::Job> job = temp_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    EXPECT_TRUE(job.ok()) << job.status();
    return std::make_shared<const v1::Job>(*job);
  }
  static FireSpec Slot(std::shared_ptr<const v1::Job> job, int64_t slot_ms) {
    FireSpec f;
    f.job = std::move(job);
    f.type = v1::TRIGGER_TYPE_CRON;
    f.scheduled_ms = slot_ms;
    return f;
  }
  std::vector<v1::Run> RunsOf(int64_t job_id) { return testing::RunsOf(temp_.get(), job_id); }

  store::testing::TempStore temp_;
  store::testing::StoreCallHook
      hook_;  // Around the group targets' reads and the recorder's writes.
  store::testing::FailingJobStore jobs_{temp_.get(), &hook_};
  store::testing::FailingRunStore runs_{temp_.get(), &hook_};
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  Membership membership_{"cluster-token", &clock_};
  FakeExecutors executors_;
  DispatchRecorder outcomes_{temp_.get(), &clock_};
  metrics::MetricsRegistry registry_;
  SchedulerMetrics metrics_{registry_, {}, {}};
  GroupTargets targets_{&jobs_, &membership_, &clock_};
  Deliveries deliveries_{{.executors = &executors_,
                          .outcomes = &outcomes_,
                          .targets = &targets_,
                          .clock = &clock_,
                          .partition_count = temp_->partition_count(),
                          .metrics = &metrics_}};
  RunRecorder recorder_{&runs_, &clock_};
  Trigger trigger_{&recorder_, &targets_, &deliveries_, &metrics_};
  v1::Group group_;
};

TEST_F(TriggerTest, ABatchOfFiresIsRecordedInOneStoreCallAndEachRunSentOnce) {
  std::shared_ptr<const v1::Job> routed = Job(v1::ROUTE_STRATEGY_LAST);
  std::shared_ptr<const v1::Job> broadcast = Job(v1::ROUTE_STRATEGY_SHARDING_BROADCAST);
  absl::StatusOr<std::vector<FireOutcome>> out =
      trigger_.Fire({Slot(routed, kNow), Slot(broadcast, kNow), Slot(routed, kNow + 1000)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(hook_.calls("InsertRuns"), 1);
  // One outcome per fire, in order: the broadcast made a run per executor.
  ASSERT_THAT(*out, SizeIs(3));
  EXPECT_THAT((*out)[0].run_ids, SizeIs(1));
  EXPECT_THAT((*out)[1].run_ids, SizeIs(2));
  EXPECT_THAT((*out)[2].run_ids, SizeIs(1));
  // Sent in fire order: the routed job's LAST executor, then a shard to each.
  EXPECT_THAT(executors_.Addresses(), ElementsAre("b:1", "a:1", "b:1", "b:1"));
  EXPECT_EQ(executors_.sent[0].run.run_id(), (*out)[0].run_ids[0]);
  EXPECT_EQ(executors_.sent[3].run.run_id(), (*out)[2].run_ids[0]);
  EXPECT_THAT(RunsOf(broadcast->id()), SizeIs(2));
}

TEST_F(TriggerTest, ARunOfAJobNamingAPoolIsRecordedQueuedAndNotSent) {
  std::shared_ptr<const v1::Job> plain = Job(v1::ROUTE_STRATEGY_FIRST);
  v1::Job pooled_job = *Job(v1::ROUTE_STRATEGY_SHARDING_BROADCAST);
  pooled_job.set_pool("db");
  pooled_job.set_priority(3);
  auto pooled = std::make_shared<const v1::Job>(pooled_job);
  absl::StatusOr<std::vector<FireOutcome>> out =
      trigger_.Fire({Slot(pooled, kNow), Slot(plain, kNow)});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_THAT((*out)[0].run_ids, SizeIs(2));  // A shard for each executor, each queued.
  ASSERT_THAT(executors_.sent, SizeIs(1));
  EXPECT_EQ(executors_.sent[0].run.run_id(), (*out)[1].run_ids[0]);
  for (const v1::Run& r : RunsOf(pooled->id())) {
    EXPECT_EQ(r.status(), v1::RUN_STATUS_QUEUED);
    EXPECT_EQ(r.pool(), "db");
    EXPECT_EQ(r.priority(), 3);
    EXPECT_TRUE(r.has_queued_time());
    EXPECT_TRUE(r.executor_address().empty());
  }
}

TEST_F(TriggerTest, ASlotAlreadyFiredRecordsAndSendsNothingAndTheOthersGoOn) {
  std::shared_ptr<const v1::Job> job = Job(v1::ROUTE_STRATEGY_FIRST);
  ASSERT_TRUE(trigger_.Fire({Slot(job, kNow)}).ok());
  executors_.sent.clear();
  absl::StatusOr<std::vector<FireOutcome>> out =
      trigger_.Fire({Slot(job, kNow), Slot(job, kNow + 1000)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[0].slot_already_fired);
  EXPECT_THAT((*out)[0].run_ids, IsEmpty());
  EXPECT_FALSE((*out)[1].slot_already_fired);
  ASSERT_THAT((*out)[1].run_ids, SizeIs(1));
  ASSERT_THAT(executors_.sent, SizeIs(1));
  EXPECT_EQ(executors_.sent[0].run.run_id(), (*out)[1].run_ids[0]);
  EXPECT_THAT(RunsOf(job->id()), SizeIs(2));
  EXPECT_EQ(SampleOf(registry_,
                     "gnomon_scheduler_fires_total{outcome=\"slot_taken\",trigger_type=\"cron\"}"),
            1);
}

TEST_F(TriggerTest, AGroupThatCannotBeReadFailsTheWholeBatchWithNothingRecorded) {
  std::shared_ptr<const v1::Job> first = Job(v1::ROUTE_STRATEGY_FIRST);
  ASSERT_TRUE(targets_.TargetsOf(Slot(first, kNow)).ok());  // Its group is read (and kept).
  v1::Group other;
  other.set_app_name("other");
  other.set_access_token("t");
  absl::StatusOr<v1::Group> g = temp_->CreateGroup(other, kNow);
  ASSERT_TRUE(g.ok()) << g.status();
  v1::Job j = *first;
  j.set_group_id(g->id());
  auto elsewhere = std::make_shared<const v1::Job>(j);
  hook_.Set(store::testing::FailNext("GetGroup", absl::UnavailableError("store down")));
  absl::StatusOr<std::vector<FireOutcome>> out =
      trigger_.Fire({Slot(first, kNow), Slot(elsewhere, kNow)});
  EXPECT_THAT(out, StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_EQ(hook_.calls("InsertRuns"), 0);
  EXPECT_THAT(RunsOf(first->id()), IsEmpty());
  EXPECT_THAT(executors_.sent, IsEmpty());
}

TEST_F(TriggerTest, AStoreThatCannotRecordFailsTheBatchAndNothingIsSent) {
  std::shared_ptr<const v1::Job> job = Job(v1::ROUTE_STRATEGY_FIRST);
  hook_.Set(store::testing::FailNext("InsertRuns", absl::UnavailableError("store down")));
  absl::StatusOr<std::vector<FireOutcome>> out = trigger_.Fire({Slot(job, kNow)});
  EXPECT_THAT(out, StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(executors_.sent, IsEmpty());
  // The slot was not taken: firing it again records and sends it.
  out = trigger_.Fire({Slot(job, kNow)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].run_ids, SizeIs(1));
  EXPECT_THAT(executors_.sent, SizeIs(1));
}

TEST_F(TriggerTest, AShardTheExecutorsDoNotHaveRecordsNothing) {
  FireSpec f = Slot(Job(v1::ROUTE_STRATEGY_SHARDING_BROADCAST), 0);
  f.type = v1::TRIGGER_TYPE_MANUAL;
  f.shard = 2;  // Two executors: shards 0 and 1.
  absl::StatusOr<std::vector<FireOutcome>> out = trigger_.Fire({f});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT((*out)[0].run_ids, IsEmpty());
  EXPECT_FALSE((*out)[0].slot_already_fired);
  EXPECT_THAT(executors_.sent, IsEmpty());
  EXPECT_THAT(RunsOf(f.job->id()), IsEmpty());
}

TEST_F(TriggerTest, ARunCarriesItsFiresTypeSlotParamsAndLineage) {
  FireSpec f = Slot(Job(v1::ROUTE_STRATEGY_FIRST), kNow - 500);
  f.type = v1::TRIGGER_TYPE_RETRY;
  f.params = "again";
  f.attempt = 2;
  f.first_run_id = 41;
  f.parent_run_id = 40;
  absl::StatusOr<std::vector<FireOutcome>> out = trigger_.Fire({f});
  ASSERT_TRUE(out.ok()) << out.status();
  absl::StatusOr<v1::Run> run = temp_->GetRun((*out)[0].run_ids[0]);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->trigger_type(), v1::TRIGGER_TYPE_RETRY);
  EXPECT_EQ(run->scheduled_time().seconds() * 1000 + run->scheduled_time().nanos() / 1'000'000,
            kNow - 500);
  EXPECT_EQ(run->params(), "again");
  EXPECT_EQ(run->attempt(), 2u);
  EXPECT_EQ(run->first_run_id(), 41);
  EXPECT_EQ(run->parent_run_id(), 40);
  ASSERT_THAT(executors_.sent, SizeIs(1));
  EXPECT_EQ(executors_.sent[0].run.params(), "again");
  EXPECT_EQ(executors_.sent[0].run.attempt(), 2u);
}

}  // namespace
}  // namespace gnomon::scheduler

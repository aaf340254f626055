#include "services/scheduler/run_recorder.h"

#include <memory>
#include <vector>

#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/testing/ownership.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

constexpr int64_t kNow = 1'800'000'000'000;
constexpr int64_t kSlot = kNow + 50;

class RunRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    absl::StatusOr<v1::Group> group = store_.AddGroup("recorder-test", "t", kNow);
    ASSERT_TRUE(group.ok()) << group.status();
    v1::Job j;
    j.set_group_id(group->id());
    j.mutable_bean()->set_handler("invoice");
    j.set_params("default params");
    *j.mutable_schedule()->mutable_fix_rate() = TimeUtil::MillisecondsToDuration(1000);
    absl::StatusOr<v1::Job> job = store_->CreateJob(j, v1::JOB_STATE_RUNNING, kSlot, kNow);
    ASSERT_TRUE(job.ok()) << job.status();
    job_ = std::make_shared<const v1::Job>(*job);
  }

  FireSpec SlotFire() {
    FireSpec f;
    f.job = job_;
    f.type = v1::TRIGGER_TYPE_FIX_RATE;
    f.scheduled_ms = kSlot;
    return f;
  }
  // A plan of `n` routed shards (of n).
  static RoutePlan Shards(uint32_t n) {
    RoutePlan plan;
    for (uint32_t i = 0; i < n; ++i) plan.runs.push_back({i, n, std::nullopt});
    return plan;
  }
  v1::Run Stored(int64_t run_id) {
    absl::StatusOr<v1::Run> r = store_->GetRun(run_id);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : v1::Run();
  }

  store::testing::TempStore store_;
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  RunRecorder recorder_{store_.get(), &clock_};
  std::shared_ptr<const v1::Job> job_;
};

TEST_F(RunRecorderTest, RecordsAPendingRunWithTheFiresSlotTypeHandlerAndJobParams) {
  absl::StatusOr<RecordedFires> r = recorder_.Record({SlotFire()}, {Shards(1)});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->outcomes.size(), 1u);
  ASSERT_EQ(r->outcomes[0].run_ids.size(), 1u);
  EXPECT_FALSE(r->outcomes[0].slot_already_fired);
  ASSERT_EQ(r->runs.size(), 1u);
  const v1::Run stored = Stored(r->outcomes[0].run_ids[0]);
  EXPECT_EQ(stored.id(), r->runs[0].run.id());
  EXPECT_EQ(stored.job_id(), job_->id());
  EXPECT_EQ(stored.group_id(), job_->group_id());
  EXPECT_EQ(stored.status(), v1::RUN_STATUS_PENDING);
  EXPECT_EQ(stored.trigger_type(), v1::TRIGGER_TYPE_FIX_RATE);
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(stored.scheduled_time()), kSlot);
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(stored.trigger_time()), kNow);
  EXPECT_EQ(stored.handler(), "invoice");
  EXPECT_EQ(stored.params(), "default params");
  EXPECT_EQ(stored.shard_total(), 1u);
  EXPECT_EQ(stored.first_run_id(), stored.id());  // A first attempt is its own first run.
}

TEST_F(RunRecorderTest, ARunSaysWhetherItsSuccessHasAFollowupAsItsJobIsWhenRecorded) {
  // Fixed rate, no child jobs: nothing follows a success.
  EXPECT_FALSE(Stored(recorder_.Record({SlotFire()}, {Shards(1)})->runs[0].run.id())
                   .success_has_followups());
  v1::Job with_child = *job_;
  with_child.add_child_job_ids(7);
  v1::Job fix_delay = *job_;
  *fix_delay.mutable_schedule()->mutable_fix_delay() = TimeUtil::MillisecondsToDuration(500);
  for (const v1::Job& job : {with_child, fix_delay}) {
    FireSpec f;
    f.job = std::make_shared<const v1::Job>(job);
    f.type = v1::TRIGGER_TYPE_API;
    absl::StatusOr<RecordedFires> r = recorder_.Record({f}, {Shards(1)});
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(Stored(r->runs[0].run.id()).success_has_followups()) << job.ShortDebugString();
  }
}

TEST_F(RunRecorderTest, AFiresOwnParamsReplaceTheJobsAndAnUnslottedFireHasNoSlot) {
  FireSpec f;
  f.job = job_;
  f.type = v1::TRIGGER_TYPE_MANUAL;
  f.params = "";  // Explicitly empty still replaces the job's.
  absl::StatusOr<RecordedFires> r = recorder_.Record({f}, {Shards(1)});
  ASSERT_TRUE(r.ok()) << r.status();
  const v1::Run stored = Stored(r->runs[0].run.id());
  EXPECT_EQ(stored.params(), "");
  EXPECT_FALSE(stored.has_scheduled_time());
}

// A workflow node's fire, repeated (the driver's replica died between
// storing the node RUNNING and hearing the fire was recorded), records once.
TEST_F(RunRecorderTest, AWorkflowNodesFireIsRecordedWithItsNodeOnce) {
  FireSpec f;
  f.job = job_;
  f.type = v1::TRIGGER_TYPE_PARENT;
  f.workflow_run_id = 12;
  f.workflow_node = "merge";
  f.workflow_attempt = 2;
  absl::StatusOr<RecordedFires> r = recorder_.Record({f}, {Shards(1)});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->runs.size(), 1u);
  const v1::Run stored = Stored(r->runs[0].run.id());
  EXPECT_EQ(stored.workflow_run_id(), 12);
  EXPECT_EQ(stored.workflow_node(), "merge");
  EXPECT_EQ(stored.workflow_attempt(), 2);
  absl::StatusOr<RecordedFires> again = recorder_.Record({f}, {Shards(1)});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->runs.empty());
  EXPECT_TRUE(again->outcomes[0].run_ids.empty());
}

TEST_F(RunRecorderTest, ASlotAlreadyRecordedIsNotRecordedAgainAndItsOutcomeSaysSo) {
  ASSERT_TRUE(recorder_.Record({SlotFire()}, {Shards(1)}).ok());
  absl::StatusOr<RecordedFires> again = recorder_.Record({SlotFire()}, {Shards(1)});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->outcomes[0].slot_already_fired);
  EXPECT_TRUE(again->outcomes[0].run_ids.empty());
  EXPECT_TRUE(again->runs.empty());  // Nothing to dispatch.
}

TEST_F(RunRecorderTest, EveryPlannedShardIsRecordedUnderItsOwnKeyAndPointsBackAtItsPlan) {
  absl::StatusOr<RecordedFires> r = recorder_.Record({SlotFire()}, {Shards(3)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->outcomes[0].run_ids.size(), 3u);
  ASSERT_EQ(r->runs.size(), 3u);
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(r->runs[k].fire, 0u);
    EXPECT_EQ(r->runs[k].planned, k);
    const v1::Run stored = Stored(r->runs[k].run.id());
    EXPECT_EQ(stored.shard_index(), k);
    EXPECT_EQ(stored.shard_total(), 3u);
  }
}

TEST_F(RunRecorderTest, ABatchRecordsEachFireAndSkipsOnlyTheSlotsAlreadyTaken) {
  FireSpec taken = SlotFire();
  ASSERT_TRUE(recorder_.Record({taken}, {Shards(1)}).ok());
  FireSpec next = SlotFire();
  next.scheduled_ms = kSlot + 1000;
  absl::StatusOr<RecordedFires> r = recorder_.Record({taken, next}, {Shards(1), Shards(2)});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->outcomes.size(), 2u);
  EXPECT_TRUE(r->outcomes[0].slot_already_fired);
  EXPECT_FALSE(r->outcomes[1].slot_already_fired);
  EXPECT_EQ(r->outcomes[1].run_ids.size(), 2u);
  ASSERT_EQ(r->runs.size(), 2u);
  EXPECT_EQ(r->runs[0].fire, 1u);
  EXPECT_EQ(r->runs[1].planned, 1u);
}

TEST_F(RunRecorderTest, AFireWhosePlanHasNoRunRecordsNothing) {
  absl::StatusOr<RecordedFires> r = recorder_.Record({SlotFire()}, {RoutePlan{}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->outcomes[0].run_ids.empty());
  EXPECT_FALSE(r->outcomes[0].slot_already_fired);
}

TEST_F(RunRecorderTest, ARetryLinksToItsFirstRunWithItsAttemptAndParent) {
  absl::StatusOr<RecordedFires> first = recorder_.Record({SlotFire()}, {Shards(1)});
  ASSERT_TRUE(first.ok()) << first.status();
  FireSpec retry = SlotFire();
  retry.type = v1::TRIGGER_TYPE_RETRY;
  retry.attempt = 1;
  retry.first_run_id = first->runs[0].run.id();
  retry.parent_run_id = 99;
  absl::StatusOr<RecordedFires> r = recorder_.Record({retry}, {Shards(1)});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->runs.size(), 1u);  // Its own slot key: (job, slot, shard, attempt 1).
  const v1::Run stored = Stored(r->runs[0].run.id());
  EXPECT_EQ(stored.attempt(), 1u);
  EXPECT_EQ(stored.first_run_id(), first->runs[0].run.id());
  EXPECT_EQ(stored.parent_run_id(), 99);
}

TEST_F(RunRecorderTest, RunsCarryTheFencingEpochOfTheirJobsPartition) {
  EXPECT_EQ(recorder_.Record({SlotFire()}, {Shards(1)})->runs[0].run.fence_epoch(),
            0);  // No lease yet.
  auto ownership = testing::Holding({});
  ownership->epochs[testing::PartitionOf(job_->id())] = 4;
  recorder_.set_ownership(ownership);
  FireSpec next = SlotFire();
  next.scheduled_ms = kSlot + 1000;
  absl::StatusOr<RecordedFires> r = recorder_.Record({next}, {Shards(1)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->runs[0].run.fence_epoch(), 4);
  EXPECT_EQ(Stored(r->runs[0].run.id()).fence_epoch(), 4);
}

TEST_F(RunRecorderTest, EveryRunRecordedIsInFlightOnceTheRecordingEnds) {
  InFlightRuns in_flight;
  RunRecorder recorder(store_.get(), &clock_, &in_flight);
  absl::StatusOr<RecordedFires> r = recorder.Record({SlotFire()}, {Shards(2)});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->runs.size(), 2u);
  // Held by id (not by a recording still under way at their trigger time).
  for (const RecordedRun& run : r->runs) EXPECT_TRUE(in_flight.Holds(Stored(run.run.id())));
  v1::Run other = Stored(r->runs[0].run.id());
  other.set_id(other.id() + 100);
  EXPECT_FALSE(in_flight.Holds(other));
}

// kSlot (1'800'000'000'050 ms) is 2027-01-15 08:00:00.050 UTC, 03:00 in New York.
TEST_F(RunRecorderTest, AJobsParamsTemplateRendersAtTheSlotInItsZoneAndGivenParamsStayAsTheyAre) {
  v1::Job j = *job_;
  j.set_params("day=$[yyyy-MM-dd HH:mm:ss.SSS] prev=$[yyyyMMdd-1]");
  j.mutable_schedule()->mutable_cron()->set_expression("* * * * * ?");
  j.mutable_schedule()->mutable_cron()->set_time_zone("America/New_York");
  FireSpec slot = SlotFire();
  slot.job = std::make_shared<const v1::Job>(j);
  FireSpec manual = slot;  // No slot: the trigger time (kNow).
  manual.scheduled_ms = 0;
  manual.type = v1::TRIGGER_TYPE_MANUAL;
  FireSpec retry = slot;  // A retry keeps its first attempt's params as they are.
  retry.params = "day=$[yyyy] as written";
  retry.attempt = 1;
  FireSpec node = manual;  // A workflow node renders at its workflow run's instant.
  node.params_at_ms = kSlot - 86'400'000;
  absl::StatusOr<RecordedFires> r =
      recorder_.Record({slot, manual, retry, node}, {Shards(2), Shards(1), Shards(1), Shards(1)});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->outcomes[0].run_ids.size(), 2u);
  for (int64_t id : r->outcomes[0].run_ids) {  // Every shard the same.
    EXPECT_EQ(Stored(id).params(), "day=2027-01-15 03:00:00.050 prev=20270114");
  }
  EXPECT_EQ(Stored(r->outcomes[1].run_ids[0]).params(),
            "day=2027-01-15 03:00:00.000 prev=20270114");
  EXPECT_EQ(Stored(r->outcomes[2].run_ids[0]).params(), "day=$[yyyy] as written");
  EXPECT_EQ(Stored(r->outcomes[3].run_ids[0]).params(),
            "day=2027-01-14 03:00:00.050 prev=20270113");
}

TEST_F(RunRecorderTest, ParamsSavedBeforeTemplatesWereCheckedThatDoNotParseRunAsWritten) {
  v1::Job j = *job_;
  j.set_params("{\"path\": \"$[0].id\"}");
  FireSpec f = SlotFire();
  f.job = std::make_shared<const v1::Job>(j);
  absl::StatusOr<RecordedFires> r = recorder_.Record({f}, {Shards(1)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Stored(r->outcomes[0].run_ids[0]).params(), "{\"path\": \"$[0].id\"}");
}

}  // namespace
}  // namespace gnomon::scheduler

#include "services/scheduler/deliveries.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/metrics/testing/samples.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/testing/failing_run_store.h"
#include "services/common/store/testing/store_call_steps.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/resender.h"
#include "services/scheduler/testing/fake_executors.h"
#include "services/scheduler/testing/ownership.h"
#include "services/scheduler/trigger.h"

namespace gnomon::scheduler {
namespace {

using metrics::testing::SampleOf;
using testing::Accepted;
using ::testing::ElementsAre;
using testing::FakeExecutors;
using ::testing::HasSubstr;
using testing::Rejected;

constexpr int64_t kNow = 1'800'000'000'000;

class DeliveriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    absl::StatusOr<v1::Group> group = store_.AddGroup("app", "group-token", kNow);
    ASSERT_TRUE(group.ok()) << group.status();
    group_ = *group;
  }

  // Registers these executors of the group's app (and only these), each
  // as process `instance`.
  void Live(const std::vector<std::string>& addresses, const std::string& instance = "") {
    std::vector<v1::ExecutorInfo> executors;
    for (const std::string& a : addresses)
      executors.push_back(testing::Registered("app", a, instance));
    membership_.Apply(testing::Snapshot(executors));
  }
  // As Live, executors of an SDK that answers probes (RunRequest.probe).
  void LiveAnsweringProbes(const std::vector<std::string>& addresses) {
    std::vector<v1::ExecutorInfo> executors;
    for (const std::string& a : addresses) {
      executors.push_back(testing::Registered("app", a));
      executors.back().set_answers_probes(true);
    }
    membership_.Apply(testing::Snapshot(executors));
  }
  std::shared_ptr<const v1::Job> Job(v1::RouteStrategy strategy) {
    v1::Job j;
    j.set_group_id(group_.id());
    j.mutable_bean()->set_handler("invoice");
    j.set_route_strategy(strategy);
    absl::StatusOr<v1::Job> job = store_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    EXPECT_TRUE(job.ok()) << job.status();
    return std::make_shared<const v1::Job>(*job);
  }
  // Records the fire's runs and dispatches them, as the scheduler does.
  std::vector<int64_t> Fire(FireSpec f) {
    absl::StatusOr<std::vector<FireOutcome>> out = trigger_.Fire({std::move(f)});
    EXPECT_TRUE(out.ok()) << out.status();
    return out.ok() ? (*out)[0].run_ids : std::vector<int64_t>{};
  }
  // A fire of `type` for the slot at slot_ms.
  FireSpec Scheduled(v1::RouteStrategy strategy, v1::TriggerType type, int64_t slot_ms) {
    FireSpec f;
    f.job = Job(strategy);
    f.type = type;
    f.scheduled_ms = slot_ms;
    return f;
  }
  std::vector<int64_t> Fire(std::shared_ptr<const v1::Job> job) {
    FireSpec f;
    f.job = std::move(job);
    f.params = "p";
    return Fire(std::move(f));
  }
  // Failed at dispatch: no live executor in the group.
  void ExpectFailedForNoExecutor(const v1::Run& run) {
    EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
    EXPECT_EQ(run.trigger_code(), v1::HANDLE_CODE_NO_EXECUTOR);
    EXPECT_EQ(run.trigger_message(),
              absl::StrCat("no live executor in group ", group_.id(), " (app \"app\")"));
  }
  // The run as stored once every dispatch outcome so far is written.
  v1::Run Stored(int64_t run_id) {
    outcomes_.Stop();
    outcomes_.Run();  // Stopped: writes what is queued and returns.
    absl::StatusOr<v1::Run> r = store_->GetRun(run_id);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : v1::Run();
  }

  // gnomon_scheduler_fires_total of a trigger type and outcome.
  double Fires(const std::string& type, const std::string& outcome) {
    return SampleOf(registry_, absl::StrCat("gnomon_scheduler_fires_total{outcome=\"", outcome,
                                            "\",trigger_type=\"", type, "\"}"))
        .value_or(-1);
  }

  // Membership changes once the next fire's candidates are read, before its
  // runs are sent: while they are being recorded.
  void WhileRecording(std::vector<std::string> live) {
    hook_.Set(store::testing::DoBefore("InsertRuns", [this, live] { Live(live); }));
  }

  store::testing::TempStore store_;
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  Membership membership_{"cluster-token", &clock_};
  FakeExecutors executors_;
  DispatchRecorder outcomes_{store_.get(), &clock_};
  metrics::MetricsRegistry registry_;
  SchedulerMetrics metrics_{registry_, {}, {}};
  GroupTargets targets_{store_.get(), &membership_, &clock_};
  // Not started: each event is handled at once on the thread that brings it.
  Deliveries deliveries_{{.executors = &executors_,
                          .outcomes = &outcomes_,
                          .targets = &targets_,
                          .clock = &clock_,
                          .partition_count = store_->partition_count(),
                          .metrics = &metrics_}};
  // Another replica's: the partition's next holder, which resends and asks
  // about runs whose sender died.
  Deliveries successor_{{.executors = &executors_,
                         .outcomes = &outcomes_,
                         .targets = &targets_,
                         .clock = &clock_,
                         .partition_count = store_->partition_count(),
                         .metrics = &metrics_}};
  Resender resender_{store_.get(), &targets_, &successor_};
  // Runs are recorded through it, so a test can act while they are.
  store::testing::StoreCallHook hook_;
  store::testing::FailingRunStore runs_{store_.get(), &hook_};
  RunRecorder recorder_{&runs_, &clock_};
  Trigger trigger_{&recorder_, &targets_, &deliveries_, &metrics_};
  v1::Group group_;
};

TEST_F(DeliveriesTest, ARoutedRunGoesWhereTheJobsRouterPicksAndRunsOnceAccepted) {
  Live({"a:1", "b:1", "c:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_LAST));
  ASSERT_EQ(ids.size(), 1u);
  ASSERT_THAT(executors_.Addresses(), ElementsAre("c:1"));
  executors_.Answer(Accepted());
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(run.executor_address(), "c:1");
  EXPECT_EQ(run.trigger_code(), 200);
  EXPECT_EQ(run.trigger_message(), "route LAST -> c:1");
  EXPECT_EQ(Fires("api", "dispatched"), 1);
}

TEST_F(DeliveriesTest, LatenessRunsFromTheSlotAndDispatchLatencyFromTheSend) {
  Live({"a:1"});
  Fire(Scheduled(v1::ROUTE_STRATEGY_UNSPECIFIED, v1::TRIGGER_TYPE_CRON, kNow - 40));
  clock_.Advance(absl::Milliseconds(4));
  executors_.Answer(Accepted());
  // A bucket of a histogram series, "name_bucket{labels" given.
  const auto bucket = [&](const std::string& series, const std::string& le) {
    return SampleOf(registry_, series + ",le=\"" + le + "\"}");
  };
  const std::string lateness =
      "gnomon_scheduler_trigger_lateness_seconds_bucket{trigger_type=\"cron\"";
  const std::string latency = "gnomon_scheduler_dispatch_latency_seconds_bucket{route=\"first\"";
  EXPECT_EQ(bucket(lateness, "0.025"), 0);  // 44 ms late.
  EXPECT_EQ(bucket(lateness, "0.05"), 1);
  EXPECT_EQ(bucket(latency, "0.0025"), 0);  // Answered 4 ms after it was sent.
  EXPECT_EQ(bucket(latency, "0.005"), 1);
  EXPECT_EQ(Fires("cron", "dispatched"), 1);
}

TEST_F(DeliveriesTest, ASlotFiredAgainIsCountedAsTakenAndSentNowhere) {
  Live({"a:1"});
  const FireSpec f = Scheduled(v1::ROUTE_STRATEGY_FIRST, v1::TRIGGER_TYPE_FIX_RATE, kNow);
  Fire(f);
  executors_.Answer(Accepted());
  EXPECT_TRUE(Fire(f).empty());
  EXPECT_TRUE(executors_.sent.empty());
  EXPECT_EQ(Fires("fix_rate", "slot_taken"), 1);
  EXPECT_EQ(Fires("fix_rate", "dispatched"), 1);
}

TEST_F(DeliveriesTest, TheRequestCarriesTheRunAndTheJobUnderTheGroupsToken) {
  Live({"a:1"});
  std::shared_ptr<const v1::Job> job = Job(v1::ROUTE_STRATEGY_FIRST);
  auto ownership = testing::Holding({});
  ownership->epochs[testing::PartitionOf(job->id())] = 3;
  recorder_.set_ownership(ownership);
  const std::vector<int64_t> ids = Fire(job);
  ASSERT_EQ(executors_.sent.size(), 1u);
  const FakeExecutors::Sent& s = executors_.sent[0];
  EXPECT_EQ(s.app, "app");
  EXPECT_EQ(s.run.run_id(), ids[0]);
  EXPECT_EQ(s.run.job_id(), job->id());
  EXPECT_EQ(s.run.bean().handler(), "invoice");
  EXPECT_EQ(s.run.params(), "p");
  EXPECT_EQ(s.run.shard_total(), 1u);
  EXPECT_EQ(s.run.fence_epoch(), 3);
  EXPECT_EQ(s.run.fence_partition(), testing::PartitionOf(job->id()));
  EXPECT_TRUE(s.run.has_scheduled_time());  // The trigger instant of an unslotted fire.
  // The receipt the executor echoes with the run's start: the dispatch as
  // the accepted outcome records it.
  v1::DispatchReceipt receipt;
  ASSERT_TRUE(receipt.ParseFromString(s.run.receipt()));
  EXPECT_EQ(receipt.run_id(), ids[0]);
  EXPECT_EQ(receipt.trigger_message(), "route FIRST -> a:1");
  EXPECT_EQ(receipt.dispatch_ms(), kNow);
  EXPECT_EQ(receipt.fence_epoch(), 3);
  clock_.Advance(absl::Milliseconds(5));
  executors_.Answer(Accepted());
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.trigger_message(), receipt.trigger_message());
  EXPECT_EQ(google::protobuf::util::TimeUtil::TimestampToMilliseconds(run.dispatch_time()),
            kNow);  // When it was sent.
}

TEST_F(DeliveriesTest, AnAcceptanceOfARunTheExecutorHadAlreadyAcceptedIsNoted) {
  Live({"a:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  v1::RunAnswer again = Accepted();
  again.mutable_accepted()->set_already_accepted(true);
  executors_.Answer(again);
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(run.trigger_message(), "route FIRST -> a:1 (already accepted)");
  EXPECT_EQ(Fires("api", "dispatched"), 0);  // Counted when it was first accepted.
}

TEST_F(DeliveriesTest, ARefusalForAStaleEpochLeavesTheRunPendingForThePartitionsHolder) {
  Live({"a:1", "b:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  executors_.Answer(Rejected(v1::REJECT_KIND_STALE_EPOCH, "epoch 0 < 2"));
  EXPECT_TRUE(executors_.sent.empty());  // Not another executor's to take either.
  EXPECT_EQ(Stored(ids[0]).status(), v1::RUN_STATUS_PENDING);
  EXPECT_EQ(Fires("api", "fenced"), 1);
}

TEST_F(DeliveriesTest, AResentRunGoesOutAgainUnderItsPartitionsCurrentEpoch) {
  Live({"a:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  executors_.sent.clear();  // Never answered: its sender died.
  auto ownership = testing::Holding({});
  ownership->epochs[testing::PartitionOf(Stored(ids[0]).job_id())] = 7;
  resender_.Resend({Stored(ids[0])}, ownership);
  ASSERT_EQ(executors_.sent.size(), 1u);
  EXPECT_EQ(executors_.sent[0].run.run_id(), ids[0]);  // The same run, not a new one.
  EXPECT_EQ(executors_.sent[0].run.fence_epoch(), 7);
  executors_.Answer(Accepted());
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(run.fence_epoch(), 7);
}

// After a takeover: every live executor of the group is asked about a run
// the predecessor left in doubt, with the new epoch; none holds it, so it
// is sent at once (not after the redispatch grace).
TEST_F(DeliveriesTest, ARunNobodyHoldsIsSentAtOnceAfterEveryExecutorSaidSo) {
  LiveAnsweringProbes({"a:1", "b:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_LAST));
  executors_.sent.clear();  // Its sender died before any answer.
  auto ownership = testing::Holding({});
  ownership->epochs[testing::PartitionOf(Stored(ids[0]).job_id())] = 7;
  std::vector<std::pair<int64_t, InDoubt>> done;
  resender_.Ask({Stored(ids[0])}, ownership,
                [&](int64_t id, InDoubt what) { done.emplace_back(id, what); });
  ASSERT_THAT(executors_.Addresses(), ElementsAre("a:1", "b:1"));
  for (const auto& sent : executors_.sent) {
    EXPECT_TRUE(sent.run.probe());
    EXPECT_EQ(sent.run.fence_epoch(), 7);
  }
  executors_.Answer(Rejected(v1::REJECT_KIND_NOT_HELD, "not held"));
  EXPECT_TRUE(done.empty());  // Until every executor answered.
  executors_.Answer(Rejected(v1::REJECT_KIND_NOT_HELD, "not held"));
  EXPECT_THAT(done, ElementsAre(std::pair{ids[0], InDoubt::kResent}));
  ASSERT_THAT(executors_.Addresses(), ElementsAre("b:1"));  // Sent for real, routed LAST.
  EXPECT_FALSE(executors_.sent[0].run.probe());
  EXPECT_EQ(executors_.sent[0].run.fence_epoch(), 7);
  executors_.Answer(Accepted());
  EXPECT_EQ(Stored(ids[0]).status(), v1::RUN_STATUS_RUNNING);
}

TEST_F(DeliveriesTest, ARunAnExecutorHoldsIsRecordedRunningThereAndNotSent) {
  LiveAnsweringProbes({"a:1", "b:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_LAST));
  executors_.sent.clear();
  std::vector<std::pair<int64_t, InDoubt>> done;
  resender_.Ask({Stored(ids[0])}, testing::Holding({}),
                [&](int64_t id, InDoubt what) { done.emplace_back(id, what); });
  v1::RunAnswer held = Accepted();
  held.mutable_accepted()->set_already_accepted(true);
  executors_.Answer(held);  // a:1 holds it.
  executors_.Answer(Rejected(v1::REJECT_KIND_NOT_HELD, "not held"));
  EXPECT_THAT(done, ElementsAre(std::pair{ids[0], InDoubt::kHeld}));
  EXPECT_TRUE(executors_.sent.empty());
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(run.executor_address(), "a:1");
  EXPECT_THAT(run.trigger_message(), HasSubstr("held by a:1"));
}

// Unknown, left for the grace: an executor that cannot be reached, or one
// registered without answers_probes (it would take the question for a run).
TEST_F(DeliveriesTest, ARunIsLeftPendingWhenSomeExecutorCannotBeAsked) {
  LiveAnsweringProbes({"a:1", "b:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_LAST));
  executors_.sent.clear();
  std::vector<std::pair<int64_t, InDoubt>> done;
  auto record = [&](int64_t id, InDoubt what) { done.emplace_back(id, what); };
  resender_.Ask({Stored(ids[0])}, testing::Holding({}), record);
  executors_.Answer(Rejected(v1::REJECT_KIND_NOT_HELD, "not held"));
  executors_.Answer(absl::UnavailableError("connection refused"));
  EXPECT_THAT(done, ElementsAre(std::pair{ids[0], InDoubt::kUnknown}));
  EXPECT_TRUE(executors_.sent.empty());

  Live({"a:1", "b:1"});  // Older executors: not asked at all.
  resender_.Ask({Stored(ids[0])}, testing::Holding({}), record);
  EXPECT_TRUE(executors_.sent.empty());
  EXPECT_THAT(done, ElementsAre(std::pair{ids[0], InDoubt::kUnknown},
                                std::pair{ids[0], InDoubt::kUnknown}));
  EXPECT_EQ(Stored(ids[0]).status(), v1::RUN_STATUS_PENDING);
}

TEST_F(DeliveriesTest, AResentBroadcastShardGoesBackToItsOwnExecutor) {
  Live({"a:1", "b:1", "c:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_SHARDING_BROADCAST));
  ASSERT_EQ(ids.size(), 3u);
  executors_.sent.clear();
  resender_.Resend({Stored(ids[1])}, testing::Holding({}));
  ASSERT_THAT(executors_.Addresses(), ElementsAre("b:1"));
  EXPECT_EQ(executors_.sent[0].run.shard_index(), 1u);
  EXPECT_EQ(executors_.sent[0].run.shard_total(), 3u);
}

TEST_F(DeliveriesTest, AnExecutorThatCannotTakeTheRunIsSkippedAndNamed) {
  Live({"a:1", "b:1", "c:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  executors_.Answer(Rejected(v1::REJECT_KIND_QUEUE_FULL, "queue full"));
  ASSERT_THAT(executors_.Addresses(), ElementsAre("b:1"));  // FIRST fails over in order.
  executors_.Answer(Accepted());
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(run.trigger_message(), "route FIRST -> b:1 (refused by a:1)");
}

TEST_F(DeliveriesTest, WhenEveryExecutorRefusesTheRunFailsWithTheLastRefusal) {
  Live({"a:1", "b:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  executors_.Answer(Rejected(v1::REJECT_KIND_UNSUPPORTED, "no handler invoice"));
  executors_.Answer(Rejected(v1::REJECT_KIND_SHUTTING_DOWN, "shutting down"));
  EXPECT_TRUE(executors_.sent.empty());
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(run.trigger_code(), v1::HANDLE_CODE_REJECTED);
  EXPECT_EQ(run.trigger_message(), "route FIRST -> b:1: shutting down");
  EXPECT_EQ(run.handle_code(), v1::HANDLE_CODE_REJECTED);
}

TEST_F(DeliveriesTest, ARefusalByTheJobsBlockStrategyIsFinal) {
  Live({"a:1", "b:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  executors_.Answer(Rejected(v1::REJECT_KIND_BLOCK_STRATEGY, "job is running"));
  EXPECT_TRUE(executors_.sent.empty());
  EXPECT_EQ(Stored(ids[0]).status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(Fires("api", "block_discarded"), 1);
}

TEST_F(DeliveriesTest, EachBroadcastShardGoesToItsOwnExecutorAndARefusalThereIsFinal) {
  Live({"c:1", "a:1", "b:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_SHARDING_BROADCAST));
  ASSERT_EQ(ids.size(), 3u);
  ASSERT_THAT(executors_.Addresses(), ElementsAre("a:1", "b:1", "c:1"));
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(executors_.sent[i].run.shard_index(), i);
    EXPECT_EQ(executors_.sent[i].run.shard_total(), 3u);
  }
  executors_.Answer(Accepted());
  executors_.Answer(Rejected(v1::REJECT_KIND_QUEUE_FULL, "queue full"));  // Not sent on to a or c.
  executors_.Answer(Accepted());
  EXPECT_TRUE(executors_.sent.empty());
  EXPECT_EQ(Stored(ids[0]).trigger_message(), "route SHARDING_BROADCAST -> a:1");
  EXPECT_EQ(Stored(ids[1]).status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(Stored(ids[2]).status(), v1::RUN_STATUS_RUNNING);
}

TEST_F(DeliveriesTest, ARunWithNoExecutorToGoToFailsAsHavingNone) {
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_SHARDING_BROADCAST));
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_TRUE(executors_.sent.empty());
  const v1::Run run = Stored(ids[0]);
  ExpectFailedForNoExecutor(run);
  EXPECT_EQ(Fires("api", "no_executor"), 1);
  EXPECT_EQ(SampleOf(registry_, "gnomon_runs_total{handle_code=\"no_executor\",status=\"failed\"}"),
            1);
}

TEST_F(DeliveriesTest, AnUnreachableExecutorFailsTheRunWithTheReason) {
  Live({"a:1", "b:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  executors_.Answer(absl::UnavailableError("connection refused"));
  EXPECT_TRUE(executors_.sent.empty());  // Unreachable is not a refusal: not sent on.
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(run.trigger_code(), v1::HANDLE_CODE_FAILURE);
  EXPECT_THAT(run.trigger_message(),
              HasSubstr("route FIRST -> a:1: UNAVAILABLE: connection refused"));
  EXPECT_EQ(Fires("api", "failed"), 1);
}

TEST_F(DeliveriesTest, AFiresExplicitAddressesReplaceTheGroupsExecutors) {
  Live({"a:1"});
  FireSpec f;
  f.job = Job(v1::ROUTE_STRATEGY_FIRST);
  f.addresses = {"z:1", "y:1"};
  Fire(std::move(f));
  EXPECT_THAT(executors_.Addresses(), ElementsAre("y:1"));  // In address order.
}

// A trigger's explicit addresses name executors: only the group's own may be
// named (a run never goes to another group's executor).
TEST_F(DeliveriesTest, ExplicitAddressesMustBeTheGroupsExecutors) {
  Live({"a:1", "b:1"});
  EXPECT_TRUE(targets_.CheckMembers(group_.id(), {"b:1", "a:1"}).ok());
  absl::Status outsider = targets_.CheckMembers(group_.id(), {"a:1", "evil.example:443"});
  EXPECT_THAT(
      outsider,
      StatusIs(
          absl::StatusCode::kFailedPrecondition,
          "executor_addresses[1]: \"evil.example:443\" is not an online executor of the group"));
  group_.mutable_manual()->add_addresses("m1:1");
  ASSERT_TRUE(store_->UpdateGroup(group_, kNow).ok());
  targets_.ForgetGroup(group_.id());
  EXPECT_TRUE(targets_.CheckMembers(group_.id(), {"m1:1"}).ok());
  // In a manual group, registered executors of the app are not members.
  EXPECT_THAT(targets_.CheckMembers(group_.id(), {"a:1"}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST_F(DeliveriesTest, AManualGroupsRunsGoToItsListedAddresses) {
  group_.mutable_manual()->add_addresses("m2:1");
  group_.mutable_manual()->add_addresses("m1:1");
  ASSERT_TRUE(store_->UpdateGroup(group_, kNow).ok());
  Live({"a:1"});  // Registered executors of the app do not count.
  Fire(Job(v1::ROUTE_STRATEGY_SHARDING_BROADCAST));
  EXPECT_THAT(executors_.Addresses(), ElementsAre("m1:1", "m2:1"));
}

TEST_F(DeliveriesTest, AGroupIsReadAgainOnceForgottenOrAfterAFewSeconds) {
  Live({"a:1"});
  std::shared_ptr<const v1::Job> job = Job(v1::ROUTE_STRATEGY_FIRST);
  Fire(job);
  group_.mutable_manual()->add_addresses("m1:1");
  ASSERT_TRUE(store_->UpdateGroup(group_, kNow).ok());
  Fire(job);  // The cached group: not manual yet.
  targets_.ForgetGroup(group_.id());
  Fire(job);
  group_.mutable_manual()->set_addresses(0, "m2:1");
  ASSERT_TRUE(store_->UpdateGroup(group_, kNow).ok());
  clock_.Advance(absl::Seconds(6));
  Fire(job);
  EXPECT_THAT(executors_.Addresses(), ElementsAre("a:1", "a:1", "m1:1", "m2:1"));
}

TEST_F(DeliveriesTest, FailoverProbesAskTheExecutorsOfTheJobsGroup) {
  Live({"a:1", "b:1"});
  executors_.alive = {"b:1"};
  Fire(Job(v1::ROUTE_STRATEGY_FAILOVER));
  EXPECT_THAT(executors_.beats, ElementsAre("a:1 app", "b:1 app"));
  EXPECT_THAT(executors_.Addresses(), ElementsAre("b:1"));
}

v1::RunAnswer AlreadyAccepted() {
  v1::RunAnswer a = Accepted();
  a.mutable_accepted()->set_already_accepted(true);
  return a;
}

TEST_F(DeliveriesTest, ARunWhoseAnswerWasLostIsAskedForAgainNotFailed) {
  // The executor accepted it, then the stream broke before the answer came:
  // failing it would let a retry run it a second time.
  Live({"a:1", "b:1"}, "instance-1");
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  executors_.Answer(absl::UnknownError("dispatch stream to executor a:1 broke before it answered"));
  ASSERT_THAT(executors_.Addresses(), ElementsAre("a:1"));  // The same executor, the same run.
  EXPECT_EQ(executors_.sent[0].run.run_id(), ids[0]);
  executors_.Answer(AlreadyAccepted());
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_THAT(run.trigger_message(), HasSubstr("(already accepted) (answer lost; asked again 1x)"));
}

TEST_F(DeliveriesTest, ARunWhoseAnswerWasLostOnARestartedExecutorIsLostNotAskedAgain) {
  // A new process at the address does not hold the old one's runs: asking it
  // would run the run again.
  Live({"a:1"}, "instance-1");
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  Live({"a:1"}, "instance-2");
  executors_.Answer(absl::UnknownError("link to executor a:1 closed before it answered"));
  EXPECT_TRUE(executors_.sent.empty());
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(run.handle_code(), v1::HANDLE_CODE_EXECUTOR_LOST);  // Provisional; its retry waits.
  EXPECT_THAT(run.handle_message(), HasSubstr("executor lost: a:1 left or restarted"));
}

TEST_F(DeliveriesTest, AnExecutorThatNeverAnswersIsAskedFiveTimesThenDeclaredLost) {
  Live({"a:1"}, "instance-1");
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  for (int i = 0; i < 6; ++i) {
    ASSERT_THAT(executors_.Addresses(), ElementsAre("a:1")) << "ask " << i;
    executors_.Answer(absl::UnknownError("executor a:1 did not answer within 10s"));
  }
  EXPECT_TRUE(executors_.sent.empty());
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.handle_code(), v1::HANDLE_CODE_EXECUTOR_LOST);
  EXPECT_THAT(run.handle_message(), HasSubstr("never answered when asked again"));
}

// A lease lost mid-fire: the old holder's dispatch carries the old epoch.
TEST_F(DeliveriesTest, AnOldHoldersRunIsRefusedForItsEpochAndSentOnceByTheNewHolder) {
  Live({"a:1"});
  std::shared_ptr<const v1::Job> job = Job(v1::ROUTE_STRATEGY_FIRST);
  const int p = testing::PartitionOf(job->id());
  auto old_holder = testing::Holding({});
  old_holder->epochs[p] = 1;
  recorder_.set_ownership(old_holder);
  const std::vector<int64_t> ids = Fire(job);
  ASSERT_EQ(executors_.sent.size(), 1u);
  EXPECT_EQ(executors_.sent[0].run.fence_epoch(), 1);
  // Meanwhile another replica took the partition (epoch 2), and the executor
  // has seen that epoch: it refuses the old holder's send.
  executors_.Answer(Rejected(v1::REJECT_KIND_STALE_EPOCH, "epoch 1 < 2"));
  EXPECT_EQ(Stored(ids[0]).status(), v1::RUN_STATUS_PENDING);
  auto new_holder = testing::Holding({p}, kNow + 600'000);
  new_holder->epochs[p] = 2;
  Redispatcher redispatcher(store_.get(), &resender_, &clock_, {});
  redispatcher.SetOwnership(new_holder);
  EXPECT_EQ(redispatcher.Scan(), 0);  // Within the grace the old holder may still be sending it.
  clock_.Advance(absl::Seconds(3));
  EXPECT_EQ(redispatcher.Scan(), 1);
  ASSERT_EQ(executors_.sent.size(), 1u);
  EXPECT_EQ(executors_.sent[0].run.run_id(), ids[0]);  // The same run: the slot fires once.
  EXPECT_EQ(executors_.sent[0].run.fence_epoch(), 2);
  executors_.Answer(Accepted());
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(run.fence_epoch(), 2);
  clock_.Advance(absl::Seconds(30));
  EXPECT_EQ(redispatcher.Scan(), 0);  // Sent once: nothing left to resend.
  EXPECT_TRUE(executors_.sent.empty());
}

// Membership churn between route planning and dispatch: executors the fire
// was planned over leave before its runs are sent.

TEST_F(DeliveriesTest, ARoutedRunIsNotSentToAnExecutorThatLeftAfterItsFireWasPlanned) {
  Live({"a:1", "b:1"});
  WhileRecording({"b:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  ASSERT_THAT(executors_.Addresses(), ElementsAre("b:1"));
  executors_.Answer(Accepted());
  EXPECT_EQ(Stored(ids[0]).trigger_message(), "route FIRST -> b:1");
}

TEST_F(DeliveriesTest, ARunWhoseExecutorsAllLeftBeforeItWasSentFailsAsHavingNone) {
  Live({"a:1"});
  WhileRecording({});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_ROUND));
  ASSERT_EQ(ids.size(), 1u);
  EXPECT_TRUE(executors_.sent.empty());
  const v1::Run run = Stored(ids[0]);
  ExpectFailedForNoExecutor(run);
}

TEST_F(DeliveriesTest, ABroadcastShardWhoseExecutorLeftFailsAndIsNeverSentToAnother) {
  // Shard 1 is b's: a, running shard 0, must not run it too.
  Live({"a:1", "b:1"});
  WhileRecording({"a:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_SHARDING_BROADCAST));
  ASSERT_EQ(ids.size(), 2u);
  ASSERT_THAT(executors_.Addresses(), ElementsAre("a:1"));
  EXPECT_EQ(executors_.sent[0].run.shard_index(), 0u);
  const v1::Run lost = Stored(ids[1]);
  EXPECT_EQ(lost.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(lost.trigger_code(), v1::HANDLE_CODE_NO_EXECUTOR);
  EXPECT_EQ(lost.trigger_message(), "executor b:1 of shard 1 of 2 left before the run was sent");
}

TEST_F(DeliveriesTest, AnExecutorThatLeftBeforeARefusedRunIsRoutedAgainIsNotPicked) {
  Live({"a:1", "b:1", "c:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  ASSERT_THAT(executors_.Addresses(), ElementsAre("a:1"));
  Live({"a:1", "c:1"});  // b left while a was deciding.
  executors_.Answer(Rejected(v1::REJECT_KIND_QUEUE_FULL, "queue full"));
  ASSERT_THAT(executors_.Addresses(), ElementsAre("c:1"));
  executors_.Answer(Accepted());
  EXPECT_EQ(Stored(ids[0]).trigger_message(), "route FIRST -> c:1 (refused by a:1)");
}

TEST_F(DeliveriesTest, ARefusedRunWithNoOtherExecutorLeftFailsWithTheRefusal) {
  Live({"a:1", "b:1"});
  const std::vector<int64_t> ids = Fire(Job(v1::ROUTE_STRATEGY_FIRST));
  Live({"a:1"});
  executors_.Answer(Rejected(v1::REJECT_KIND_QUEUE_FULL, "queue full"));
  EXPECT_TRUE(executors_.sent.empty());
  const v1::Run run = Stored(ids[0]);
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(run.trigger_message(), "route FIRST -> a:1: queue full");
}

}  // namespace
}  // namespace gnomon::scheduler

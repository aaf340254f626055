#include "services/scheduler/followups.h"

#include <memory>
#include <vector>

#include "gtest/gtest.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/store/testing/temp_store.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

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
  int64_t RunningRun() {
    v1::Run r;
    r.set_job_id(job_.id());
    r.set_group_id(job_.group_id());
    r.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
    *r.mutable_trigger_time() = TimeUtil::MillisecondsToTimestamp(kNow);
    r.set_handler("h");
    r.set_shard_total(1);
    r.set_status(v1::RUN_STATUS_PENDING);
    std::vector<v1::Run> runs = {r};
    absl::StatusOr<std::vector<store::RunInsertOutcome>> in = store_->InsertRuns(runs);
    EXPECT_TRUE(in.ok()) << in.status();
    const int64_t id = (*in)[0].run_id;
    store::DispatchUpdate u;
    u.run_id = id;
    u.executor_address = "10.0.0.1:1";
    u.dispatch_ms = kNow;
    EXPECT_TRUE(store_->RecordDispatches({u}).ok());
    return id;
  }
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
  v1::ReportItem result;
  result.set_sequence(1);
  result.mutable_result()->set_run_id(id);
  result.mutable_result()->set_handle_code(v1::HANDLE_CODE_SUCCESS);
  *result.mutable_result()->mutable_end_time() = TimeUtil::MillisecondsToTimestamp(kNow + 5000);
  ASSERT_TRUE(store_->ApplyReports({result}, job_.group_id()).ok());
  TickAt(absl::Seconds(31));
  TickAt(absl::Seconds(60));
  EXPECT_EQ(Retries(), 0u);
  absl::StatusOr<v1::Run> run = store_->GetRun(id);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->status(), v1::RUN_STATUS_SUCCEEDED);
}

}  // namespace
}  // namespace gnomon::scheduler

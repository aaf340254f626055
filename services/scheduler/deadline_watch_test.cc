#include "services/scheduler/deadline_watch.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/run_recorder.h"
#include "services/scheduler/testing/runs.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

constexpr int64_t kNow = 1'800'000'000'000;

// Keeps every alarm it is given.
class RecordingChannel final : public alarm::AlarmChannel {
 public:
  std::string name() const override { return "recording"; }
  bool Wants(const v1::Job&) const override { return true; }
  absl::Status Send(const alarm::Alarm& a) override {
    absl::MutexLock l(&mu_);
    sent_.push_back(a);
    return absl::OkStatus();
  }
  std::vector<alarm::Alarm> sent() const {
    absl::MutexLock l(&mu_);
    return sent_;
  }

 private:
  mutable absl::Mutex mu_;
  std::vector<alarm::Alarm> sent_ ABSL_GUARDED_BY(mu_);
};

class DeadlineWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    absl::StatusOr<v1::Group> g = store_.AddGroup("deadlines", "token", kNow);
    ASSERT_TRUE(g.ok()) << g.status();
    group_id_ = g->id();
    sender_.Start();
  }
  void TearDown() override { sender_.Stop(); }

  // A job whose fires must be done 60 s after their slot, retried `retries` times.
  std::shared_ptr<const v1::Job> Job(uint32_t retries) {
    v1::Job j;
    j.set_group_id(group_id_);
    j.mutable_bean()->set_handler("h");
    j.mutable_retry()->set_max_retries(retries);
    *j.mutable_deadline() = TimeUtil::SecondsToDuration(60);
    absl::StatusOr<v1::Job> job = store_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    EXPECT_TRUE(job.ok()) << job.status();
    return std::make_shared<const v1::Job>(job.ok() ? *job : v1::Job());
  }
  // Records the fire of `job`'s slot at `slot_ms` (or, with `first`, the
  // retry `attempt` of that first attempt); returns the run.
  v1::Run Fire(const std::shared_ptr<const v1::Job>& job, int64_t slot_ms,
               const v1::Run* first = nullptr, uint32_t attempt = 0) {
    FireSpec f;
    f.job = job;
    f.type = first ? v1::TRIGGER_TYPE_RETRY : v1::TRIGGER_TYPE_FIX_RATE;
    f.scheduled_ms = slot_ms;
    if (first != nullptr) {
      f.attempt = attempt;
      f.first_run_id = first->id();
      f.deadline_ms = TimeUtil::TimestampToMilliseconds(first->deadline_time());
    }
    RoutePlan plan;
    plan.runs.push_back({0, 1, std::nullopt});
    absl::StatusOr<RecordedFires> r = recorder_.Record({f}, {plan});
    EXPECT_TRUE(r.ok()) << r.status();
    absl::StatusOr<v1::Run> run = store_->GetRun(r->outcomes[0].run_ids[0]);
    EXPECT_TRUE(run.ok()) << run.status();
    return run.ok() ? *run : v1::Run();
  }
  void End(const v1::Run& run, v1::HandleCode code, int64_t end_ms) {
    ASSERT_TRUE(store_->ApplyReports({testing::Result(run.id(), code, end_ms)}, group_id_).ok());
  }
  // Passes at `ms`, then the alarms delivered so far.
  std::vector<alarm::Alarm> TickAt(int64_t ms, int raised_before) {
    clock_.AdvanceTo(absl::FromUnixMillis(ms));
    watch_.Tick();
    sender_.AwaitCounters(
        [&](const alarm::AlarmCounters& c) { return c.finished >= raised_before; },
        absl::Seconds(10));
    return channel_->sent();
  }

  store::testing::TempStore store_;
  int64_t group_id_ = 0;
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  RunRecorder recorder_{store_.get(), &clock_};
  RecordingChannel* channel_ = new RecordingChannel();
  alarm::AlarmSender sender_{[this] {
                               std::vector<std::unique_ptr<alarm::AlarmChannel>> c;
                               c.emplace_back(channel_);
                               return c;
                             }(),
                             {},
                             [](int64_t, const std::string&) {}};
  DeadlineWatch watch_{store_.get(), store_.get(), &clock_, {}, &sender_, nullptr};
};

TEST_F(DeadlineWatchTest, AFireNotDoneByItsDeadlineRaisesOneAlarmAndKillsNothing) {
  const v1::Run run = Fire(Job(0), kNow);
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(run.deadline_time()), kNow + 60'000);
  EXPECT_TRUE(TickAt(kNow + 59'999, 0).empty());
  std::vector<alarm::Alarm> sent = TickAt(kNow + 60'000, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].run.id(), run.id());
  EXPECT_EQ(sent[0].reason,
            "not done by its deadline 2027-01-15T08:01:00.000Z (1m after its slot): attempt 1 "
            "not started");
  // Judged once: later passes raise nothing more, and the run is as it was.
  EXPECT_EQ(TickAt(kNow + 120'000, 1).size(), 1u);
  absl::StatusOr<v1::Run> still = store_->GetRun(run.id());
  ASSERT_TRUE(still.ok());
  EXPECT_EQ(still->status(), v1::RUN_STATUS_PENDING);
}

TEST_F(DeadlineWatchTest, ASuccessByTheDeadlineIsQuietAndOneAfterItIsLate) {
  auto job = Job(0);
  const v1::Run on_time = Fire(job, kNow);
  const v1::Run late = Fire(job, kNow + 1000);
  End(on_time, v1::HANDLE_CODE_SUCCESS, kNow + 30'000);
  End(late, v1::HANDLE_CODE_SUCCESS, kNow + 90'000);
  std::vector<alarm::Alarm> sent = TickAt(kNow + 120'000, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].run.id(), late.id());
  EXPECT_NE(sent[0].reason.find("attempt 1 ended late, at 2027-01-15T08:01:30.000Z"),
            std::string::npos)
      << sent[0].reason;
}

TEST_F(DeadlineWatchTest, AFailureIsDoneOnlyOnceItsRetriesAreSpent) {
  auto retried = Job(1);
  // Failed, its retry succeeded by the deadline: done.
  const v1::Run a = Fire(retried, kNow);
  End(a, v1::HANDLE_CODE_FAILURE, kNow + 10'000);
  const v1::Run a1 = Fire(retried, kNow, &a, 1);
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(a1.deadline_time()), kNow + 60'000);
  End(a1, v1::HANDLE_CODE_SUCCESS, kNow + 20'000);
  // Failed, its retry not yet fired at the deadline: not done.
  const v1::Run b = Fire(retried, kNow + 1000);
  End(b, v1::HANDLE_CODE_FAILURE, kNow + 10'000);
  // A job without retries whose run failed by the deadline: done (failed
  // for good; its failure has its own alarm).
  const v1::Run c = Fire(Job(0), kNow);
  End(c, v1::HANDLE_CODE_FAILURE, kNow + 10'000);

  std::vector<alarm::Alarm> sent = TickAt(kNow + 70'000, 1);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].run.id(), b.id());
  EXPECT_NE(sent[0].reason.find("attempt 1 failed, a retry was due"), std::string::npos)
      << sent[0].reason;
}

}  // namespace
}  // namespace gnomon::scheduler

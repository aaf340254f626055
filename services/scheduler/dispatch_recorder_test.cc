// DispatchRecorder over a real (SQLite) store on a simulated clock: an
// outcome added is written with the next batch; a deferred one only once its
// delay has passed, or at Stop; nothing deferred is lost.
#include "services/scheduler/dispatch_recorder.h"

#include <string_view>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/failing_run_store.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/testing/runs.h"

namespace gnomon::scheduler {
namespace {

constexpr int64_t kNow = 1'800'000'000'000;
constexpr absl::Duration kPatience = absl::Seconds(60);  // Bounds a broken test only.

class DispatchRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(temp_.status().ok()) << temp_.status();
    absl::StatusOr<v1::Group> group = temp_.AddGroup("app", "group-token", kNow);
    ASSERT_TRUE(group.ok()) << group.status();
    v1::Job j;
    j.set_group_id(group->id());
    j.mutable_bean()->set_handler("h");
    absl::StatusOr<v1::Job> job = temp_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    ASSERT_TRUE(job.ok()) << job.status();
    job_ = *job;
    hook_.Set([this](std::string_view call, store::testing::CallPhase phase) {
      if (call == "RecordDispatches" && phase == store::testing::CallPhase::kAfter) {
        absl::MutexLock l(&mu_);
        ++recorded_;
      }
      return absl::OkStatus();
    });
  }
  // Waits until `n` RecordDispatches calls have committed.
  bool AwaitRecorded(int n) {
    absl::MutexLock l(&mu_);
    auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return recorded_ >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&done), kPatience);
  }
  static store::DispatchUpdate Accepted(int64_t run) {
    store::DispatchUpdate u;
    u.run_id = run;
    u.status = v1::RUN_STATUS_RUNNING;
    u.trigger_message = "route FIRST -> a";
    u.executor_address = "a";
    u.dispatch_ms = kNow;
    return u;
  }
  v1::RunStatus StatusOf(int64_t run) {
    absl::StatusOr<v1::Run> r = temp_->GetRun(run);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? r->status() : v1::RUN_STATUS_UNSPECIFIED;
  }

  absl::Mutex mu_;
  int recorded_ ABSL_GUARDED_BY(mu_) = 0;
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  store::testing::TempStore temp_;
  store::testing::StoreCallHook hook_;
  store::testing::FailingRunStore runs_{temp_.get(), &hook_};
  v1::Job job_;
};

TEST_F(DispatchRecorderTest, ADeferredOutcomeIsWrittenOnceItsDelayHasPassed) {
  DispatchRecorder recorder(&runs_, &clock_, nullptr, absl::Seconds(1));
  std::thread t([&] { recorder.Run(); });
  const int64_t added = testing::PendingRun(&runs_, job_, kNow);
  const int64_t deferred = testing::PendingRun(&runs_, job_, kNow);
  recorder.Defer(Accepted(deferred));
  recorder.Add(Accepted(added));
  ASSERT_TRUE(AwaitRecorded(1));
  EXPECT_EQ(StatusOf(added), v1::RUN_STATUS_RUNNING);
  // The deferrer waits for the deferred outcome's time on the clock.
  clock_.BlockUntilWaiters(1);
  EXPECT_EQ(StatusOf(deferred), v1::RUN_STATUS_PENDING);
  EXPECT_EQ(hook_.calls("RecordDispatches"), 1);
  clock_.Advance(absl::Milliseconds(999));
  clock_.BlockUntilWaiters(1);
  EXPECT_EQ(StatusOf(deferred), v1::RUN_STATUS_PENDING);
  clock_.Advance(absl::Milliseconds(1));
  ASSERT_TRUE(AwaitRecorded(2));
  EXPECT_EQ(StatusOf(deferred), v1::RUN_STATUS_RUNNING);
  recorder.Stop();
  t.join();
}

TEST_F(DispatchRecorderTest, StopWritesWhatIsDeferred) {
  DispatchRecorder recorder(&runs_, &clock_, nullptr, absl::Hours(1));
  std::thread t([&] { recorder.Run(); });
  const int64_t run = testing::PendingRun(&runs_, job_, kNow);
  recorder.Defer(Accepted(run));
  recorder.Stop();
  t.join();
  EXPECT_EQ(StatusOf(run), v1::RUN_STATUS_RUNNING);
}

TEST_F(DispatchRecorderTest, WithoutADelayDeferIsAdd) {
  DispatchRecorder recorder(&runs_, &clock_);
  std::thread t([&] { recorder.Run(); });
  const int64_t run = testing::PendingRun(&runs_, job_, kNow);
  recorder.Defer(Accepted(run));
  ASSERT_TRUE(AwaitRecorded(1));
  EXPECT_EQ(StatusOf(run), v1::RUN_STATUS_RUNNING);
  recorder.Stop();
  t.join();
}

}  // namespace
}  // namespace gnomon::scheduler

// A job paused after N consecutive failures, on gnomond and the sample
// executor: a fixed-rate job whose handler always fails, with
// pause_after_failures 3, ends PAUSED with the reason in its state, fires
// nothing more by its schedule, and one StartJob resumes it.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/support/jobs_e2e.h"

namespace gnomon {
namespace {

class PauseE2E : public testing::JobsE2E {};

TEST_F(PauseE2E, AJobFailingThreeTimesInARowIsPausedWithItsReasonAndResumedByOneCall) {
  ASSERT_TRUE(StartWithExecutor("pausing"));

  v1::CreateJobRequest create;
  v1::Job& j = *create.mutable_job();
  j.set_group_id(group_.id());
  j.set_name("always-fails");
  j.mutable_bean()->set_handler("fail");
  *j.mutable_schedule()->mutable_fix_rate() =
      google::protobuf::util::TimeUtil::MillisecondsToDuration(300);
  j.set_pause_after_failures(3);
  create.set_start(true);
  v1::Job job;
  grpc::Status s = admin_->CreateJob(Ctx().get(), create, &job);
  ASSERT_TRUE(s.ok()) << s.error_message();

  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (job.state() != v1::JOB_STATE_PAUSED && absl::Now() < deadline) {
    cluster_.PollInterval(absl::Milliseconds(100));
    job = Get(job.id());
  }
  ASSERT_EQ(job.state(), v1::JOB_STATE_PAUSED) << job.ShortDebugString() << cluster_.Output();
  EXPECT_NE(job.pause_reason().find("paused after 3 consecutive failures; the last, run "),
            std::string::npos)
      << job.pause_reason();
  EXPECT_NE(job.pause_reason().find("failed on purpose"), std::string::npos) << job.pause_reason();
  EXPECT_EQ(job.consecutive_failures(), 3u);
  EXPECT_FALSE(job.has_next_fire_time());

  // Paused: its schedule fires nothing more (a run already fired when it
  // was paused may still end; then nothing).
  cluster_.PollInterval(absl::Seconds(1));
  const size_t runs = Runs(job.id()).size();
  EXPECT_GE(runs, 3u);
  cluster_.PollInterval(absl::Seconds(2));
  EXPECT_EQ(Runs(job.id()).size(), runs) << "a paused job fired";
  EXPECT_EQ(Get(job.id()).state(), v1::JOB_STATE_PAUSED);

  // One call resumes it: running, reason and count cleared, firing again.
  v1::StartJobRequest start;
  start.set_job_id(job.id());
  v1::Job resumed;
  s = admin_->StartJob(Ctx().get(), start, &resumed);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(resumed.state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(resumed.pause_reason(), "");
  EXPECT_EQ(resumed.consecutive_failures(), 0u);
  const absl::Time again = absl::Now() + absl::Seconds(30);
  while (Runs(job.id()).size() == runs && absl::Now() < again) {
    cluster_.PollInterval(absl::Milliseconds(100));
  }
  EXPECT_GT(Runs(job.id()).size(), runs) << "the resumed job did not fire";
}

}  // namespace
}  // namespace gnomon

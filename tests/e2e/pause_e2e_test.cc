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
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

class PauseE2E : public ::testing::Test {
 protected:
  std::unique_ptr<grpc::ClientContext> Ctx() const { return cluster_.AdminContext(); }
  v1::Job Get(int64_t id) {
    v1::GetJobRequest g;
    g.set_job_id(id);
    v1::Job job;
    EXPECT_TRUE(admin_->GetJob(Ctx().get(), g, &job).ok());
    return job;
  }
  int Runs(int64_t job_id) {
    v1::ListRunsRequest l;
    l.set_job_id(job_id);
    l.set_page_size(1000);
    v1::ListRunsResponse out;
    EXPECT_TRUE(admin_->ListRuns(Ctx().get(), l, &out).ok());
    return out.runs_size();
  }

  testing::GnomonCluster cluster_{[] {
    std::vector<std::string> flags;
    if (auto url = testing::FreshMysqlUrl()) flags.push_back("--store=" + *url);
    return flags;
  }()};
  std::unique_ptr<v1::JobAdmin::Stub> admin_;
};

TEST_F(PauseE2E, AJobFailingThreeTimesInARowIsPausedWithItsReasonAndResumedByOneCall) {
  ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
  admin_ = v1::JobAdmin::NewStub(
      grpc::CreateChannel(cluster_.address(), grpc::InsecureChannelCredentials()));
  v1::Group group;
  ASSERT_TRUE(cluster_.CtlJson({"group", "create", "pausing"}, &group));
  auto executor = cluster_.StartExecutor("pausing", group.access_token());
  ASSERT_TRUE(cluster_.AwaitOnline(group.id(), 1)) << executor->Output();

  v1::CreateJobRequest create;
  v1::Job& j = *create.mutable_job();
  j.set_group_id(group.id());
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
  const int runs = Runs(job.id());
  EXPECT_GE(runs, 3);
  cluster_.PollInterval(absl::Seconds(2));
  EXPECT_EQ(Runs(job.id()), runs) << "a paused job fired";
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
  while (Runs(job.id()) == runs && absl::Now() < again) {
    cluster_.PollInterval(absl::Milliseconds(100));
  }
  EXPECT_GT(Runs(job.id()), runs) << "the resumed job did not fire";
}

}  // namespace
}  // namespace gnomon

// Limited runs and expiry on gnomond and the sample executor: a fixed-rate
// job with max_fires 3 fires exactly 3 slots, then stays RUNNING with no
// next fire and 0 left; one StartJob gives it 3 more; a job with an
// end_time fires no slot at or after it, and starting it once no slot is
// left is refused saying so.
#include <memory>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/support/jobs_e2e.h"

namespace gnomon {
namespace {

using google::protobuf::util::TimeUtil;

class LimitedRunsE2E : public testing::JobsE2E {
 protected:
  // Waits until `job_id` has no next fire (or 60 s).
  v1::Job AwaitSpent(int64_t job_id) {
    v1::Job job = Get(job_id);
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while (job.has_next_fire_time() && absl::Now() < deadline) {
      cluster_.PollInterval(absl::Milliseconds(100));
      job = Get(job_id);
    }
    return job;
  }
};

TEST_F(LimitedRunsE2E, MaxFiresFiresThatManySlotsAndAnEndTimeEndsTheSchedule) {
  ASSERT_TRUE(StartWithExecutor("limited"));

  v1::CreateJobRequest create;
  v1::Job& j = *create.mutable_job();
  j.set_group_id(group_.id());
  j.set_name("three-times");
  j.mutable_bean()->set_handler("noop");
  *j.mutable_schedule()->mutable_fix_rate() = TimeUtil::MillisecondsToDuration(300);
  j.set_max_fires(3);
  create.set_start(true);
  v1::Job job;
  grpc::Status s = admin_->CreateJob(Ctx().get(), create, &job);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(job.fires_left(), 3u);

  job = AwaitSpent(job.id());
  ASSERT_FALSE(job.has_next_fire_time()) << job.ShortDebugString();
  EXPECT_EQ(job.state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(job.fires_left(), 0u);
  cluster_.PollInterval(absl::Seconds(1));  // Nothing more fires meanwhile.
  EXPECT_EQ(Runs(job.id()).size(), 3u);

  // Started again: all 3 again.
  v1::StartJobRequest start;
  start.set_job_id(job.id());
  v1::Job restarted;
  s = admin_->StartJob(Ctx().get(), start, &restarted);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(restarted.fires_left(), 3u);
  EXPECT_TRUE(restarted.has_next_fire_time());
  job = AwaitSpent(job.id());
  cluster_.PollInterval(absl::Seconds(1));
  EXPECT_EQ(Runs(job.id()).size(), 6u);

  // An end time 2 s away: slots until then, none at or after it.
  v1::CreateJobRequest ending = create;
  ending.mutable_job()->set_name("until-soon");
  ending.mutable_job()->set_max_fires(0);
  const int64_t end_ms = absl::ToUnixMillis(absl::Now()) + 2000;
  *ending.mutable_job()->mutable_end_time() = TimeUtil::MillisecondsToTimestamp(end_ms);
  v1::Job until;
  s = admin_->CreateJob(Ctx().get(), ending, &until);
  ASSERT_TRUE(s.ok()) << s.error_message();
  until = AwaitSpent(until.id());
  ASSERT_FALSE(until.has_next_fire_time());
  const std::vector<v1::Run> runs = Runs(until.id());
  EXPECT_GE(runs.size(), 1u);
  for (const v1::Run& r : runs) {
    EXPECT_LT(TimeUtil::TimestampToMilliseconds(r.scheduled_time()), end_ms)
        << r.ShortDebugString();
  }
  v1::StopJobRequest stop;
  stop.set_job_id(until.id());
  ASSERT_TRUE(admin_->StopJob(Ctx().get(), stop, &until).ok());
  start.set_job_id(until.id());
  s = admin_->StartJob(Ctx().get(), start, &restarted);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(s.error_message().find("has no slot left before its end_time"), std::string::npos)
      << s.error_message();

  // max_fires needs slots to count.
  v1::CreateJobRequest manual = create;
  manual.mutable_job()->set_name("manual");
  manual.mutable_job()->clear_schedule();
  manual.set_start(false);
  s = admin_->CreateJob(Ctx().get(), manual, &until);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("job.max_fires: needs a cron or fixed-rate schedule"),
            std::string::npos)
      << s.error_message();
}

}  // namespace
}  // namespace gnomon

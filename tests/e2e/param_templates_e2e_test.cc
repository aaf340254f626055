// Parameter templates on gnomond and the sample executor: a job's $[...]
// params are rendered at each run's slot in the job's zone and stored on
// the run, so its retry (seconds later) gets the same text; a backfilled
// slot renders at that slot, not now; a trigger's params render at the
// trigger; PreviewSchedule and `gnomonctl cron next --params` show what the
// next runs get; a bad template is refused naming the character.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/support/jobs_e2e.h"

namespace gnomon {
namespace {

using google::protobuf::util::TimeUtil;

constexpr char kTemplate[] =
    "slot=$[yyyy-MM-dd HH:mm:ss] prev=$[yyyyMMdd-1] hour_ago=$[HH:mm-1/24]";
constexpr char kZone[] = "Asia/Kolkata";  // UTC+05:30: a zone whose date differs from UTC's.

// kTemplate for `slot` in kZone, written with absl's formatter.
std::string Expected(absl::Time slot) {
  absl::TimeZone zone;
  EXPECT_TRUE(absl::LoadTimeZone(kZone, &zone));
  const absl::CivilDay prev = absl::ToCivilDay(slot, zone) - 1;
  return absl::StrCat("slot=", absl::FormatTime("%Y-%m-%d %H:%M:%S", slot, zone),
                      absl::StrFormat(" prev=%04d%02d%02d", prev.year(), prev.month(), prev.day()),
                      " hour_ago=", absl::FormatTime("%H:%M", slot - absl::Hours(1), zone));
}

class ParamTemplatesE2E : public testing::JobsE2E {};

TEST_F(ParamTemplatesE2E, EachRunGetsItsSlotsRenderingAndItsRetryTheSameText) {
  ASSERT_TRUE(StartWithExecutor("templated"));

  // A bad template is refused, naming the field and the character.
  v1::CreateJobRequest bad;
  bad.mutable_job()->set_group_id(group_.id());
  bad.mutable_job()->mutable_bean()->set_handler("fail");
  bad.mutable_job()->set_params("day=$[yyyyMMQdd]");
  v1::Job ignored;
  grpc::Status s = admin_->CreateJob(Ctx().get(), bad, &ignored);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("job.params: at character 13: unknown pattern letter 'Q'"),
            std::string::npos)
      << s.error_message();

  // Every second in Kolkata; the handler fails, and its retry comes 1.5 s later.
  v1::CreateJobRequest create;
  v1::Job& j = *create.mutable_job();
  j.set_group_id(group_.id());
  j.set_name("templated");
  j.mutable_bean()->set_handler("fail");
  j.mutable_schedule()->mutable_cron()->set_expression("* * * * * ?");
  j.mutable_schedule()->mutable_cron()->set_time_zone(kZone);
  j.mutable_retry()->set_max_retries(1);
  *j.mutable_retry()->mutable_initial_delay() = TimeUtil::MillisecondsToDuration(1500);
  j.set_params(kTemplate);
  create.set_start(true);
  v1::Job job;
  s = admin_->CreateJob(Ctx().get(), create, &job);
  ASSERT_TRUE(s.ok()) << s.error_message();

  std::vector<v1::Run> runs;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  auto has_retry = [&] {
    for (const v1::Run& r : runs) {
      if (r.attempt() == 1) return true;
    }
    return false;
  };
  while (!has_retry() && absl::Now() < deadline) {
    cluster_.PollInterval(absl::Milliseconds(200));
    runs = Runs(job.id());
  }
  v1::StopJobRequest stop;
  stop.set_job_id(job.id());
  ASSERT_TRUE(admin_->StopJob(Ctx().get(), stop, &ignored).ok());
  ASSERT_TRUE(has_retry()) << cluster_.Output();
  runs = Runs(job.id());
  int retries = 0;
  for (const v1::Run& r : runs) {
    ASSERT_TRUE(r.has_scheduled_time()) << r.ShortDebugString();
    const absl::Time slot =
        absl::FromUnixMillis(TimeUtil::TimestampToMilliseconds(r.scheduled_time()));
    EXPECT_EQ(r.params(), Expected(slot)) << r.ShortDebugString();
    if (r.attempt() != 1) continue;
    ++retries;
    for (const v1::Run& first : runs) {
      if (first.id() == r.first_run_id()) EXPECT_EQ(r.params(), first.params());
    }
    // Recorded well after its slot: a rendering at that time would differ.
    EXPECT_GE(TimeUtil::TimestampToMilliseconds(r.trigger_time()) -
                  TimeUtil::TimestampToMilliseconds(r.scheduled_time()),
              1000);
  }
  EXPECT_GE(retries, 1);

  // A backfilled slot an hour ago renders at that slot.
  const int64_t from_ms = (absl::ToUnixMillis(absl::Now()) / 1000 - 3600) * 1000;
  v1::BackfillRequest backfill;
  backfill.set_job_id(job.id());
  *backfill.mutable_start_time() = TimeUtil::MillisecondsToTimestamp(from_ms);
  *backfill.mutable_end_time() = TimeUtil::MillisecondsToTimestamp(from_ms + 1000);
  v1::BackfillResponse filled;
  s = admin_->Backfill(Ctx().get(), backfill, &filled);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(filled.run_ids_size(), 1);
  v1::GetRunRequest get;
  get.set_run_id(filled.run_ids(0));
  v1::GetRunResponse got;
  ASSERT_TRUE(admin_->GetRun(Ctx().get(), get, &got).ok());
  EXPECT_EQ(got.run().params(), Expected(absl::FromUnixMillis(from_ms)));

  // A trigger's params are a template too, rendered at the trigger.
  v1::TriggerJobRequest trigger;
  trigger.set_job_id(job.id());
  trigger.set_params("year=$[yyyy] literal=$$[0]");
  v1::TriggerJobResponse triggered;
  s = admin_->TriggerJob(Ctx().get(), trigger, &triggered);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_GE(triggered.run_ids_size(), 1);
  get.set_run_id(triggered.run_ids(0));
  ASSERT_TRUE(admin_->GetRun(Ctx().get(), get, &got).ok());
  absl::TimeZone zone;
  ASSERT_TRUE(absl::LoadTimeZone(kZone, &zone));
  const absl::Time at =
      absl::FromUnixMillis(TimeUtil::TimestampToMilliseconds(got.run().trigger_time()));
  EXPECT_EQ(got.run().params(),
            absl::StrCat("year=", absl::FormatTime("%Y", at, zone), " literal=$[0]"));

  // PreviewSchedule shows what the next runs will get.
  v1::PreviewScheduleRequest preview;
  *preview.mutable_schedule() = j.schedule();
  preview.set_count(3);
  preview.set_params(kTemplate);
  v1::PreviewScheduleResponse next;
  s = admin_->PreviewSchedule(Ctx().get(), preview, &next);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(next.fire_times_size(), 3);
  ASSERT_EQ(next.params_size(), 3);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(
        next.params(i),
        Expected(absl::FromUnixMillis(TimeUtil::TimestampToMilliseconds(next.fire_times(i)))));
  }

  // And gnomonctl, offline, the same.
  testing::CommandResult cli =
      cluster_.Ctl({"cron", "next", "0 30 1 * * ?", "--tz", kZone, "--from", "2026-11-28T00:00:00Z",
                    "-n", "2", "--params", "day=$[yyyyMMdd-1]"});
  EXPECT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_NE(cli.out.find("day=20261128"), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("day=20261129"), std::string::npos) << cli.out;
}

}  // namespace
}  // namespace gnomon

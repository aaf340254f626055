// Calendars and jitter on gnomond and the sample executor: a job every
// second naming a calendar that excludes today and tomorrow (UTC) fires
// nothing, its next fire the day after; PreviewSchedule skips the same
// days; editing the calendar to allow today moves the next fire at once
// and the job runs; a calendar a job names cannot be deleted, nor can a job
// name one that does not exist; a job with jitter starts each run later
// than its slot by up to the jitter, the run keeping its slot.
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/civil_time.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/support/jobs_e2e.h"

namespace gnomon {
namespace {

using google::protobuf::util::TimeUtil;

class CalendarsE2E : public testing::JobsE2E {
 protected:
  // The runs of `job_id` once there are at least `n` (or 30 s).
  std::vector<v1::Run> AwaitRuns(int64_t job_id, size_t n) {
    std::vector<v1::Run> runs = Runs(job_id);
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (runs.size() < n && absl::Now() < deadline) {
      cluster_.PollInterval(absl::Milliseconds(100));
      runs = Runs(job_id);
    }
    return runs;
  }
  v1::Job EverySecond(const std::string& name) {
    v1::Job j;
    j.set_group_id(group_.id());
    j.set_name(name);
    j.mutable_bean()->set_handler("noop");
    j.mutable_schedule()->mutable_cron()->set_expression("* * * * * ?");
    return j;
  }
};

std::string Day(absl::Time t) { return absl::FormatTime("%Y-%m-%d", t, absl::UTCTimeZone()); }

TEST_F(CalendarsE2E, ACalendarSkipsItsDaysAndAnEditTakesEffectAtOnce) {
  ASSERT_TRUE(StartWithExecutor("calendars"));
  const absl::Time now = absl::Now();
  const std::string today = Day(now), tomorrow = Day(now + absl::Hours(24));
  const absl::Time after = absl::FromCivil(
      absl::CivilDay(absl::ToCivilDay(now, absl::UTCTimeZone())) + 2, absl::UTCTimeZone());

  v1::CreateCalendarRequest create_cal;
  v1::Calendar& cal = *create_cal.mutable_calendar();
  cal.set_name("closed-now");
  cal.add_excluded_dates(today);
  cal.add_excluded_dates(tomorrow);
  v1::Calendar created_cal;
  grpc::Status s = admin_->CreateCalendar(Ctx().get(), create_cal, &created_cal);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_GT(created_cal.id(), 0);

  // A schedule naming no such calendar is refused, naming the field.
  v1::CreateJobRequest create;
  *create.mutable_job() = EverySecond("skipping");
  create.mutable_job()->mutable_schedule()->set_calendar("no-such");
  create.set_start(true);
  v1::Job job;
  s = admin_->CreateJob(Ctx().get(), create, &job);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(s.error_message().find("job.schedule.calendar"), std::string::npos)
      << s.error_message();

  create.mutable_job()->mutable_schedule()->set_calendar("closed-now");
  s = admin_->CreateJob(Ctx().get(), create, &job);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(job.next_fire_time()), absl::ToUnixMillis(after))
      << job.ShortDebugString();

  v1::PreviewScheduleRequest preview;
  *preview.mutable_schedule() = job.schedule();
  preview.set_count(2);
  v1::PreviewScheduleResponse next;
  s = admin_->PreviewSchedule(Ctx().get(), preview, &next);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_EQ(next.fire_times_size(), 2);
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(next.fire_times(0)), absl::ToUnixMillis(after));

  cluster_.PollInterval(absl::Seconds(2));
  EXPECT_TRUE(Runs(job.id()).empty());

  // A calendar a job names stays.
  v1::DeleteCalendarRequest del;
  del.set_name("closed-now");
  v1::DeleteCalendarResponse deleted;
  s = admin_->DeleteCalendar(Ctx().get(), del, &deleted);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(s.error_message().find(absl::StrCat("job ", job.id())), std::string::npos)
      << s.error_message();

  // Today allowed again: the job's next fire moves from the day after
  // tomorrow to now, and it runs.
  v1::UpdateCalendarRequest update;
  *update.mutable_calendar() = created_cal;
  update.mutable_calendar()->clear_excluded_dates();
  update.mutable_calendar()->add_excluded_dates("01-01");
  v1::Calendar updated;
  s = admin_->UpdateCalendar(Ctx().get(), update, &updated);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_LT(TimeUtil::TimestampToMilliseconds(Get(job.id()).next_fire_time()),
            absl::ToUnixMillis(absl::Now() + absl::Seconds(5)));
  const std::vector<v1::Run> runs = AwaitRuns(job.id(), 2);
  ASSERT_GE(runs.size(), 2u);
  for (const v1::Run& r : runs) {
    EXPECT_EQ(Day(absl::FromUnixMillis(TimeUtil::TimestampToMilliseconds(r.scheduled_time()))),
              today);
  }

  // Stopped, then deleted with the calendar: nothing names it any more.
  v1::DeleteJobRequest delete_job;
  delete_job.set_job_id(job.id());
  v1::DeleteJobResponse job_deleted;
  ASSERT_TRUE(admin_->DeleteJob(Ctx().get(), delete_job, &job_deleted).ok());
  s = admin_->DeleteCalendar(Ctx().get(), del, &deleted);
  EXPECT_TRUE(s.ok()) << s.error_message();
  v1::ListCalendarsResponse list;
  ASSERT_TRUE(admin_->ListCalendars(Ctx().get(), v1::ListCalendarsRequest(), &list).ok());
  EXPECT_EQ(list.calendars_size(), 0);
}

TEST_F(CalendarsE2E, JitterStartsEachRunLaterThanItsSlot) {
  ASSERT_TRUE(StartWithExecutor("jitter"));
  v1::CreateJobRequest create;
  *create.mutable_job() = EverySecond("jittery");
  create.mutable_job()->mutable_schedule()->mutable_cron()->set_expression("*/2 * * * * ?");
  *create.mutable_job()->mutable_schedule()->mutable_jitter() =
      TimeUtil::MillisecondsToDuration(1500);
  create.set_start(true);
  v1::Job job;
  grpc::Status s = admin_->CreateJob(Ctx().get(), create, &job);
  ASSERT_TRUE(s.ok()) << s.error_message();
  const std::vector<v1::Run> runs = AwaitRuns(job.id(), 6);
  ASSERT_GE(runs.size(), 6u);
  std::set<int64_t> delays;
  for (const v1::Run& r : runs) {
    const int64_t slot = TimeUtil::TimestampToMilliseconds(r.scheduled_time());
    EXPECT_EQ(slot % 2000, 0) << "the run keeps its slot";
    if (!r.has_dispatch_time()) continue;
    const int64_t delay = TimeUtil::TimestampToMilliseconds(r.dispatch_time()) - slot;
    // Up to the jitter, plus what sending takes on a busy machine.
    EXPECT_GE(delay, 0);
    EXPECT_LT(delay, 1500 + 1000) << r.ShortDebugString();
    delays.insert(delay / 100);
  }
  EXPECT_GE(delays.size(), 3u) << "each slot its own delay";
}

}  // namespace
}  // namespace gnomon

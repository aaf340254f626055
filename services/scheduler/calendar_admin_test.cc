// CalendarAdmin over a real SQLite store and a schedule loop on a simulated
// clock: calendars checked field by field, and an edit that narrows or
// widens a calendar moving the next fire of the running jobs naming it,
// on this replica at once and on another at its next pre-read.
#include "services/scheduler/calendar_admin.h"

#include <memory>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/next_fire.h"
#include "services/scheduler/run_recorder.h"
#include "services/scheduler/testing/recording_sink.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;
using ::testing::HasSubstr;

constexpr int64_t kStart = 1'800'000'000'000;  // 2027-01-15 08:00:00 UTC, a Friday.
constexpr int64_t kMinute = 60'000;

class CalendarAdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    absl::StatusOr<v1::Group> g = store_.AddGroup("cal", "token", kStart);
    ASSERT_TRUE(g.ok()) << g.status();
    group_id_ = g->id();
  }
  v1::Calendar Office(const char* window) {
    v1::Calendar c;
    c.set_name("office");
    c.add_windows(window);
    return c;
  }
  // A running job every minute naming `calendar`, started now.
  int64_t MinuteJob(const std::string& calendar) {
    v1::Job j;
    j.set_group_id(group_id_);
    j.mutable_bean()->set_handler("h");
    j.mutable_schedule()->mutable_cron()->set_expression("0 * * * * ?");
    j.mutable_schedule()->set_calendar(calendar);
    absl::StatusOr<std::shared_ptr<const schedule::Calendar>> cal =
        CalendarOf(store_.get(), j.schedule(), "job.schedule.calendar");
    EXPECT_TRUE(cal.ok()) << cal.status();
    const int64_t first = FirstSlot(j, clock_.NowMillis(), {nullptr, cal->get()});
    absl::StatusOr<v1::Job> created =
        store_->CreateJob(j, v1::JOB_STATE_RUNNING, first, clock_.NowMillis());
    EXPECT_TRUE(created.ok()) << created.status();
    return created->id();
  }
  // Ticks `loop` at each minute up to `until_ms`.
  void RunUntil(ScheduleLoop& loop, int64_t until_ms) {
    while (clock_.NowMillis() < until_ms) {
      clock_.AdvanceTo(std::min(loop.Tick(), absl::FromUnixMillis(until_ms)));
    }
    loop.Tick();
  }
  // The minutes after 08:00 of the job's fired slots, oldest first.
  std::vector<int64_t> FiredMinutes(int64_t job_id) {
    store::RunFilter f;
    f.job_id = job_id;
    f.limit = 1000;
    absl::StatusOr<std::vector<v1::Run>> runs = store_->ListRuns(f);
    EXPECT_TRUE(runs.ok()) << runs.status();
    std::vector<int64_t> out;
    for (auto it = runs->rbegin(); it != runs->rend(); ++it) {
      out.push_back((TimeUtil::TimestampToMilliseconds(it->scheduled_time()) - kStart) / kMinute);
    }
    return out;
  }
  int64_t Cursor(int64_t job_id) {
    absl::StatusOr<v1::Job> j = store_->GetJob(job_id);
    EXPECT_TRUE(j.ok());
    return TimeUtil::TimestampToMilliseconds(j->next_fire_time());
  }

  store::testing::TempStore store_;
  int64_t group_id_ = 0;
  SimulatedClock clock_{absl::FromUnixMillis(kStart)};
  RunRecorder recorder_{store_.get(), &clock_};
  testing::RecordingSink sink_{&recorder_};
};

TEST_F(CalendarAdminTest, AnEditMovesTheNextFiresOfItsJobsOnEveryReplica) {
  ScheduleLoop loop(store_.get(), &sink_, &clock_, {}, nullptr, store_.get());
  // The admin of another replica: it cannot tell this loop; the store does.
  CalendarAdmin elsewhere(store_.get(), &clock_, nullptr);
  ASSERT_TRUE(elsewhere.Create(Office("08:00-17:00")).ok());
  const int64_t id = MinuteJob("office");
  RunUntil(loop, kStart + 3 * kMinute + 500);
  EXPECT_EQ(FiredMinutes(id), (std::vector<int64_t>{1, 2, 3}));

  // Narrowed to end at 08:05: the job is armed again on the new rules, and
  // its next fire is tomorrow's 08:00.
  ASSERT_TRUE(elsewhere.Update(Office("08:00-08:05")).ok());
  RunUntil(loop, kStart + 10 * kMinute + 500);
  EXPECT_EQ(FiredMinutes(id), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(Cursor(id), kStart + 24 * 60 * kMinute);

  // Widened again through this replica's admin: fires from the next minute.
  CalendarAdmin here(store_.get(), &clock_, &loop);
  ASSERT_TRUE(here.Update(Office("08:00-17:00")).ok());
  EXPECT_EQ(Cursor(id), kStart + 11 * kMinute);
  RunUntil(loop, kStart + 13 * kMinute + 500);
  EXPECT_EQ(FiredMinutes(id), (std::vector<int64_t>{1, 2, 3, 4, 11, 12, 13}));
  loop.Stop();

  // Named by a job: not deleted.
  absl::Status deleted = here.Delete("office");
  EXPECT_EQ(deleted.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(deleted.message(), HasSubstr(absl::StrCat("job ", id)));
}

TEST_F(CalendarAdminTest, BadCalendarsAreRefusedByField) {
  CalendarAdmin admin(store_.get(), &clock_, nullptr);
  v1::Calendar c = Office("09:00-17:00");
  c.add_excluded_dates("2027-02-30");
  EXPECT_THAT(admin.Create(c).status().message(), HasSubstr("calendar.excluded_dates[0]"));
  c.clear_excluded_dates();
  c.set_description("tab\tok, bell\a not");
  EXPECT_THAT(admin.Create(c).status().message(), HasSubstr("calendar.description"));
  c.clear_description();
  ASSERT_TRUE(admin.Create(c).ok());
  EXPECT_EQ(admin.Create(c).status().code(), absl::StatusCode::kAlreadyExists);
  v1::Calendar missing = c;
  missing.set_name("nope");
  EXPECT_EQ(admin.Update(missing).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(admin.Get("bad/name").status().code(), absl::StatusCode::kInvalidArgument);
  v1::Schedule s;
  s.set_calendar("nope");
  absl::StatusOr<std::shared_ptr<const schedule::Calendar>> none =
      CalendarOf(store_.get(), s, "job.schedule.calendar");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(none.status().message(), HasSubstr("job.schedule.calendar"));
}

}  // namespace
}  // namespace gnomon::scheduler

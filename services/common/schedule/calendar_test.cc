#include "services/common/schedule/calendar.h"

#include <string>
#include <vector>

#include "absl/time/civil_time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/schedule/schedule.h"

namespace gnomon::schedule {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

absl::TimeZone Zone(const char* name) {
  absl::TimeZone z;
  EXPECT_TRUE(absl::LoadTimeZone(name, &z)) << name;
  return z;
}

// A business-day calendar in Shanghai: Monday to Friday, the National Day
// holidays off, Saturday 2026-10-10 a working day, New Year off every year.
v1::Calendar Workdays() {
  v1::Calendar c;
  c.set_name("cn-workdays");
  c.set_time_zone("Asia/Shanghai");
  for (v1::Weekday d : {v1::MONDAY, v1::TUESDAY, v1::WEDNESDAY, v1::THURSDAY, v1::FRIDAY}) {
    c.add_weekdays(d);
  }
  for (const char* d : {"2026-10-01", "2026-10-02", "2026-10-05", "2026-10-06", "2026-10-07",
                        "2026-10-08", "01-01"}) {
    c.add_excluded_dates(d);
  }
  c.add_included_dates("2026-10-10");
  return c;
}

absl::Time At(absl::CivilSecond cs, const char* zone) { return absl::FromCivil(cs, Zone(zone)); }

Calendar Compiled(const v1::Calendar& c) {
  absl::StatusOr<Calendar> cal = Calendar::Compile(c);
  EXPECT_TRUE(cal.ok()) << cal.status();
  return *std::move(cal);
}

TEST(CalendarTest, DatesFollowWeekdaysHolidaysAndWorkingWeekends) {
  const Calendar cal = Compiled(Workdays());
  const absl::TimeZone utc = absl::UTCTimeZone();
  auto allows = [&](int y, int m, int d) {
    return cal.Allows(At(absl::CivilSecond(y, m, d, 12, 0, 0), "Asia/Shanghai"), utc);
  };
  EXPECT_TRUE(allows(2026, 9, 30));   // A Wednesday.
  EXPECT_FALSE(allows(2026, 10, 1));  // National Day.
  EXPECT_FALSE(allows(2026, 10, 3));  // A Saturday.
  EXPECT_TRUE(allows(2026, 10, 10));  // A working Saturday.
  EXPECT_FALSE(allows(2027, 1, 1));   // New Year, every year.
  EXPECT_FALSE(allows(2030, 1, 1));
  EXPECT_TRUE(allows(2027, 1, 4));  // A Monday.
  // Read in Shanghai, not UTC: 2026-10-08 23:30 UTC is Friday the 9th there.
  EXPECT_TRUE(cal.Allows(absl::FromCivil(absl::CivilSecond(2026, 10, 8, 23, 30, 0), utc), utc));
}

TEST(CalendarTest, NextAllowedJumpsOverTheHolidays) {
  const Calendar cal = Compiled(Workdays());
  const absl::Time wed_night = At(absl::CivilSecond(2026, 9, 30, 23, 0, 0), "Asia/Shanghai");
  EXPECT_EQ(cal.NextAllowed(wed_night, absl::UTCTimeZone()), wed_night);
  const absl::Time holiday = At(absl::CivilSecond(2026, 10, 1, 9, 0, 0), "Asia/Shanghai");
  // Next: Friday 2026-10-09 at midnight in Shanghai.
  EXPECT_EQ(cal.NextAllowed(holiday, absl::UTCTimeZone()),
            At(absl::CivilSecond(2026, 10, 9, 0, 0, 0), "Asia/Shanghai"));
}

TEST(CalendarTest, WindowsAllowTimesOfDayAndMayWrapMidnight) {
  v1::Calendar c;
  c.set_name("nights");
  c.add_windows("22:00-06:00");
  c.add_windows("12:00-12:30");
  const Calendar cal = Compiled(c);
  const absl::TimeZone utc = absl::UTCTimeZone();
  auto at = [&](int h, int m) {
    return absl::FromCivil(absl::CivilSecond(2026, 3, 2, h, m, 0), utc);
  };
  EXPECT_TRUE(cal.Allows(at(23, 0), utc));
  EXPECT_TRUE(cal.Allows(at(5, 59), utc));
  EXPECT_FALSE(cal.Allows(at(6, 0), utc));  // The end is exclusive.
  EXPECT_TRUE(cal.Allows(at(12, 15), utc));
  EXPECT_FALSE(cal.Allows(at(12, 30), utc));
  EXPECT_EQ(cal.NextAllowed(at(7, 0), utc), at(12, 0));
  EXPECT_EQ(cal.NextAllowed(at(13, 0), utc), at(22, 0));
  EXPECT_EQ(cal.NextAllowed(at(12, 10), utc), at(12, 10));
}

TEST(CalendarTest, WithoutItsOwnZoneItReadsTheSchedulesZone) {
  v1::Calendar c;
  c.set_name("mornings");
  c.add_windows("09:00-10:00");
  const Calendar cal = Compiled(c);
  const absl::Time t = At(absl::CivilSecond(2026, 6, 1, 9, 30, 0), "America/New_York");
  EXPECT_TRUE(cal.Allows(t, Zone("America/New_York")));
  EXPECT_FALSE(cal.Allows(t, absl::UTCTimeZone()));  // 13:30 in UTC.
}

TEST(CalendarTest, AWindowStartingInASkippedHourOpensAtTheTransition) {
  // Berlin skips 02:00-03:00 on 2026-03-29.
  v1::Calendar c;
  c.set_name("two-thirty");
  c.set_time_zone("Europe/Berlin");
  c.add_windows("02:30-04:00");
  const Calendar cal = Compiled(c);
  const absl::Time before = At(absl::CivilSecond(2026, 3, 29, 1, 0, 0), "Europe/Berlin");
  EXPECT_EQ(cal.NextAllowed(before, absl::UTCTimeZone()),
            At(absl::CivilSecond(2026, 3, 29, 3, 0, 0), "Europe/Berlin"));
}

TEST(CalendarTest, SkipDisallowedFindsTheNextCronSlotItAllows) {
  // Every day at 09:00 Shanghai time, on business days only.
  v1::CronSchedule cron;
  cron.set_expression("0 0 9 * * ?");
  cron.set_time_zone("Asia/Shanghai");
  absl::StatusOr<CompiledCron> compiled = CompileCron(cron);
  ASSERT_TRUE(compiled.ok());
  const Calendar cal = Compiled(Workdays());
  auto next = [&](absl::Time t) { return compiled->NextAfter(t - absl::Nanoseconds(1)); };
  const absl::Time oct1 = At(absl::CivilSecond(2026, 10, 1, 9, 0, 0), "Asia/Shanghai");
  std::optional<absl::Time> slot = SkipDisallowed(cal, compiled->zone, oct1, next);
  ASSERT_TRUE(slot.has_value());
  EXPECT_EQ(*slot, At(absl::CivilSecond(2026, 10, 9, 9, 0, 0), "Asia/Shanghai"));
}

TEST(CalendarTest, ACalendarAllowingNothingNeverFires) {
  v1::Calendar c;
  c.set_name("never");
  c.add_weekdays(v1::MONDAY);
  c.add_windows("09:00-09:01");
  const Calendar cal = Compiled(c);
  // Every hour at half past: never inside 09:00-09:01.
  auto next = [](absl::Time t) -> std::optional<absl::Time> {
    const absl::CivilHour h(absl::ToCivilSecond(t - absl::Nanoseconds(1), absl::UTCTimeZone()));
    absl::Time half = absl::FromCivil(absl::CivilSecond(h) + 1800, absl::UTCTimeZone());
    return half >= t ? half : half + absl::Hours(1);
  };
  EXPECT_FALSE(SkipDisallowed(cal, absl::UTCTimeZone(), absl::UnixEpoch(), next).has_value());
}

TEST(CalendarTest, PreviewSkipsWhatTheCalendarDoesNotAllow) {
  v1::Schedule s;
  s.mutable_cron()->set_expression("0 0 9 * * ?");
  s.mutable_cron()->set_time_zone("Asia/Shanghai");
  s.set_calendar("cn-workdays");
  const Calendar cal = Compiled(Workdays());
  absl::StatusOr<std::vector<absl::Time>> times =
      Preview(s, At(absl::CivilSecond(2026, 9, 30, 10, 0, 0), "Asia/Shanghai"), 3, &cal);
  ASSERT_TRUE(times.ok()) << times.status();
  EXPECT_THAT(*times, ElementsAre(At(absl::CivilSecond(2026, 10, 9, 9, 0, 0), "Asia/Shanghai"),
                                  At(absl::CivilSecond(2026, 10, 10, 9, 0, 0), "Asia/Shanghai"),
                                  At(absl::CivilSecond(2026, 10, 12, 9, 0, 0), "Asia/Shanghai")));
  // Without the compiled calendar, no guess.
  EXPECT_THAT(Preview(s, absl::UnixEpoch(), 3).status().message(), HasSubstr("schedule.calendar"));
}

TEST(CalendarTest, PreviewOfAFixedRateKeepsItsGridAndAFixedDelayWaits) {
  v1::Calendar c;
  c.set_name("office");
  c.add_windows("09:00-17:00");
  const Calendar cal = Compiled(c);
  const absl::Time from =
      absl::FromCivil(absl::CivilSecond(2026, 1, 5, 16, 0, 0), absl::UTCTimeZone());
  v1::Schedule rate;
  rate.mutable_fix_rate()->set_seconds(25 * 60);
  rate.set_calendar("office");
  absl::StatusOr<std::vector<absl::Time>> r = Preview(rate, from, 3, &cal);
  ASSERT_TRUE(r.ok()) << r.status();
  // 16:25, 16:50, then the first grid point after 09:00 the next day
  // (from + 41 periods = 09:05).
  EXPECT_THAT(*r, ElementsAre(from + absl::Minutes(25), from + absl::Minutes(50),
                              from + 41 * absl::Minutes(25)));
  v1::Schedule delay;
  delay.mutable_fix_delay()->set_seconds(3600);
  delay.set_calendar("office");
  absl::StatusOr<std::vector<absl::Time>> d = Preview(delay, from, 2, &cal);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_THAT(*d, ElementsAre(from + absl::Hours(17), from + absl::Hours(18)));
}

TEST(CalendarTest, BadFieldsAreRefusedByName) {
  auto error = [](void (*edit)(v1::Calendar&)) {
    v1::Calendar c;
    c.set_name("ok");
    edit(c);
    return std::string(ValidateCalendar(c).message());
  };
  EXPECT_THAT(error([](v1::Calendar& c) { c.set_name("no spaces"); }), HasSubstr("calendar.name"));
  EXPECT_THAT(error([](v1::Calendar& c) { c.set_time_zone("Mars/Base"); }),
              HasSubstr("calendar.time_zone: unknown zone"));
  EXPECT_THAT(error([](v1::Calendar& c) { c.add_weekdays(static_cast<v1::Weekday>(9)); }),
              HasSubstr("calendar.weekdays[0]"));
  EXPECT_THAT(error([](v1::Calendar& c) {
                c.add_excluded_dates("2026-01-01");
                c.add_excluded_dates("2026-02-30");
              }),
              HasSubstr("calendar.excluded_dates[1]: \"2026-02-30\" is not a date"));
  EXPECT_THAT(error([](v1::Calendar& c) { c.add_included_dates("12-25"); }),
              HasSubstr("calendar.included_dates[0]"));
  EXPECT_THAT(error([](v1::Calendar& c) { c.add_windows("09:00-09:00"); }),
              HasSubstr("calendar.windows[0]"));
  EXPECT_THAT(error([](v1::Calendar& c) { c.add_windows("24:00-01:00"); }),
              HasSubstr("calendar.windows[0]"));
  // A long value is quoted only in part.
  const std::string long_error =
      error([](v1::Calendar& c) { c.add_windows(std::string(10000, 'x')); });
  EXPECT_LT(long_error.size(), 200u);
  EXPECT_TRUE(error([](v1::Calendar& c) {
                c.add_excluded_dates("02-29");
                c.add_windows("00:00-24:00");
              }).empty());
}

TEST(CalendarTest, ScheduleValidationNamesCalendarAndJitter) {
  v1::Schedule s;
  s.mutable_cron()->set_expression("0 * * * * ?");
  s.set_calendar("bad name");
  EXPECT_THAT(ValidateSchedule(s).message(), HasSubstr("schedule.calendar"));
  s.set_calendar("fine");
  s.mutable_jitter()->set_seconds(25 * 3600);
  EXPECT_THAT(ValidateSchedule(s).message(), HasSubstr("schedule.jitter"));
  s.mutable_jitter()->set_seconds(30);
  EXPECT_TRUE(ValidateSchedule(s).ok());
  v1::Schedule manual;
  manual.set_calendar("fine");
  EXPECT_THAT(ValidateSchedule(manual).message(), HasSubstr("schedule.calendar"));
}

}  // namespace
}  // namespace gnomon::schedule

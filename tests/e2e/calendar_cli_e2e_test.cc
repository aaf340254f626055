// Calendars through gnomonctl against a real gnomond on SQLite
// (docs/calendars.md, docs/cli.md "Calendars"): `calendar create` (a bad
// weekday refused before the server, a bad window by it naming the field),
// `calendar list` and `get`, a cron job `--calendar` with `--jitter`,
// `cron next --calendar` showing the slots the calendar skips, `apply` of a
// file whose Job names the Calendar declared after it, `get calendar`
// applying back unchanged, `calendar update`, and `calendar delete` refused
// while a job names the calendar; a viewer reads calendars but writes none.
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/subprocess.h"

namespace gnomon {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The Job document comes first: apply must create the calendar before it.
constexpr char kNightly[] = R"(kind: Job
app: cal-e2e
job:
  name: nightly
  bean: {handler: report}
  schedule:
    cron: {expression: "0 0 2 * * ?"}
    calendar: holidays-off
---
kind: Calendar
calendar:
  name: holidays-off
  description: Every day but Christmas
  timeZone: Europe/Berlin
  excludedDates: ["12-25", "12-26"]
)";

class CalendarCliE2E : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cluster_.Start()) << cluster_.Output(); }

  // gnomonctl `args`, which must succeed; its output.
  std::string Ok(const std::vector<std::string>& args) {
    testing::CommandResult r = cluster_.Ctl(args);
    EXPECT_EQ(r.exit_code, 0) << ::testing::PrintToString(args) << "\n" << r.err;
    return r.out;
  }

  testing::GnomonCluster cluster_;
};

TEST_F(CalendarCliE2E, CalendarsAreMadeListedNamedPreviewedAppliedAndKeptWhileNamed) {
  // A weekday that is not one is refused before anything is sent (exit 2);
  // a window that is not one by the server, naming the field (exit 1).
  testing::CommandResult r =
      cluster_.Ctl({"calendar", "create", "workdays", "--weekdays", "MON,FRY"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("--weekdays: unknown weekday 'FRY'"));
  r = cluster_.Ctl({"calendar", "create", "workdays", "--window", "09:00-17:00,25:00-26:00"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("INVALID_ARGUMENT: calendar.windows[1]"));

  // Weekdays in UTC, 2030-01-02 (a Wednesday) a holiday.
  std::string out = Ok({"calendar", "create", "workdays", "--zone", "UTC", "--weekdays",
                        "mon,tue,wed", "--weekdays", "THU,FRI", "--exclude", "2030-01-02",
                        "--window", "00:00-24:00", "--description", "Office days"});
  EXPECT_THAT(out, HasSubstr("weekdays:        MON,TUE,WED,THU,FRI\n"));
  EXPECT_THAT(out, HasSubstr("excluded dates:  2030-01-02\n"));
  Ok({"calendar", "create", "nights", "--window", "22:00-06:00"});

  EXPECT_EQ(Ok({"calendar", "list"}),
            "NAME      ZONE  WEEKDAYS             EXCLUDED  INCLUDED  WINDOWS\n"
            "nights    -     every day            0         0         22:00-06:00\n"
            "workdays  UTC   MON,TUE,WED,THU,FRI  1         0         00:00-24:00\n");
  v1::Calendar got;
  ASSERT_TRUE(cluster_.CtlJson({"calendar", "get", "workdays"}, &got));
  EXPECT_EQ(got.description(), "Office days");
  EXPECT_EQ(got.weekdays_size(), 5);
  EXPECT_GT(got.id(), 0);
  out = Ok({"calendar", "get", "workdays"});
  EXPECT_THAT(out, HasSubstr("zone:            UTC\n"));
  EXPECT_THAT(out, HasSubstr("windows:         00:00-24:00\n"));

  // A cron job naming it: its next fire is a 09:00 on a weekday.
  v1::Group group;
  ASSERT_TRUE(cluster_.CtlJson({"group", "create", "cal-e2e"}, &group));
  v1::Job job;
  ASSERT_TRUE(cluster_.CtlJson(
      {"job", "create", "--group", absl::StrCat(group.id()), "--name", "standup", "--handler",
       "report", "--cron", "0 0 9 * * ?", "--calendar", "workdays", "--jitter", "30s", "--start"},
      &job));
  EXPECT_EQ(job.schedule().calendar(), "workdays");
  EXPECT_EQ(job.schedule().jitter().seconds(), 30);
  ASSERT_TRUE(job.has_next_fire_time());
  const absl::CivilSecond next = absl::ToCivilSecond(
      absl::FromUnixSeconds(job.next_fire_time().seconds()), absl::UTCTimeZone());
  EXPECT_EQ(next.hour(), 9);
  const absl::Weekday day = absl::GetWeekday(next);
  EXPECT_NE(day, absl::Weekday::saturday);
  EXPECT_NE(day, absl::Weekday::sunday);
  EXPECT_THAT(Ok({"job", "get", "standup"}),
              HasSubstr("schedule:        cron '0 0 9 * * ?' UTC, calendar workdays, jitter "
                        "30s\n"));
  r = cluster_.Ctl({"job", "create", "--group", absl::StrCat(group.id()), "--handler", "report",
                    "--every", "1m", "--calendar", "no-such"});
  EXPECT_EQ(r.exit_code, 3) << r.err;  // NOT_FOUND
  EXPECT_THAT(r.err, HasSubstr("job.schedule.calendar: no calendar is named 'no-such' "
                               "(gnomonctl calendar list)"));

  // cron next --calendar: the server's fires, and between them the slots
  // the calendar skips (the holiday, the weekend).
  EXPECT_EQ(Ok({"cron", "next", "0 0 9 * * ?", "--from", "2030-01-01T00:00:00Z", "-n", "4",
                "--calendar", "workdays"}),
            "#  TIME (UTC)                  UTC                       CALENDAR\n"
            "1  2030-01-01 09:00:00 +00:00  2030-01-01T09:00:00.000Z  fires\n"
            "-  2030-01-02 09:00:00 +00:00  2030-01-02T09:00:00.000Z  skipped\n"
            "2  2030-01-03 09:00:00 +00:00  2030-01-03T09:00:00.000Z  fires\n"
            "3  2030-01-04 09:00:00 +00:00  2030-01-04T09:00:00.000Z  fires\n"
            "-  2030-01-05 09:00:00 +00:00  2030-01-05T09:00:00.000Z  skipped\n"
            "-  2030-01-06 09:00:00 +00:00  2030-01-06T09:00:00.000Z  skipped\n"
            "4  2030-01-07 09:00:00 +00:00  2030-01-07T09:00:00.000Z  fires\n");
  r = cluster_.Ctl({"cron", "next", "0 0 9 * * ?", "--calendar", "no-such"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_THAT(r.err, HasSubstr("schedule.calendar: no calendar is named 'no-such'"));

  // apply: the Calendar document is applied before the Job naming it.
  const std::string file = cluster_.WriteFile("nightly.yaml", kNightly);
  EXPECT_EQ(Ok({"apply", "-f", file}),
            "calendar/holidays-off created\njob/cal-e2e/nightly created\n");
  EXPECT_EQ(Ok({"apply", "-f", file}),
            "calendar/holidays-off unchanged\njob/cal-e2e/nightly unchanged\n");
  v1::Job nightly;
  ASSERT_TRUE(cluster_.CtlJson({"job", "get", "cal-e2e/nightly"}, &nightly));
  EXPECT_EQ(nightly.schedule().calendar(), "holidays-off");
  // What `get calendar` prints applies back unchanged; an edit is applied.
  const std::string exported = Ok({"get", "calendar", "holidays-off"});
  EXPECT_THAT(exported, HasSubstr("kind: Calendar\n"));
  EXPECT_EQ(Ok({"apply", "-f", cluster_.WriteFile("exported.yaml", exported)}),
            "calendar/holidays-off unchanged\n");
  EXPECT_EQ(Ok({"apply", "-f",
                cluster_.WriteFile("edited.yaml",
                                   absl::StrReplaceAll(kNightly, {{"\"12-26\"", "\"12-31\""}}))}),
            "calendar/holidays-off configured\njob/cal-e2e/nightly unchanged\n");
  ASSERT_TRUE(cluster_.CtlJson({"calendar", "get", "holidays-off"}, &got));
  EXPECT_EQ(got.excluded_dates(1), "12-31");
  EXPECT_THAT(Ok({"get", "calendars"}), HasSubstr("  name: nights\n"));

  // update replaces what its flags give: without the holiday, Wednesday fires.
  out = Ok({"calendar", "update", "workdays", "--exclude", ""});
  EXPECT_THAT(out, HasSubstr("excluded dates:  -\n"));
  EXPECT_THAT(out, HasSubstr("description:     Office days\n"));
  EXPECT_THAT(Ok({"cron", "next", "0 0 9 * * ?", "--from", "2030-01-01T00:00:00Z", "-n", "2",
                  "--calendar", "workdays"}),
              HasSubstr("2  2030-01-02 09:00:00 +00:00"));

  // A viewer reads calendars and writes none.
  v1::CreateTokenResponse viewer;
  ASSERT_TRUE(cluster_.CtlJson(
      {"token", "create", "calendar-viewer", "--role", "viewer", "--all-groups"}, &viewer));
  r = cluster_.Ctl({"--token", viewer.secret(), "calendar", "list"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("workdays"));
  r = cluster_.Ctl({"--token", viewer.secret(), "calendar", "delete", "nights"});
  EXPECT_EQ(r.exit_code, 4) << r.err;  // PERMISSION_DENIED

  // A calendar a job names is kept; once nothing names it, it goes.
  r = cluster_.Ctl({"calendar", "delete", "workdays"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(r.err, HasSubstr(absl::StrCat("is named by job ", job.id())));
  Ok({"calendar", "get", "workdays"});
  Ok({"job", "delete", "standup"});
  EXPECT_EQ(Ok({"calendar", "delete", "workdays"}), "deleted calendar workdays\n");
  r = cluster_.Ctl({"calendar", "get", "workdays"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_THAT(Ok({"calendar", "list"}), Not(HasSubstr("workdays")));
}

}  // namespace
}  // namespace gnomon

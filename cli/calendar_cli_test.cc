// gnomonctl calendar ..., --calendar/--jitter on jobs, cron next --calendar,
// apply of Calendar documents and get calendar(s), against the fake
// JobAdmin's in-memory calendars (fake_calendars.h).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/cli_test_fixture.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace gnomon::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using Result = testing::CliResult;

// 2024-05-01T09:00:00Z, a Wednesday.
constexpr int64_t kMay1At9 = 1714554000;
constexpr int64_t kDay = 86400;

class CalendarCliTest : public testing::CliTest {
 protected:
  // Stores calendar "workdays": MON-FRI in Europe/Berlin, two holidays, a
  // working Saturday, office hours.
  void SeedWorkdays() {
    servers_.state.Set([](testing::AdminState& s) {
      v1::CreateCalendarRequest req;
      v1::Calendar* c = req.mutable_calendar();
      c->set_name("workdays");
      c->set_description("Berlin office");
      c->set_time_zone("Europe/Berlin");
      for (v1::Weekday d : {v1::MONDAY, v1::TUESDAY, v1::WEDNESDAY, v1::THURSDAY, v1::FRIDAY}) {
        c->add_weekdays(d);
      }
      c->add_excluded_dates("12-25");
      c->add_excluded_dates("2026-10-03");
      c->add_included_dates("2026-10-10");
      c->add_windows("09:00-17:00");
      v1::Calendar created;
      EXPECT_TRUE(s.calendars.CreateCalendar(req, &created).ok());
    });
  }
  // Group "etl" (id 4) and its job 7 "merge", a cron job.
  void SeedEtlMerge() {
    servers_.state.Set([](testing::AdminState& s) {
      testing::SeedEtlMerge(s);
      s.job.mutable_schedule()->mutable_cron()->set_expression("0 0 9 * * ?");
    });
  }
  void ClearCalls() {
    servers_.state.Set([](testing::AdminState& s) { s.calls.clear(); });
  }
  std::vector<std::string> Methods() { return servers_.state.Methods(); }
  v1::Calendar Stored(const std::string& name) {
    return servers_.state.Snapshot().calendars.stored[name];
  }
};

TEST_F(CalendarCliTest, UsageErrorsExitTwoWithoutCallingTheServer) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"calendar"},
           {"calendar", "create"},
           {"calendar", "create", "a", "b"},
           {"calendar", "create", "workdays", "--weekdays", "MON,FRY"},
           {"calendar", "create", "workdays", "--weekday", "MON"},
           {"calendar", "get"},
           {"calendar", "get", ""},
           {"calendar", "list", "workdays"},
           {"calendar", "update", "workdays"},
           {"calendar", "update", "workdays", "--weekdays", "someday"},
           {"calendar", "delete"},
           {"get", "calendar"},
           {"get", "calendars", "workdays"},
           {"job", "create", "--group", "1", "--handler", "h", "--manual", "--calendar", "x"},
           {"job", "create", "--group", "1", "--handler", "h", "--manual", "--jitter", "5s"},
           {"job", "create", "--group", "1", "--handler", "h", "--every", "5s", "--jitter", "x"},
           {"cron", "next", "0 0 9 * * ?", "--calendar", "workdays", "-n", "101"},
       }) {
    Result r = Run(args);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args) << r.err;
    EXPECT_THAT(r.err, HasSubstr("--help")) << r.err;
    EXPECT_THAT(r.out, IsEmpty());
  }
  EXPECT_THAT(Methods(), IsEmpty());
}

TEST_F(CalendarCliTest, ABadWeekdayIsRefusedNamingTheFlag) {
  Result r = Run({"calendar", "create", "workdays", "--weekdays", "mon,FRY"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--weekdays: unknown weekday 'FRY'; use one of MON, TUE, WED, THU, "
                               "FRI, SAT, SUN"));
  r = Run({"job", "create", "--group", "1", "--handler", "h", "--manual", "--calendar", "x"});
  EXPECT_THAT(r.err, HasSubstr("--calendar goes with a schedule that fires"));
}

TEST_F(CalendarCliTest, HelpListsTheVerbs) {
  Result r = Run({"calendar", "--help"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* verb : {"create", "list", "get", "update", "delete"}) {
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("calendar ", verb, " "))) << verb;
  }
  r = Run({"calendar", "create", "--help"});
  EXPECT_THAT(r.out, HasSubstr("--window HH:MM-HH:MM"));
  EXPECT_THAT(r.out, HasSubstr("Examples:"));
  r = Run({"job", "create", "--help"});
  EXPECT_THAT(r.out, HasSubstr("--calendar NAME"));
  EXPECT_THAT(r.out, HasSubstr("--jitter DUR"));
  r = Run({"cron", "next", "--help"});
  EXPECT_THAT(r.out, HasSubstr("--calendar NAME"));
}

TEST_F(CalendarCliTest, CreateSendsEveryFlagAndPrintsTheCalendar) {
  Result r =
      Run({"calendar", "create", "workdays",  //
           "--zone", "Europe/Berlin",         //
           // Any case, comma lists and repeats; MONDAY is MON again.
           "--weekdays", "mon,Tue", "--weekdays", "WEDNESDAY", "--weekdays", "thu,fri,Monday",  //
           "--exclude", "12-25,12-26", "--exclude", "2026-10-03",                               //
           "--include", "2026-10-10",                                                           //
           "--window", "09:00-12:00", "--window", "13:00-17:00,22:00-06:00",                    //
           "--description", "Berlin office"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("CreateCalendar"));
  const v1::Calendar sent =
      servers_.state.Last<v1::CreateCalendarRequest>("CreateCalendar").calendar();
  EXPECT_EQ(sent.name(), "workdays");
  EXPECT_EQ(sent.time_zone(), "Europe/Berlin");
  EXPECT_EQ(sent.description(), "Berlin office");
  EXPECT_THAT(sent.weekdays(),
              ElementsAre(v1::MONDAY, v1::TUESDAY, v1::WEDNESDAY, v1::THURSDAY, v1::FRIDAY));
  EXPECT_THAT(sent.excluded_dates(), ElementsAre("12-25", "12-26", "2026-10-03"));
  EXPECT_THAT(sent.included_dates(), ElementsAre("2026-10-10"));
  EXPECT_THAT(sent.windows(), ElementsAre("09:00-12:00", "13:00-17:00", "22:00-06:00"));
  EXPECT_THAT(r.out, HasSubstr("name:            workdays\n"));
  EXPECT_THAT(r.out, HasSubstr("weekdays:        MON,TUE,WED,THU,FRI\n"));
  EXPECT_THAT(r.out, HasSubstr("excluded dates:  12-25, 12-26, 2026-10-03\n"));
  EXPECT_THAT(r.out, HasSubstr("windows:         09:00-12:00,13:00-17:00,22:00-06:00\n"));
  EXPECT_THAT(r.out, HasSubstr("created:         2024-05-01T12:00:00.000+00:00\n"));

  // A bare calendar: every day, all day, in the schedule's zone.
  r = Run({"calendar", "create", "any"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("zone:            - (the zone of the schedule using it)\n"));
  EXPECT_THAT(r.out, HasSubstr("weekdays:        every day\n"));
  EXPECT_THAT(r.out, HasSubstr("windows:         all day\n"));

  // The server's refusals pass through with their exit class.
  r = Run({"calendar", "create", "any"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("ALREADY_EXISTS: calendar.name: a calendar is named 'any'"));
}

TEST_F(CalendarCliTest, ListIsATableOfCountsAndGetShowsEveryDate) {
  SeedWorkdays();
  ASSERT_EQ(Run({"calendar", "create", "nights", "--window", "22:00-06:00"}).code, 0);
  ClearCalls();
  Result r = Run({"calendar", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("ListCalendars"));
  EXPECT_EQ(r.out,
            "NAME      ZONE           WEEKDAYS             EXCLUDED  INCLUDED  WINDOWS\n"
            "nights    -              every day            0         0         22:00-06:00\n"
            "workdays  Europe/Berlin  MON,TUE,WED,THU,FRI  2         1         09:00-17:00\n");

  r = Run({"calendar", "list", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::ListCalendarsResponse listed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &listed).ok()) << r.out;
  ASSERT_EQ(listed.calendars_size(), 2);
  EXPECT_EQ(listed.calendars(1).weekdays(0), v1::MONDAY);

  r = Run({"calendar", "get", "workdays"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(servers_.state.Last<v1::GetCalendarRequest>("GetCalendar").name(), "workdays");
  EXPECT_THAT(r.out, HasSubstr("description:     Berlin office\n"));
  EXPECT_THAT(r.out, HasSubstr("zone:            Europe/Berlin\n"));
  EXPECT_THAT(r.out, HasSubstr("excluded dates:  12-25, 2026-10-03\n"));
  EXPECT_THAT(r.out, HasSubstr("included dates:  2026-10-10\n"));

  r = Run({"calendar", "get", "workdays", "-o", "yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("name: workdays\n"));
  EXPECT_THAT(r.out, HasSubstr("- MONDAY\n"));

  r = Run({"calendar", "get", "holidays"});
  EXPECT_EQ(r.code, 3);  // NOT_FOUND
  EXPECT_THAT(r.err, HasSubstr("no calendar is named 'holidays'"));
}

TEST_F(CalendarCliTest, UpdateReplacesTheGivenFieldsAndKeepsTheOthers) {
  SeedWorkdays();
  Result r = Run({"calendar", "update", "workdays", "--exclude", "12-24,12-25", "--window", "",
                  "--weekdays", "mon,tue,wed,thu,fri,sat"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("GetCalendar", "UpdateCalendar"));
  const v1::Calendar sent =
      servers_.state.Last<v1::UpdateCalendarRequest>("UpdateCalendar").calendar();
  EXPECT_EQ(sent.name(), "workdays");
  EXPECT_THAT(sent.excluded_dates(), ElementsAre("12-24", "12-25"));
  EXPECT_THAT(sent.windows(), IsEmpty());
  EXPECT_EQ(sent.weekdays_size(), 6);
  // Kept as they were.
  EXPECT_EQ(sent.time_zone(), "Europe/Berlin");
  EXPECT_EQ(sent.description(), "Berlin office");
  EXPECT_THAT(sent.included_dates(), ElementsAre("2026-10-10"));
  EXPECT_THAT(r.out, HasSubstr("windows:         all day\n"));
  EXPECT_THAT(r.out, HasSubstr("weekdays:        MON,TUE,WED,THU,FRI,SAT\n"));

  ClearCalls();
  r = Run({"calendar", "update", "workdays", "--zone", "", "--include", ""});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Stored("workdays").time_zone(), "");
  EXPECT_THAT(Stored("workdays").included_dates(), IsEmpty());
  EXPECT_THAT(Stored("workdays").excluded_dates(), ElementsAre("12-24", "12-25"));

  ClearCalls();
  r = Run({"calendar", "update", "holidays", "--window", "09:00-10:00"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(Methods(), ElementsAre("GetCalendar"));
}

TEST_F(CalendarCliTest, DeleteIsRefusedWhileAJobNamesTheCalendar) {
  SeedWorkdays();
  servers_.state.Set([](testing::AdminState& s) { s.calendars.in_use.insert("workdays"); });
  Result r = Run({"calendar", "delete", "workdays"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("FAILED_PRECONDITION: calendar 'workdays' is named by job 7"));
  EXPECT_EQ(Stored("workdays").name(), "workdays");

  servers_.state.Set([](testing::AdminState& s) { s.calendars.in_use.clear(); });
  r = Run({"calendar", "delete", "workdays"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "deleted calendar workdays\n");
  EXPECT_EQ(servers_.state.Last<v1::DeleteCalendarRequest>("DeleteCalendar").name(), "workdays");
  EXPECT_THAT(servers_.state.Snapshot().calendars.stored, IsEmpty());
}

TEST_F(CalendarCliTest, JobsNameACalendarAndAJitter) {
  SeedWorkdays();
  Result r = Run({"job", "create", "--group", "1", "--handler", "settle", "--cron", "0 0 9 * * ?",
                  "--tz", "Europe/Berlin", "--calendar", "workdays", "--jitter", "30s"});
  ASSERT_EQ(r.code, 0) << r.err;
  const v1::Schedule sent = servers_.state.Last<v1::CreateJobRequest>("CreateJob").job().schedule();
  EXPECT_EQ(sent.cron().expression(), "0 0 9 * * ?");
  EXPECT_EQ(sent.calendar(), "workdays");
  EXPECT_EQ(sent.jitter().seconds(), 30);
  // job create prints the job: the schedule line carries both.
  EXPECT_THAT(r.out, HasSubstr("schedule:        cron '0 0 9 * * ?' Europe/Berlin, calendar "
                               "workdays, jitter 30s\n"));

  // A calendar no one defined: the server's NOT_FOUND names the field.
  r = Run({"job", "create", "--group", "1", "--handler", "settle", "--every", "1m", "--calendar",
           "holidays"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, HasSubstr("job.schedule.calendar: no calendar is named 'holidays' "
                               "(gnomonctl calendar list)"));
}

TEST_F(CalendarCliTest, JobUpdateSetsKeepsAndClearsTheCalendarAndJitter) {
  SeedWorkdays();
  SeedEtlMerge();
  Result r = Run({"job", "update", "7", "--calendar", "workdays", "--jitter", "1m"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::Schedule sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job().schedule();
  EXPECT_EQ(sent.cron().expression(), "0 0 9 * * ?");
  EXPECT_EQ(sent.calendar(), "workdays");
  EXPECT_EQ(sent.jitter().seconds(), 60);

  // A new kind of schedule keeps the calendar and jitter the job has.
  servers_.state.Set([&](testing::AdminState& s) { *s.job.mutable_schedule() = sent; });
  r = Run({"job", "update", "7", "--every", "10m"});
  ASSERT_EQ(r.code, 0) << r.err;
  sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job().schedule();
  EXPECT_EQ(sent.fix_rate().seconds(), 600);
  EXPECT_EQ(sent.calendar(), "workdays");
  EXPECT_EQ(sent.jitter().seconds(), 60);

  r = Run({"job", "update", "7", "--calendar", "", "--jitter", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job().schedule();
  EXPECT_EQ(sent.calendar(), "");
  EXPECT_FALSE(sent.has_jitter());
  EXPECT_EQ(sent.cron().expression(), "0 0 9 * * ?");

  // --manual drops both (the server takes neither on a schedule that never fires).
  r = Run({"job", "update", "7", "--manual"});
  ASSERT_EQ(r.code, 0) << r.err;
  sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job().schedule();
  EXPECT_EQ(sent.kind_case(), v1::Schedule::KIND_NOT_SET);
  EXPECT_EQ(sent.calendar(), "");
  EXPECT_FALSE(sent.has_jitter());

  // job get shows them where it shows the schedule.
  servers_.state.Set([](testing::AdminState& s) {
    s.job.mutable_schedule()->set_calendar("workdays");
    s.job.mutable_schedule()->mutable_jitter()->set_seconds(90);
  });
  r = Run({"job", "get", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("schedule:        cron '0 0 9 * * ?' UTC, calendar workdays, "
                               "jitter 1m30s\n"));
  r = Run({"job", "list"});
  ASSERT_EQ(r.code, 0) << r.err;

  // A job without a schedule that fires takes no calendar.
  servers_.state.Set([](testing::AdminState& s) { s.job.clear_schedule(); });
  ClearCalls();
  r = Run({"job", "update", "7", "--calendar", "workdays"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--calendar goes with a schedule that fires"));
  EXPECT_THAT(Methods(), ElementsAre("GetJob"));
}

TEST_F(CalendarCliTest, CronNextWithACalendarAsksTheServerAndShowsTheSkippedSlots) {
  servers_.state.Set([](testing::AdminState& s) {
    // Wed 1, Fri 3 and Mon 6 May at 09:00Z: the calendar skipped Thu 2 (a
    // holiday) and the weekend.
    for (int64_t day : {0, 2, 5}) {
      s.preview.add_fire_times()->set_seconds(kMay1At9 + day * kDay);
    }
  });
  Result r = Run({"cron", "next", "0 0 9 * * ?", "--from", "2024-05-01T00:00:00Z", "-n", "3",
                  "--calendar", "workdays", "--params", "day=$[yyyyMMdd]"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("PreviewSchedule"));
  const v1::PreviewScheduleRequest req =
      servers_.state.Last<v1::PreviewScheduleRequest>("PreviewSchedule");
  EXPECT_EQ(req.schedule().cron().expression(), "0 0 9 * * ?");
  EXPECT_EQ(req.schedule().calendar(), "workdays");
  EXPECT_EQ(req.from_time().seconds(), kMay1At9 - 9 * 3600);
  EXPECT_EQ(req.count(), 3);
  EXPECT_EQ(r.out,
            "#  TIME (UTC)                  UTC                       PARAMS        CALENDAR\n"
            "1  2024-05-01 09:00:00 +00:00  2024-05-01T09:00:00.000Z  day=20240501  fires\n"
            "-  2024-05-02 09:00:00 +00:00  2024-05-02T09:00:00.000Z  -             skipped\n"
            "2  2024-05-03 09:00:00 +00:00  2024-05-03T09:00:00.000Z  day=20240503  fires\n"
            "-  2024-05-04 09:00:00 +00:00  2024-05-04T09:00:00.000Z  -             skipped\n"
            "-  2024-05-05 09:00:00 +00:00  2024-05-05T09:00:00.000Z  -             skipped\n"
            "3  2024-05-06 09:00:00 +00:00  2024-05-06T09:00:00.000Z  day=20240506  fires\n");

  r = Run({"cron", "next", "0 0 9 * * ?", "--from", "2024-05-01T00:00:00Z", "-n", "3", "--calendar",
           "workdays", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(
      r.out,
      absl::StrCat("{\"next_ms\": [", kMay1At9 * 1000, ", ", (kMay1At9 + 2 * kDay) * 1000, ", ",
                   (kMay1At9 + 5 * kDay) * 1000, "], \"skipped_ms\": [", (kMay1At9 + kDay) * 1000,
                   ", ", (kMay1At9 + 3 * kDay) * 1000, ", ", (kMay1At9 + 4 * kDay) * 1000, "]}\n"));
}

TEST_F(CalendarCliTest, CronNextCountsManySkippedSlotsAndPassesTheServersRefusal) {
  // Every minute, but the calendar's window opens two hours later.
  servers_.state.Set(
      [](testing::AdminState& s) { s.preview.add_fire_times()->set_seconds(kMay1At9 + 2 * 3600); });
  Result r = Run({"cron", "next", "0 * * * * ?", "--from", "2024-05-01T09:00:00Z", "-n", "1",
                  "--calendar", "late"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("1  2024-05-01 11:00:00 +00:00  2024-05-01T11:00:00.000Z  fires\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("skipped\n")));
  EXPECT_THAT(r.out,
              HasSubstr("(119 slots between these are skipped by calendar late; -o json lists "
                        "them)\n"));

  // The calendar allows none: the server answers no instant.
  servers_.state.Set([](testing::AdminState& s) { s.preview.Clear(); });
  r = Run({"cron", "next", "0 * * * * ?", "--from", "2024-05-01T09:00:00Z", "--calendar", "late"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "the expression does not fire after 2024-05-01T09:00:00.000Z at an instant calendar "
            "late allows\n");

  servers_.state.Set([](testing::AdminState& s) {
    s.fail = grpc::Status(grpc::StatusCode::NOT_FOUND,
                          "schedule.calendar: no calendar is named 'late' (gnomonctl calendar "
                          "list)");
  });
  r = Run({"cron", "next", "0 * * * * ?", "--calendar", "late"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, HasSubstr("schedule.calendar: no calendar is named 'late'"));
}

TEST_F(CalendarCliTest, CronNextWithACalendarReadsTheConfiguredContext) {
  // Offline without --calendar: a broken config file cannot stop it; with
  // --calendar it is read for the server like any online command.
  const char* dir = std::getenv("TEST_TMPDIR");
  const std::string path =
      absl::StrCat(dir ? dir : "/tmp", "/gnomonctl-calendar-", ::getpid(), ".yaml");
  std::ofstream(path) << "{";
  vars_["GNOMONCTL_CONFIG"] = path;
  Result r = Run({"cron", "next", "0 0 9 * * ?", "-n", "1"});
  EXPECT_EQ(r.code, 0) << r.err;
  r = Run({"cron", "next", "0 0 9 * * ?", "-n", "1", "--calendar", "workdays"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr(path));
  EXPECT_THAT(Methods(), IsEmpty());
  std::remove(path.c_str());
}

constexpr char kSettle[] = R"(kind: Job
app: etl
job:
  name: merge
  bean: {handler: merge}
  schedule:
    cron: {expression: "0 0 9 * * ?"}
    calendar: workdays
    jitter: 30s
---
kind: Calendar
calendar:
  name: workdays
  timeZone: Europe/Berlin
  weekdays: [MONDAY, TUESDAY, WEDNESDAY, THURSDAY, FRIDAY]
  excludedDates: ["12-25", "2026-10-03"]
  windows: ["09:00-17:00"]
)";

TEST_F(CalendarCliTest, ApplyCreatesCalendarsBeforeTheJobsThatNameThem) {
  SeedEtlMerge();
  // The Calendar document comes last in the file; it is applied first, or
  // the job's update would name a calendar that does not exist.
  Result r = ApplyText(kSettle);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "calendar/workdays created\njob/etl/merge configured\n");
  EXPECT_THAT(Methods(),
              ElementsAre("GetCalendar", "CreateCalendar", "ListGroups", "GetJob", "UpdateJob"));
  const v1::Calendar created = Stored("workdays");
  EXPECT_EQ(created.time_zone(), "Europe/Berlin");
  EXPECT_THAT(created.excluded_dates(), ElementsAre("12-25", "2026-10-03"));
  const v1::Schedule sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job().schedule();
  EXPECT_EQ(sent.calendar(), "workdays");
  EXPECT_EQ(sent.jitter().seconds(), 30);

  // Again: nothing changes.
  servers_.state.Set([&](testing::AdminState& s) { *s.job.mutable_schedule() = sent; });
  r = ApplyText(kSettle);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "calendar/workdays unchanged\njob/etl/merge unchanged\n");
  EXPECT_THAT(Methods(), ElementsAre("GetCalendar", "ListGroups", "GetJob"));

  // An edit replaces the calendar; --dry-run only says so.
  std::string edited = kSettle;
  edited.replace(edited.find("09:00-17:00"), 11, "08:00-18:00");
  files_["etl.yaml"] = edited;
  ClearCalls();
  r = Run({"apply", "-f", "etl.yaml", "--dry-run"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "calendar/workdays configured (dry run)\njob/etl/merge unchanged (dry run)\n");
  EXPECT_THAT(Methods(), Not(::testing::Contains("UpdateCalendar")));
  r = ApplyText(edited);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "calendar/workdays configured\njob/etl/merge unchanged\n");
  EXPECT_THAT(Stored("workdays").windows(), ElementsAre("08:00-18:00"));
  EXPECT_EQ(Stored("workdays").id(), created.id());
}

TEST_F(CalendarCliTest, ApplyRefusesBadCalendarDocumentsBeforeAnythingChanges) {
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"kind: Calendar\ncalendar: {timeZone: UTC}\n", "calendar.name is required"},
           {"kind: Calendar\napp: etl\ncalendar: {name: x}\n", "app: calendars belong to no group"},
           {"kind: Calendar\ncalendar: {name: x}\n---\nkind: Calendar\ncalendar: {name: x}\n",
            "calendar x is declared twice"},
           {"kind: Calendar\ncalendar: {name: x, weekdays: [FUNDAY]}\n", "FUNDAY"},
           {"kind: Calender\ncalendar: {name: x}\n",
            "kind must be Group, Job, Workflow, Calendar, AlarmChannel or Pool"},
       }) {
    Result r = ApplyText(text);
    EXPECT_EQ(r.code, 2) << text;
    EXPECT_THAT(r.err, HasSubstr(message)) << text;
    EXPECT_THAT(Methods(), IsEmpty()) << text;
  }
}

TEST_F(CalendarCliTest, GetCalendarPrintsADocumentThatAppliesBackUnchanged) {
  SeedWorkdays();
  ASSERT_EQ(Run({"calendar", "create", "nights", "--window", "22:00-06:00"}).code, 0);
  Result r = Run({"get", "calendar", "workdays"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("kind: Calendar\n"));
  EXPECT_THAT(r.out, HasSubstr("  name: workdays\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("create_time")));
  EXPECT_THAT(r.out, HasSubstr("  id: \"0\"\n"));  // Output only: cleared.
  r = ApplyText(r.out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "calendar/workdays unchanged\n");

  r = Run({"get", "calendars"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  name: nights\n"));
  EXPECT_THAT(r.out, HasSubstr("---\n"));
  r = ApplyText(r.out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "calendar/nights unchanged\ncalendar/workdays unchanged\n");
  EXPECT_THAT(Methods(), ElementsAre("GetCalendar", "GetCalendar", "ListGroups"));

  r = Run({"get", "calendar", "holidays"});
  EXPECT_EQ(r.code, 3);
}

}  // namespace
}  // namespace gnomon::cli

// StoreTest cases for calendars: a calendar round-trips and its name is
// unique; every write of a job's or workflow's spec keeps the calendar it
// names findable (ListCalendarUsers); an edit moves the cursors of the
// running users only, in the same transaction; a calendar still named
// cannot be deleted; and the calendars' version changes with every change.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::testing::ElementsAre;
using Kind = CalendarUser::Kind;

v1::Calendar Workdays(const std::string& name) {
  v1::Calendar c;
  c.set_name(name);
  c.set_description("Mondays to Fridays, office hours");
  c.set_time_zone("Asia/Shanghai");
  for (v1::Weekday d : {v1::MONDAY, v1::TUESDAY, v1::WEDNESDAY, v1::THURSDAY, v1::FRIDAY}) {
    c.add_weekdays(d);
  }
  c.add_excluded_dates("2024-10-01");
  c.add_excluded_dates("01-01");
  c.add_included_dates("2024-09-29");
  c.add_windows("09:00-18:00");
  return c;
}

int64_t Ms(const google::protobuf::Timestamp& t) {
  return t.seconds() * 1000 + t.nanos() / 1000000;
}

// A user as (kind, id), to compare listings.
std::vector<std::pair<Kind, int64_t>> Keys(const std::vector<CalendarUser>& users) {
  std::vector<std::pair<Kind, int64_t>> out;
  for (const CalendarUser& u : users) out.emplace_back(u.kind, u.id);
  return out;
}

class StoreCalendarTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    absl::StatusOr<v1::Group> g = store().CreateGroup(MakeGroup("cal"), 1);
    ASSERT_TRUE(g.ok()) << g.status();
    group_ = *g;
  }

  // A job of group_ whose schedule names `calendar` ("": none).
  v1::Job JobNaming(const std::string& calendar) {
    v1::Job j = MakeJob(group_.id(), "report");
    j.clear_child_job_ids();
    j.mutable_schedule()->set_calendar(calendar);
    return j;
  }
  // A workflow of group_ named `name` whose schedule names `calendar`.
  v1::Workflow WorkflowNaming(const std::string& name, const std::string& calendar,
                              v1::WorkflowState state) {
    v1::Workflow w;
    w.set_group_id(group_.id());
    w.set_name(name);
    w.set_state(state);
    w.mutable_schedule()->mutable_cron()->set_expression("0 0 2 * * ?");
    w.mutable_schedule()->set_calendar(calendar);
    return w;
  }
  std::vector<std::pair<Kind, int64_t>> Users(const std::string& calendar) {
    absl::StatusOr<std::vector<CalendarUser>> users = store().ListCalendarUsers(calendar);
    EXPECT_TRUE(users.ok()) << users.status();
    return users.ok() ? Keys(*users) : std::vector<std::pair<Kind, int64_t>>{};
  }
  TableVersion Version() {
    absl::StatusOr<TableVersion> v = store().GetCalendarsVersion();
    EXPECT_TRUE(v.ok()) << v.status();
    return v.ok() ? *v : TableVersion{-1, -1, -1};
  }
};

TEST_P(StoreCalendarTest, ACalendarRoundTripsAndItsNameIsUnique) {
  ASSERT_OK_AND_ASSIGN(created, store().CreateCalendar(Workdays("cn-workdays"), 1500));
  EXPECT_GT(created.id(), 0);
  EXPECT_EQ(created.name(), "cn-workdays");
  EXPECT_EQ(Ms(created.create_time()), 1500);
  EXPECT_EQ(Ms(created.update_time()), 1500);
  EXPECT_EQ(created.time_zone(), "Asia/Shanghai");
  EXPECT_THAT(created.weekdays(),
              ElementsAre(v1::MONDAY, v1::TUESDAY, v1::WEDNESDAY, v1::THURSDAY, v1::FRIDAY));
  EXPECT_THAT(created.excluded_dates(), ElementsAre("2024-10-01", "01-01"));
  EXPECT_THAT(created.included_dates(), ElementsAre("2024-09-29"));
  EXPECT_THAT(created.windows(), ElementsAre("09:00-18:00"));
  ASSERT_OK_AND_ASSIGN(read, store().GetCalendar("cn-workdays"));
  EXPECT_EQ(read.SerializeAsString(), created.SerializeAsString());

  // Ids and times are the store's, whatever the caller sent.
  v1::Calendar again = Workdays("cn-workdays");
  again.set_id(99);
  absl::StatusOr<v1::Calendar> clash = store().CreateCalendar(again, 1600);
  EXPECT_EQ(clash.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(clash.status().message(),
            "calendar.name: a calendar named 'cn-workdays' already exists");

  v1::Calendar all_day;
  all_day.set_name("all-day");
  all_day.set_id(99);
  ASSERT_OK_AND_ASSIGN(plain, store().CreateCalendar(all_day, 1700));
  EXPECT_NE(plain.id(), 99);
  EXPECT_EQ(plain.weekdays_size(), 0);
  ASSERT_OK(store().CreateCalendar(Workdays("b-maintenance"), 1800).status());
  ASSERT_OK_AND_ASSIGN(listed, store().ListCalendars());
  std::vector<std::string> names;
  for (const v1::Calendar& c : listed) names.push_back(c.name());
  EXPECT_THAT(names, ElementsAre("all-day", "b-maintenance", "cn-workdays"));
  EXPECT_EQ(listed[2].SerializeAsString(), created.SerializeAsString());
}

TEST_P(StoreCalendarTest, AMissingCalendarIsNamed) {
  absl::StatusOr<v1::Calendar> got = store().GetCalendar("nope");
  EXPECT_EQ(got.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(got.status().message(), "calendar 'nope' does not exist");
  absl::StatusOr<v1::Calendar> updated = store().UpdateCalendar(Workdays("nope"), {}, 10);
  EXPECT_EQ(updated.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(updated.status().message(), "calendar 'nope' does not exist");
  const absl::Status deleted = store().DeleteCalendar("nope");
  EXPECT_EQ(deleted.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(deleted.message(), "calendar 'nope' does not exist");
  ASSERT_OK_AND_ASSIGN(users, store().ListCalendarUsers("nope"));
  EXPECT_TRUE(users.empty());
}

TEST_P(StoreCalendarTest, AnUpdateReplacesTheRulesAndAlwaysMovesTheUpdateTimeOn) {
  ASSERT_OK_AND_ASSIGN(created, store().CreateCalendar(Workdays("cn-workdays"), 1000));
  v1::Calendar edit = Workdays("cn-workdays");
  edit.clear_windows();
  edit.add_excluded_dates("2024-10-02");
  ASSERT_OK_AND_ASSIGN(first, store().UpdateCalendar(edit, {}, 2000));
  EXPECT_EQ(first.id(), created.id());
  EXPECT_EQ(Ms(first.create_time()), 1000);
  EXPECT_EQ(Ms(first.update_time()), 2000);
  EXPECT_EQ(first.windows_size(), 0);
  EXPECT_THAT(first.excluded_dates(), ElementsAre("2024-10-01", "01-01", "2024-10-02"));
  ASSERT_OK_AND_ASSIGN(read, store().GetCalendar("cn-workdays"));
  EXPECT_EQ(read.SerializeAsString(), first.SerializeAsString());
  // In the same millisecond, and with a clock that went back: still later.
  ASSERT_OK_AND_ASSIGN(second, store().UpdateCalendar(edit, {}, 2000));
  EXPECT_EQ(Ms(second.update_time()), 2001);
  ASSERT_OK_AND_ASSIGN(third, store().UpdateCalendar(edit, {}, 1500));
  EXPECT_EQ(Ms(third.update_time()), 2002);
}

TEST_P(StoreCalendarTest, EveryWriteOfAJobOrWorkflowKeepsTheCalendarItNames) {
  ASSERT_OK_AND_ASSIGN(a, store().CreateJob(JobNaming("cal-a"), v1::JOB_STATE_STOPPED, kNever, 10));
  ASSERT_OK_AND_ASSIGN(none, store().CreateJob(JobNaming(""), v1::JOB_STATE_STOPPED, kNever, 10));
  ASSERT_OK_AND_ASSIGN(
      batch, store().CreateJobs({NewJob{JobNaming("cal-b")}, NewJob{JobNaming("cal-a")}}, 10));
  ASSERT_EQ(batch.size(), 2u);
  ASSERT_OK_AND_ASSIGN(
      wa, store().CreateWorkflow(WorkflowNaming("wa", "cal-a", v1::WORKFLOW_STATE_STOPPED), 0, 10));
  ASSERT_OK_AND_ASSIGN(
      wb, store().CreateWorkflow(WorkflowNaming("wb", "cal-b", v1::WORKFLOW_STATE_STOPPED), 0, 10));
  ASSERT_OK(
      store().CreateWorkflow(WorkflowNaming("wn", "", v1::WORKFLOW_STATE_STOPPED), 0, 10).status());
  // By kind, then id; users are listed whether or not the calendar exists.
  EXPECT_THAT(Users("cal-a"),
              ElementsAre(std::pair{Kind::kJob, a.id()}, std::pair{Kind::kJob, batch[1].id()},
                          std::pair{Kind::kWorkflow, wa.id()}));
  EXPECT_THAT(Users("cal-b"), ElementsAre(std::pair{Kind::kJob, batch[0].id()},
                                          std::pair{Kind::kWorkflow, wb.id()}));

  // A user comes as GetJob / GetWorkflow return it.
  ASSERT_OK_AND_ASSIGN(users, store().ListCalendarUsers("cal-a"));
  ASSERT_EQ(users.size(), 3u);
  ASSERT_OK_AND_ASSIGN(job_a, store().GetJob(a.id()));
  EXPECT_EQ(users[0].job.SerializeAsString(), job_a.SerializeAsString());
  EXPECT_FALSE(users[0].workflow.has_schedule());
  ASSERT_OK_AND_ASSIGN(flow_a, store().GetWorkflow(wa.id()));
  EXPECT_EQ(users[2].workflow.SerializeAsString(), flow_a.SerializeAsString());
  EXPECT_FALSE(users[2].job.has_schedule());

  // Renamed (with and without a new cursor), cleared, named anew.
  v1::Job edit = a;
  edit.mutable_schedule()->set_calendar("cal-b");
  ASSERT_OK(store().UpdateJob(edit, std::nullopt, 20).status());
  edit = batch[1];
  edit.mutable_schedule()->clear_calendar();
  ASSERT_OK(store().UpdateJob(edit, int64_t{5000}, 20).status());
  edit = none;
  edit.mutable_schedule()->set_calendar("cal-a");
  ASSERT_OK(store().UpdateJob(edit, int64_t{5000}, 20).status());
  v1::Workflow flow = wb;
  flow.mutable_schedule()->set_calendar("cal-a");
  ASSERT_OK(store().UpdateWorkflow(flow, std::nullopt, 20).status());
  flow = wa;
  flow.mutable_schedule()->clear_calendar();
  ASSERT_OK(store().UpdateWorkflow(flow, int64_t{7000}, 20).status());
  EXPECT_THAT(Users("cal-a"),
              ElementsAre(std::pair{Kind::kJob, none.id()}, std::pair{Kind::kWorkflow, wb.id()}));
  EXPECT_THAT(Users("cal-b"),
              ElementsAre(std::pair{Kind::kJob, a.id()}, std::pair{Kind::kJob, batch[0].id()}));

  // A job rewritten when a child it names is deleted keeps its calendar.
  edit = a;
  edit.mutable_schedule()->set_calendar("cal-b");
  edit.add_child_job_ids(batch[1].id());
  ASSERT_OK(store().UpdateJob(edit, std::nullopt, 30).status());
  ASSERT_OK(store().DeleteJob(batch[1].id(), false));
  ASSERT_OK_AND_ASSIGN(parent, store().GetJob(a.id()));
  EXPECT_EQ(parent.child_job_ids_size(), 0);
  EXPECT_EQ(parent.schedule().calendar(), "cal-b");
  EXPECT_THAT(Users("cal-b"),
              ElementsAre(std::pair{Kind::kJob, a.id()}, std::pair{Kind::kJob, batch[0].id()}));
}

TEST_P(StoreCalendarTest, AnUpdateMovesTheCursorsOfRunningUsersOnly) {
  ASSERT_OK(store().CreateCalendar(Workdays("cal"), 100).status());
  ASSERT_OK_AND_ASSIGN(running, store().CreateJob(JobNaming("cal"), v1::JOB_STATE_RUNNING, 1000,
                                                  /*now_ms=*/500));
  ASSERT_OK_AND_ASSIGN(stopped,
                       store().CreateJob(JobNaming("cal"), v1::JOB_STATE_STOPPED, kNever, 500));
  ASSERT_OK_AND_ASSIGN(elsewhere,
                       store().CreateJob(JobNaming("other"), v1::JOB_STATE_RUNNING, 1000, 500));
  ASSERT_OK_AND_ASSIGN(
      flowing,
      store().CreateWorkflow(WorkflowNaming("on", "cal", v1::WORKFLOW_STATE_RUNNING), 1000, 500));
  ASSERT_OK_AND_ASSIGN(
      idle,
      store().CreateWorkflow(WorkflowNaming("off", "cal", v1::WORKFLOW_STATE_STOPPED), 2000, 500));

  ASSERT_OK_AND_ASSIGN(before, store().ListCalendarUsers("cal"));
  ASSERT_EQ(before.size(), 4u);
  EXPECT_EQ(before[0].next_fire_ms, 1000);
  EXPECT_TRUE(before[0].running);
  EXPECT_EQ(before[1].next_fire_ms, kNever);
  EXPECT_FALSE(before[1].running);
  EXPECT_EQ(before[2].next_fire_ms, 1000);
  EXPECT_TRUE(before[2].running);
  EXPECT_EQ(before[3].next_fire_ms, 2000);
  EXPECT_FALSE(before[3].running);

  // Every one is listed; only the running users of this calendar move.
  // now_ms is the running job's update time: its update time still moves on.
  v1::Calendar edit = Workdays("cal");
  edit.clear_windows();
  ASSERT_OK(store()
                .UpdateCalendar(edit,
                                {{Kind::kJob, running.id(), 9000},
                                 {Kind::kJob, stopped.id(), 9000},
                                 {Kind::kJob, elsewhere.id(), 9000},
                                 {Kind::kWorkflow, flowing.id(), 9500},
                                 {Kind::kWorkflow, idle.id(), 9500}},
                                /*now_ms=*/500)
                .status());
  ASSERT_OK_AND_ASSIGN(after, store().ListCalendarUsers("cal"));
  ASSERT_EQ(after.size(), 4u);
  EXPECT_EQ(after[0].next_fire_ms, 9000);
  EXPECT_EQ(Ms(after[0].job.next_fire_time()), 9000);
  EXPECT_EQ(Ms(after[0].job.update_time()), 501);
  EXPECT_EQ(after[1].next_fire_ms, kNever);
  EXPECT_EQ(Ms(after[1].job.update_time()), 500);
  EXPECT_EQ(after[2].next_fire_ms, 9500);
  EXPECT_EQ(Ms(after[2].workflow.update_time()), 501);
  EXPECT_EQ(after[3].next_fire_ms, 2000);
  EXPECT_EQ(Ms(after[3].workflow.update_time()), 500);
  ASSERT_OK_AND_ASSIGN(other, store().GetJob(elsewhere.id()));
  EXPECT_EQ(Ms(other.next_fire_time()), 1000);
  EXPECT_EQ(Ms(other.update_time()), 500);
  // The scheduler finds the moved job due at its new slot.
  ASSERT_OK_AND_ASSIGN(due, store().ListDueJobs(9000, 10, {}));
  std::vector<int64_t> due_ids;
  for (const DueJob& d : due) due_ids.push_back(d.job.id());
  EXPECT_THAT(due_ids, ElementsAre(elsewhere.id(), running.id()));

  // Later: the update time is now.
  ASSERT_OK(store().UpdateCalendar(edit, {{Kind::kJob, running.id(), 12000}}, 3000).status());
  ASSERT_OK_AND_ASSIGN(moved, store().GetJob(running.id()));
  EXPECT_EQ(Ms(moved.next_fire_time()), 12000);
  EXPECT_EQ(Ms(moved.update_time()), 3000);
}

TEST_P(StoreCalendarTest, ACalendarStillNamedCannotBeDeleted) {
  ASSERT_OK(store().CreateCalendar(Workdays("cal"), 100).status());
  ASSERT_OK_AND_ASSIGN(job, store().CreateJob(JobNaming("cal"), v1::JOB_STATE_STOPPED, kNever, 10));
  ASSERT_OK_AND_ASSIGN(
      flow, store().CreateWorkflow(WorkflowNaming("w", "cal", v1::WORKFLOW_STATE_STOPPED), 0, 10));

  absl::Status refused = store().DeleteCalendar("cal");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(), absl::StrCat("calendar 'cal' is named by job ", job.id()));
  job.mutable_schedule()->clear_calendar();
  ASSERT_OK(store().UpdateJob(job, std::nullopt, 20).status());

  refused = store().DeleteCalendar("cal");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(), absl::StrCat("calendar 'cal' is named by workflow ", flow.id()));
  flow.mutable_schedule()->set_calendar("other");
  ASSERT_OK(store().UpdateWorkflow(flow, std::nullopt, 20).status());
  ASSERT_OK(store().GetCalendar("cal").status());  // Refusals left it in place.

  ASSERT_OK(store().DeleteCalendar("cal"));
  EXPECT_EQ(store().GetCalendar("cal").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store().DeleteCalendar("cal").code(), absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(listed, store().ListCalendars());
  EXPECT_TRUE(listed.empty());
}

TEST_P(StoreCalendarTest, TheVersionChangesWithEveryChange) {
  TableVersion v = Version();
  EXPECT_EQ(v, (TableVersion{0, 0, 0}));
  auto changed = [&]() {
    const TableVersion now = Version();
    const bool moved = !(now == v);
    v = now;
    return moved;
  };
  ASSERT_OK(store().CreateCalendar(Workdays("a"), 1000).status());
  EXPECT_TRUE(changed());
  EXPECT_FALSE(changed());  // Reads change nothing.
  ASSERT_OK(store().UpdateCalendar(Workdays("a"), {}, 1000).status());
  EXPECT_TRUE(changed());  // The same millisecond.
  ASSERT_OK(store().CreateCalendar(Workdays("b"), 1000).status());
  EXPECT_TRUE(changed());
  // Each calendar edited once in one millisecond: the second still counts.
  ASSERT_OK(store().UpdateCalendar(Workdays("b"), {}, 5000).status());
  EXPECT_TRUE(changed());
  ASSERT_OK(store().UpdateCalendar(Workdays("a"), {}, 5000).status());
  EXPECT_TRUE(changed());
  ASSERT_OK(store().DeleteCalendar("a"));
  EXPECT_TRUE(changed());
  // One deleted and one created between two reads.
  ASSERT_OK(store().DeleteCalendar("b"));
  ASSERT_OK(store().CreateCalendar(Workdays("b"), 1000).status());
  EXPECT_TRUE(changed());
  // A refused delete changes nothing.
  ASSERT_OK(store().CreateJob(JobNaming("b"), v1::JOB_STATE_STOPPED, kNever, 10).status());
  EXPECT_EQ(store().DeleteCalendar("b").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(changed());
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreCalendarTest, ::testing::Values("sqlite", "mysql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gnomon::store::testing

// SqlStore: calendars (the calendar table: a row per calendar, its rules in
// `spec`) and their users, the jobs and workflows whose `calendar` column
// (their spec's Schedule.calendar, written with it) names one.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {
namespace {

// The rules as stored: the calendar without what has columns of its own.
std::string CalendarSpec(const v1::Calendar& calendar) {
  v1::Calendar spec = calendar;
  spec.clear_id();
  spec.clear_name();
  spec.clear_create_time();
  spec.clear_update_time();
  return spec.SerializeAsString();
}

// A row of kCalendarColumns.
absl::StatusOr<v1::Calendar> CalendarFromRow(const SqlRow& row) {
  v1::Calendar calendar;
  if (!calendar.ParseFromString(ColStr(row, 2))) {
    return absl::InternalError(absl::StrCat("calendar '", ColStr(row, 1), "': corrupt spec"));
  }
  calendar.set_id(ColInt(row, 0));
  calendar.set_name(ColStr(row, 1));
  SetMs(ColInt(row, 3), calendar.mutable_create_time());
  SetMs(ColInt(row, 4), calendar.mutable_update_time());
  return calendar;
}

absl::Status Missing(const std::string& name) {
  return absl::NotFoundError(absl::StrCat("calendar '", name, "' does not exist"));
}

absl::StatusOr<v1::Calendar> ReadCalendar(SqlConn& c, const Statements& sql,
                                          const std::string& name) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql.select_calendar, {SqlText(name)}));
  if (rows.empty()) return Missing(name);
  return CalendarFromRow(rows.front());
}

}  // namespace

absl::StatusOr<v1::Calendar> SqlStore::CreateCalendar(const v1::Calendar& calendar,
                                                      int64_t now_ms) {
  absl::StatusOr<v1::Calendar> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    absl::StatusOr<int64_t> id =
        c.Insert(sql_.insert_calendar, {SqlText(calendar.name()), SqlBytes(CalendarSpec(calendar)),
                                        SqlInt(now_ms), SqlInt(now_ms)});
    if (absl::IsAlreadyExists(id.status())) {
      return absl::AlreadyExistsError(
          absl::StrCat("calendar.name: a calendar named '", calendar.name(), "' already exists"));
    }
    RETURN_IF_ERROR(id.status());
    out = ReadCalendar(c, sql_, calendar.name());
    return out.status();
  }));
  return out;
}

absl::StatusOr<v1::Calendar> SqlStore::GetCalendar(std::string_view name) {
  const std::string n(name);
  absl::StatusOr<v1::Calendar> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) {
    out = ReadCalendar(c, sql_, n);
    return out.status();
  }));
  return out;
}

absl::StatusOr<std::vector<v1::Calendar>> SqlStore::ListCalendars() {
  std::vector<v1::Calendar> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out.clear();
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_calendars, {}));
    for (const SqlRow& row : rows) {
      ASSIGN_OR_RETURN(v1::Calendar calendar, CalendarFromRow(row));
      out.push_back(std::move(calendar));
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<v1::Calendar> SqlStore::UpdateCalendar(const v1::Calendar& calendar,
                                                      const std::vector<CalendarCursor>& cursors,
                                                      int64_t now_ms) {
  const std::string& name = calendar.name();
  absl::StatusOr<v1::Calendar> out;
  RETURN_IF_ERROR(db_->Transact([&](SqlConn& c) -> absl::Status {
    // Later than every calendar's update time, not only this one's: the
    // newest update time is part of the calendars' version, which must
    // move even when another calendar was changed in the same millisecond.
    // (The lock keeps two edits from both taking the same time.)
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.lock_calendars_newest_update, {}));
    const int64_t newest = rows.empty() ? 0 : ColInt(rows.front(), 0);
    const int64_t update_ms = std::max(now_ms, newest + 1);
    ASSIGN_OR_RETURN(ExecResult r,
                     c.Exec(sql_.update_calendar,
                            {SqlBytes(CalendarSpec(calendar)), SqlInt(update_ms), SqlText(name)}));
    if (r.affected_rows == 0) return Missing(name);
    for (const CalendarCursor& cursor : cursors) {
      const std::string& sql = cursor.kind == CalendarUser::Kind::kJob
                                   ? sql_.move_calendar_job
                                   : sql_.move_calendar_workflow;
      RETURN_IF_ERROR(c.Exec(sql, {SqlInt(cursor.next_fire_ms), SqlInt(now_ms), SqlInt(now_ms),
                                   SqlInt(cursor.id), SqlText(name)})
                          .status());
    }
    out = ReadCalendar(c, sql_, name);
    return out.status();
  }));
  return out;
}

absl::Status SqlStore::DeleteCalendar(std::string_view name) {
  const std::string n(name);
  return db_->Transact([&](SqlConn& c) -> absl::Status {
    RETURN_IF_ERROR(ReadCalendar(c, sql_, n).status());
    for (const auto& [sql, kind] : {std::pair{&sql_.select_calendar_job, "job"},
                                    std::pair{&sql_.select_calendar_workflow, "workflow"}}) {
      ASSIGN_OR_RETURN(std::vector<SqlRow> users, c.Query(*sql, {SqlText(n)}));
      if (!users.empty()) {
        return absl::FailedPreconditionError(
            absl::StrCat("calendar '", n, "' is named by ", kind, " ", ColInt(users.front(), 0)));
      }
    }
    return c.Exec(sql_.delete_calendar, {SqlText(n)}).status();
  });
}

absl::StatusOr<std::vector<CalendarUser>> SqlStore::ListCalendarUsers(std::string_view name) {
  const std::string n(name);
  std::vector<CalendarUser> out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    out.clear();
    ASSIGN_OR_RETURN(std::vector<SqlRow> jobs, c.Query(sql_.select_calendar_jobs, {SqlText(n)}));
    for (const SqlRow& row : jobs) {
      ASSIGN_OR_RETURN(DueJob job, DueJobFromRow(row));
      CalendarUser& user = out.emplace_back();
      user.kind = CalendarUser::Kind::kJob;
      user.id = job.job.id();
      user.next_fire_ms = job.next_fire_ms;
      user.running = job.job.state() == v1::JOB_STATE_RUNNING;
      user.job = std::move(job.job);
    }
    ASSIGN_OR_RETURN(std::vector<SqlRow> workflows,
                     c.Query(sql_.select_calendar_workflows, {SqlText(n)}));
    for (const SqlRow& row : workflows) {
      ASSIGN_OR_RETURN(v1::Workflow workflow, WorkflowFromRow(row));
      CalendarUser& user = out.emplace_back();
      user.kind = CalendarUser::Kind::kWorkflow;
      user.id = workflow.id();
      user.next_fire_ms = ColInt(row, 4);  // kWorkflowColumns' next_fire_ms.
      user.running = workflow.state() == v1::WORKFLOW_STATE_RUNNING;
      user.workflow = std::move(workflow);
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<TableVersion> SqlStore::GetCalendarsVersion() {
  TableVersion out;
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql_.select_calendars_version, {}));
    if (rows.empty()) return absl::InternalError("calendars version: no row");
    out = {ColInt(rows.front(), 0), ColInt(rows.front(), 1), ColInt(rows.front(), 2)};
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace gnomon::store::internal

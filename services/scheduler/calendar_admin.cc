#include "services/scheduler/calendar_admin.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/next_fire.h"

namespace gnomon::scheduler {
namespace {

using checks::CheckRange;

absl::Status CheckName(std::string_view name) {
  return checks::CheckString("name", name, 128, checks::Charset::kName, 1);
}

// The request's calendar within its limits (docs/operations.md, "Input
// limits"); what the dates and windows mean is schedule::ValidateCalendar's.
absl::Status CheckFields(const v1::Calendar& c) {
  using checks::Charset;
  using checks::CheckString;
  std::vector<absl::Status> each = {
      CheckRange("calendar.id", c.id(), 0, INT64_MAX),
      CheckString("calendar.name", c.name(), 64, Charset::kName, 1),
      checks::CheckText("calendar.description", c.description(), schedule::kMaxCalendarDescription),
      CheckString("calendar.time_zone", c.time_zone(), 64, Charset::kToken),
      checks::CheckCount("calendar.weekdays", c.weekdays_size(), 7),
      checks::CheckCount("calendar.excluded_dates", c.excluded_dates_size(),
                         schedule::kMaxCalendarDates),
      checks::CheckCount("calendar.included_dates", c.included_dates_size(),
                         schedule::kMaxCalendarDates),
      checks::CheckCount("calendar.windows", c.windows_size(), schedule::kMaxCalendarWindows),
      checks::CheckTimestamp("calendar.create_time", c.create_time()),
      checks::CheckTimestamp("calendar.update_time", c.update_time()),
  };
  for (const absl::Status& s : each) RETURN_IF_ERROR(s);
  for (int i = 0; i < c.excluded_dates_size(); ++i) {
    RETURN_IF_ERROR(CheckString(checks::Indexed("calendar.excluded_dates", i), c.excluded_dates(i),
                                10, Charset::kToken, 5));
  }
  for (int i = 0; i < c.included_dates_size(); ++i) {
    RETURN_IF_ERROR(CheckString(checks::Indexed("calendar.included_dates", i), c.included_dates(i),
                                10, Charset::kToken, 10));
  }
  for (int i = 0; i < c.windows_size(); ++i) {
    RETURN_IF_ERROR(
        CheckString(checks::Indexed("calendar.windows", i), c.windows(i), 11, Charset::kToken, 11));
  }
  return schedule::ValidateCalendar(c);
}

// The calendar as written: what the server sets cleared.
v1::Calendar Written(const v1::Calendar& in) {
  v1::Calendar c = in;
  c.clear_id();
  c.clear_create_time();
  c.clear_update_time();
  return c;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const schedule::Calendar>> CalendarOf(store::CalendarStore* store,
                                                                     const v1::Schedule& schedule,
                                                                     std::string_view field) {
  const std::string& name = schedule.calendar();
  if (name.empty()) return nullptr;
  if (store == nullptr) return absl::UnimplementedError("calendars are not served here");
  absl::StatusOr<v1::Calendar> c = store->GetCalendar(name);
  if (absl::IsNotFound(c.status())) {
    return absl::NotFoundError(absl::StrCat(absl::string_view(field.data(), field.size()),
                                            ": no calendar is named '", name,
                                            "' (gnomonctl calendar list)"));
  }
  RETURN_IF_ERROR(c.status());
  ASSIGN_OR_RETURN(schedule::Calendar compiled, schedule::Calendar::Compile(*c));
  return std::make_shared<const schedule::Calendar>(std::move(compiled));
}

absl::StatusOr<v1::Calendar> CalendarAdmin::Create(const v1::Calendar& calendar) {
  RETURN_IF_ERROR(CheckFields(calendar));
  const v1::Calendar c = Written(calendar);
  return store_->CreateCalendar(c, clock_->NowMillis());
}

absl::StatusOr<v1::Calendar> CalendarAdmin::Get(std::string_view name) {
  RETURN_IF_ERROR(CheckName(name));
  return store_->GetCalendar(name);
}

absl::StatusOr<v1::ListCalendarsResponse> CalendarAdmin::List() {
  ASSIGN_OR_RETURN(std::vector<v1::Calendar> all, store_->ListCalendars());
  v1::ListCalendarsResponse resp;
  for (v1::Calendar& c : all) *resp.add_calendars() = std::move(c);
  return resp;
}

absl::StatusOr<v1::Calendar> CalendarAdmin::Update(const v1::Calendar& calendar) {
  RETURN_IF_ERROR(CheckFields(calendar));
  const v1::Calendar c = Written(calendar);
  ASSIGN_OR_RETURN(schedule::Calendar compiled, schedule::Calendar::Compile(c));
  ASSIGN_OR_RETURN(std::vector<store::CalendarUser> users, store_->ListCalendarUsers(c.name()));
  const int64_t now = clock_->NowMillis();
  std::vector<store::CalendarCursor> cursors;
  std::vector<int64_t> jobs;
  for (const store::CalendarUser& u : users) {
    if (!u.running) continue;
    const bool job = u.kind == store::CalendarUser::Kind::kJob;
    const v1::Job shape = job ? u.job : WorkflowSlots(u.workflow);
    std::shared_ptr<const schedule::CompiledCron> cron = CompileJobCron(shape);
    // Every running user, moved or not: its update time moves with it, so
    // each replica arms it again on the new rules.
    const int64_t next = SlotFromNow(shape, u.next_fire_ms, now, {cron.get(), &compiled});
    cursors.push_back({u.kind, u.id, next});
    if (job) jobs.push_back(u.id);
  }
  // NotFound from here if there is no such calendar (then nothing names it).
  ASSIGN_OR_RETURN(v1::Calendar updated, store_->UpdateCalendar(c, cursors, now));
  if (loop_ != nullptr) {
    for (int64_t id : jobs) loop_->Invalidate(id);
  }
  return updated;
}

absl::Status CalendarAdmin::Delete(std::string_view name) {
  RETURN_IF_ERROR(CheckName(name));
  return store_->DeleteCalendar(name);
}

}  // namespace gnomon::scheduler

// AdminService: the calendar methods of gnomon.v1.JobAdmin over
// CalendarAdmin. Calendars belong to no group: any role reads them, and
// writing one (it moves the next fires of every job and workflow naming
// it, whatever their group) is an administrator's. Every change is
// audited as "calendar/NAME".
#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/admin_answer.h"
#include "services/scheduler/admin_service.h"

namespace gnomon::scheduler {
namespace {

std::function<std::string()> CalendarObject(std::string name) {
  return [name = std::move(name)] { return absl::StrCat("calendar/", name); };
}

}  // namespace

absl::Status AdminService::CheckCalendars() const {
  if (calendars_ == nullptr) return absl::UnimplementedError("calendars are not served here");
  return absl::OkStatus();
}

std::string AdminService::CalendarJson(const std::string& name) {
  if (calendars_ == nullptr) return "";
  absl::StatusOr<v1::Calendar> c = calendars_->Get(name);
  return c.ok() ? AuditLog::Json(*c) : "";
}

grpc::Status AdminService::CreateCalendar(Ctx* c, const v1::CreateCalendarRequest* r,
                                          v1::Calendar* o) {
  return Answer(__func__, c, o,
                [&](const Caller&) -> absl::StatusOr<v1::Calendar> {
                  RETURN_IF_ERROR(CheckCalendars());
                  return calendars_->Create(r->calendar());
                },
                {r, CalendarObject(r->calendar().name()), {}});
}

grpc::Status AdminService::GetCalendar(Ctx* c, const v1::GetCalendarRequest* r, v1::Calendar* o) {
  return Answer(__func__, c, o, [&](const Caller&) -> absl::StatusOr<v1::Calendar> {
    RETURN_IF_ERROR(CheckCalendars());
    return calendars_->Get(r->name());
  });
}

grpc::Status AdminService::ListCalendars(Ctx* c, const v1::ListCalendarsRequest*,
                                         v1::ListCalendarsResponse* o) {
  return Answer(__func__, c, o, [&](const Caller&) -> absl::StatusOr<v1::ListCalendarsResponse> {
    RETURN_IF_ERROR(CheckCalendars());
    return calendars_->List();
  });
}

grpc::Status AdminService::UpdateCalendar(Ctx* c, const v1::UpdateCalendarRequest* r,
                                          v1::Calendar* o) {
  const std::string name = r->calendar().name();
  return Answer(__func__, c, o,
                [&](const Caller&) -> absl::StatusOr<v1::Calendar> {
                  RETURN_IF_ERROR(CheckCalendars());
                  return calendars_->Update(r->calendar());
                },
                {r, CalendarObject(name), [this, name] { return CalendarJson(name); }});
}

grpc::Status AdminService::DeleteCalendar(Ctx* c, const v1::DeleteCalendarRequest* r,
                                          v1::DeleteCalendarResponse* o) {
  const std::string name = r->name();
  return Answer(__func__, c, o,
                [&](const Caller&) -> absl::StatusOr<v1::DeleteCalendarResponse> {
                  RETURN_IF_ERROR(CheckCalendars());
                  RETURN_IF_ERROR(calendars_->Delete(name));
                  return v1::DeleteCalendarResponse();
                },
                {r, CalendarObject(name), [this, name] { return CalendarJson(name); }});
}

}  // namespace gnomon::scheduler

// The calendar calls of the fake JobAdmin (fake_servers.h; test only):
// calendars kept by name as FakeNamed keeps them (fake_named.h). Nothing
// checks dates or windows.
//
//   FakeCalendars c;
//   v1::Calendar created;
//   c.CreateCalendar(request, &created);   // created.id() == 1
//   c.Names("job.schedule.calendar", job.schedule());  // OK, or NOT_FOUND
//
// Thread safety: none; FakeState calls it under its mutex.
#ifndef GNOMON_CLI_FAKE_CALENDARS_H_
#define GNOMON_CLI_FAKE_CALENDARS_H_

#include <string>

#include "cli/fake_named.h"
#include "gnomon/v1/admin.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli::testing {

struct FakeCalendars : FakeNamed<v1::Calendar> {
  FakeCalendars() : FakeNamed({"calendar", "a calendar", "calendar", "calendar"}) {}

  grpc::Status CreateCalendar(const v1::CreateCalendarRequest& req, v1::Calendar* resp) {
    return Create(req.calendar(), resp);
  }
  grpc::Status GetCalendar(const v1::GetCalendarRequest& req, v1::Calendar* resp) {
    return Get(req.name(), resp);
  }
  grpc::Status ListCalendars(const v1::ListCalendarsRequest&, v1::ListCalendarsResponse* resp) {
    for (const auto& [name, c] : stored) *resp->add_calendars() = c;
    return grpc::Status::OK;
  }
  grpc::Status UpdateCalendar(const v1::UpdateCalendarRequest& req, v1::Calendar* resp) {
    return Replace(req.calendar(), resp);
  }
  grpc::Status DeleteCalendar(const v1::DeleteCalendarRequest& req, v1::DeleteCalendarResponse*) {
    return Delete(req.name());
  }

  // OK when `schedule` names no calendar or a stored one; else NOT_FOUND
  // naming `field`, as the server answers.
  grpc::Status Names(const std::string& field, const v1::Schedule& schedule) const {
    if (schedule.calendar().empty()) return grpc::Status::OK;
    return Known(field, schedule.calendar());
  }
};

}  // namespace gnomon::cli::testing

#endif  // GNOMON_CLI_FAKE_CALENDARS_H_

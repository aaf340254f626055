// The calendar calls of the fake JobAdmin (fake_servers.h; test only):
// calendars kept in memory by name and answered as admin.proto describes
// the server's: ids and times assigned, an unknown name NOT_FOUND, a name
// taken ALREADY_EXISTS, and a delete refused (FAILED_PRECONDITION) while a
// name in `in_use` names it. Nothing checks dates or windows.
//
//   FakeCalendars c;
//   v1::Calendar created;
//   c.CreateCalendar(request, &created);   // created.id() == 1
//   c.Names("job.schedule.calendar", job.schedule());  // OK, or NOT_FOUND
//
// Thread safety: none; FakeState calls it under its mutex.
#ifndef GNOMON_CLI_FAKE_CALENDARS_H_
#define GNOMON_CLI_FAKE_CALENDARS_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "gnomon/v1/admin.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli::testing {

struct FakeCalendars {
  // Stored calendars, by name.
  std::map<std::string, v1::Calendar> calendars;
  // Calendars a job or workflow names, refused by DeleteCalendar.
  std::set<std::string> in_use;
  int64_t next_id = 1;
  // Creation and update times of what it stores: 2024-05-01T12:00:00Z.
  int64_t now_seconds = 1714564800;

  grpc::Status CreateCalendar(const v1::CreateCalendarRequest& req, v1::Calendar* resp) {
    v1::Calendar c = req.calendar();
    if (c.name().empty()) return Status(grpc::StatusCode::INVALID_ARGUMENT, "name is required");
    if (calendars.count(c.name()) > 0) {
      return Status(grpc::StatusCode::ALREADY_EXISTS,
                    absl::StrCat("calendar.name: a calendar is named '", c.name(), "'"));
    }
    c.set_id(next_id++);
    c.mutable_create_time()->set_seconds(now_seconds);
    c.mutable_update_time()->set_seconds(now_seconds);
    *resp = calendars[c.name()] = c;
    return grpc::Status::OK;
  }

  grpc::Status GetCalendar(const v1::GetCalendarRequest& req, v1::Calendar* resp) {
    auto it = calendars.find(req.name());
    if (it == calendars.end()) return NotFound("name", req.name());
    *resp = it->second;
    return grpc::Status::OK;
  }

  grpc::Status ListCalendars(const v1::ListCalendarsRequest&, v1::ListCalendarsResponse* resp) {
    for (const auto& [name, c] : calendars) *resp->add_calendars() = c;
    return grpc::Status::OK;
  }

  grpc::Status UpdateCalendar(const v1::UpdateCalendarRequest& req, v1::Calendar* resp) {
    auto it = calendars.find(req.calendar().name());
    if (it == calendars.end()) return NotFound("calendar.name", req.calendar().name());
    v1::Calendar c = req.calendar();
    c.set_id(it->second.id());
    *c.mutable_create_time() = it->second.create_time();
    c.mutable_update_time()->set_seconds(now_seconds + 60);
    *resp = it->second = c;
    return grpc::Status::OK;
  }

  grpc::Status DeleteCalendar(const v1::DeleteCalendarRequest& req, v1::DeleteCalendarResponse*) {
    if (calendars.count(req.name()) == 0) return NotFound("name", req.name());
    if (in_use.count(req.name()) > 0) {
      return Status(grpc::StatusCode::FAILED_PRECONDITION,
                    absl::StrCat("name: job 7 names calendar '", req.name(), "'"));
    }
    calendars.erase(req.name());
    return grpc::Status::OK;
  }

  // OK when `schedule` names no calendar or a stored one; else NOT_FOUND
  // naming `field`, as the server answers.
  grpc::Status Names(const std::string& field, const v1::Schedule& schedule) const {
    if (schedule.calendar().empty() || calendars.count(schedule.calendar()) > 0) {
      return grpc::Status::OK;
    }
    return Status(grpc::StatusCode::NOT_FOUND,
                  absl::StrCat(field, ": no calendar is named '", schedule.calendar(),
                               "' (gnomonctl calendar list)"));
  }

 private:
  static grpc::Status Status(grpc::StatusCode code, const std::string& message) {
    return grpc::Status(code, message);
  }
  static grpc::Status NotFound(const std::string& field, const std::string& name) {
    return Status(grpc::StatusCode::NOT_FOUND,
                  absl::StrCat(field, ": no calendar is named '", name, "'"));
  }
};

}  // namespace gnomon::cli::testing

#endif  // GNOMON_CLI_FAKE_CALENDARS_H_

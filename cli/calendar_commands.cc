// gnomonctl calendar create|list|get|update|delete: the calendars schedules
// name (Schedule.calendar). Anyone reads them; writing one takes an admin
// token. update reads the calendar, replaces the fields whose flags are
// given and sends it whole (UpdateCalendar replaces a calendar).
#include <string>

#include "cli/command.h"
#include "cli/printers.h"

namespace gnomon::cli {
namespace {

int PrintCalendar(CommandContext& c, const v1::Calendar& calendar) {
  if (c.structured()) return c.PrintMessage(calendar);
  PrintCalendarDetails(calendar, c.env().zone, c.out());
  return kExitOk;
}

grpc::Status FetchCalendar(CommandContext& c, const std::string& name, v1::Calendar* calendar) {
  v1::GetCalendarRequest req;
  req.set_name(name);
  auto rpc = c.NewRpcContext();
  return c.admin().GetCalendar(rpc.get(), req, calendar);
}

int Create(CommandContext& c) {
  absl::StatusOr<v1::CreateCalendarRequest> req = BuildCreateCalendarRequest(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  v1::Calendar created;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().CreateCalendar(rpc.get(), *req, &created); !s.ok()) {
    return c.RpcError(s);
  }
  return PrintCalendar(c, created);
}

int List(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::ListCalendarsResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().ListCalendars(rpc.get(), v1::ListCalendarsRequest(), &resp);
      !s.ok()) {
    return c.RpcError(s);
  }
  if (c.structured()) return c.PrintMessage(resp);
  PrintCalendarTable(resp.calendars(), c.out());
  return kExitOk;
}

int Get(CommandContext& c) {
  absl::StatusOr<std::string> name = PositionalName(c.args());
  if (!name.ok()) return c.UsageError(name.status());
  v1::Calendar calendar;
  if (grpc::Status s = FetchCalendar(c, *name, &calendar); !s.ok()) return c.RpcError(s);
  return PrintCalendar(c, calendar);
}

int Update(CommandContext& c) {
  absl::StatusOr<std::string> name = PositionalName(c.args());
  if (!name.ok()) return c.UsageError(name.status());
  if (absl::Status s = ExpectSomeFlag(c.args(), CalendarFlagSpecs()); !s.ok()) {
    return c.UsageError(s);
  }
  // Check the flags before talking to the server.
  v1::Calendar probe;
  if (absl::Status s = ApplyCalendarFlags(c.args(), &probe); !s.ok()) return c.UsageError(s);
  v1::UpdateCalendarRequest req;
  if (grpc::Status s = FetchCalendar(c, *name, req.mutable_calendar()); !s.ok()) {
    return c.RpcError(s);
  }
  if (absl::Status s = ApplyCalendarFlags(c.args(), req.mutable_calendar()); !s.ok()) {
    return c.UsageError(s);
  }
  v1::Calendar updated;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().UpdateCalendar(rpc.get(), req, &updated); !s.ok()) {
    return c.RpcError(s);
  }
  return PrintCalendar(c, updated);
}

int Delete(CommandContext& c) {
  absl::StatusOr<std::string> name = PositionalName(c.args());
  if (!name.ok()) return c.UsageError(name.status());
  v1::DeleteCalendarRequest req;
  req.set_name(*name);
  v1::DeleteCalendarResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().DeleteCalendar(rpc.get(), req, &resp); !s.ok()) {
    return c.RpcError(s);
  }
  if (c.structured()) return c.PrintMessage(resp);
  c.out() << "deleted calendar " << *name << "\n";
  return kExitOk;
}

}  // namespace

std::vector<Command> CalendarCommands() {
  return {
      {"calendar", "create",
       "NAME [--zone ZONE] [--weekdays DAY,...] [--exclude DATE,...] [--include DATE,...] "
       "[--window HH:MM-HH:MM ...] [--description D]",
       "Create a calendar: the days and times of day the schedules naming it (--calendar) may "
       "fire (admin).",
       CalendarFlagSpecs(),
       "gnomonctl calendar create workdays --zone Europe/Berlin --weekdays MON,TUE,WED,THU,FRI "
       "--exclude 12-25,12-26,2026-10-03 --include 2026-10-10\n"
       "gnomonctl calendar create office-hours --weekdays mon,tue,wed,thu,fri --window 09:00-12:00 "
       "--window 13:00-17:00\n"
       "gnomonctl calendar create nights --window 22:00-06:00",
       Create},
      {"calendar",
       "list",
       "",
       "List the calendars.",
       {},
       "gnomonctl calendar list\ngnomonctl calendar list -o yaml",
       List},
      {"calendar",
       "get",
       "NAME",
       "Show one calendar with every date it lists.",
       {},
       "gnomonctl calendar get workdays",
       Get},
      {"calendar", "update", "NAME [calendar create flags]",
       "Change a calendar; only the given flags change ('' empties a list). The next fires of "
       "the jobs and workflows naming it move at once (admin).",
       CalendarFlagSpecs(),
       "gnomonctl calendar update workdays --exclude 12-24,12-25,12-26,2026-10-03\n"
       "gnomonctl calendar update office-hours --window ''",
       Update},
      {"calendar",
       "delete",
       "NAME",
       "Delete a calendar; refused while a job or workflow names it (admin).",
       {},
       "gnomonctl calendar delete office-hours",
       Delete},
  };
}

}  // namespace gnomon::cli

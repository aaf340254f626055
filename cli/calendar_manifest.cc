#include "cli/calendar_manifest.h"

#include "cli/manifests.h"
#include "google/protobuf/util/message_differencer.h"

namespace gnomon::cli {
namespace {

// `calendars` as documents.
std::vector<v1::Manifest> Manifests(const google::protobuf::RepeatedPtrField<v1::Calendar>& all) {
  std::vector<v1::Manifest> docs;
  for (const v1::Calendar& calendar : all) {
    v1::Manifest& m = docs.emplace_back();
    m.set_kind("Calendar");
    *m.mutable_calendar() = DeclaredCalendar(calendar);
  }
  return docs;
}

int GetCalendar(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {"NAME"}); !s.ok()) return c.UsageError(s);
  v1::GetCalendarRequest req;
  req.set_name(c.args().positionals()[0]);
  v1::ListCalendarsResponse one;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().GetCalendar(rpc.get(), req, one.add_calendars()); !s.ok()) {
    return c.RpcError(s);
  }
  return PrintManifests(c, Manifests(one.calendars()));
}

int GetCalendars(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::ListCalendarsResponse all;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().ListCalendars(rpc.get(), v1::ListCalendarsRequest(), &all);
      !s.ok()) {
    return c.RpcError(s);
  }
  return PrintManifests(c, Manifests(all.calendars()));
}

}  // namespace

absl::Status CheckCalendarManifest(const v1::Manifest& m) {
  return CheckUngroupedManifest(m, "calendar", m.calendar().name(), "calendars");
}

v1::Calendar DeclaredCalendar(v1::Calendar calendar) {
  calendar.clear_id();
  calendar.clear_create_time();
  calendar.clear_update_time();
  return calendar;
}

grpc::Status ApplyCalendar(CommandContext& c, const v1::Manifest& manifest, bool dry_run,
                           std::string* outcome) {
  if (absl::Status s = CheckCalendarManifest(manifest); !s.ok()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(s.message()));
  }
  const v1::Calendar want = DeclaredCalendar(manifest.calendar());
  v1::Calendar current;
  ByNameCalls calls;
  calls.get = [&] {
    v1::GetCalendarRequest req;
    req.set_name(want.name());
    auto rpc = c.NewRpcContext();
    return c.admin().GetCalendar(rpc.get(), req, &current);
  };
  calls.unchanged = [&] {
    return google::protobuf::util::MessageDifferencer::Equivalent(DeclaredCalendar(current), want);
  };
  calls.create = [&] {
    v1::CreateCalendarRequest req;
    *req.mutable_calendar() = want;
    v1::Calendar created;
    auto rpc = c.NewRpcContext();
    return c.admin().CreateCalendar(rpc.get(), req, &created);
  };
  calls.replace = [&] {
    v1::UpdateCalendarRequest req;
    *req.mutable_calendar() = want;
    v1::Calendar updated;
    auto rpc = c.NewRpcContext();
    return c.admin().UpdateCalendar(rpc.get(), req, &updated);
  };
  return ApplyByName(calls, dry_run, outcome);
}

std::vector<Command> CalendarGetCommands() {
  return {
      {"get",
       "calendar",
       "NAME",
       "Print a calendar as an apply document (YAML).",
       {},
       "gnomonctl get calendar workdays > workdays.yaml",
       GetCalendar},
      {"get",
       "calendars",
       "",
       "Print every calendar as apply documents (YAML).",
       {},
       "gnomonctl get calendars > calendars.yaml",
       GetCalendars},
  };
}

}  // namespace gnomon::cli

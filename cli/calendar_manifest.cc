#include "cli/calendar_manifest.h"

#include "absl/strings/str_cat.h"
#include "cli/yaml_json.h"
#include "google/protobuf/util/message_differencer.h"

namespace gnomon::cli {
namespace {

v1::Manifest Manifest(const v1::Calendar& calendar) {
  v1::Manifest m;
  m.set_kind("Calendar");
  *m.mutable_calendar() = DeclaredCalendar(calendar);
  return m;
}

// Prints `calendars` as YAML documents, "---" between them.
int PrintManifests(CommandContext& c, const google::protobuf::RepeatedPtrField<v1::Calendar>& all) {
  for (int i = 0; i < all.size(); ++i) {
    absl::StatusOr<std::string> text = MessageToYaml(Manifest(all[i]));
    if (!text.ok()) return c.Fail(std::string(text.status().message()));
    c.out() << (i > 0 ? "---\n" : "") << *text;
  }
  return kExitOk;
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
  return PrintManifests(c, one.calendars());
}

int GetCalendars(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::ListCalendarsResponse all;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().ListCalendars(rpc.get(), v1::ListCalendarsRequest(), &all);
      !s.ok()) {
    return c.RpcError(s);
  }
  return PrintManifests(c, all.calendars());
}

}  // namespace

absl::Status CheckCalendarManifest(const v1::Manifest& m) {
  if (m.calendar().name().empty()) return absl::InvalidArgumentError("calendar.name is required");
  if (!m.app().empty()) {
    return absl::InvalidArgumentError("app: a calendar belongs to no group; remove app");
  }
  return absl::OkStatus();
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
  v1::GetCalendarRequest get;
  get.set_name(want.name());
  v1::Calendar current;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().GetCalendar(rpc.get(), get, &current);
  if (s.error_code() == grpc::StatusCode::NOT_FOUND) {
    *outcome = "created";
    if (dry_run) return grpc::Status::OK;
    v1::CreateCalendarRequest req;
    *req.mutable_calendar() = want;
    v1::Calendar created;
    auto create_rpc = c.NewRpcContext();
    return c.admin().CreateCalendar(create_rpc.get(), req, &created);
  }
  if (!s.ok()) return s;
  if (google::protobuf::util::MessageDifferencer::Equivalent(DeclaredCalendar(current), want)) {
    *outcome = "unchanged";
    return grpc::Status::OK;
  }
  *outcome = "configured";
  if (dry_run) return grpc::Status::OK;
  v1::UpdateCalendarRequest req;
  *req.mutable_calendar() = want;
  v1::Calendar updated;
  auto update_rpc = c.NewRpcContext();
  return c.admin().UpdateCalendar(update_rpc.get(), req, &updated);
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

// gnomonctl cron next: upcoming fire times of a cron expression, computed
// locally with the same schedule library the scheduler uses (no server);
// with --calendar NAME the server computes them (it holds the calendar:
// PreviewSchedule), and the expression's slots the calendar skips are shown
// between them.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/format.h"
#include "gnomon/v1/admin.pb.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "services/common/schedule/param_template.h"
#include "services/common/schedule/schedule.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cli {
namespace {

std::vector<FlagSpec> CronNextFlagSpecs() {
  return {
      {"tz", "", true, "ZONE", "IANA time zone of the expression (default UTC)."},
      {"from", "", true, "TIME", "Instants after this RFC 3339 time (default now)."},
      {"from-ms", "", true, "MS", "Instants after this UTC epoch millisecond."},
      {"count", "n", true, "N", "How many instants (default 10, at most 1000)."},
      {"params", "", true, "TEMPLATE",
       "Also print these job params as each instant's run gets them ($[yyyyMMdd-1] ...: "
       "docs/parameters.md)."},
      {"calendar", "", true, "NAME",
       "Only the instants calendar NAME allows, and the skipped ones between them (asks the "
       "server; -n at most 100)."},
  };
}

// The server's preview answers at most this many instants.
constexpr int kMaxServerPreview = 100;
// Skipped slots shown between the fires; past this, only counted.
constexpr int kMaxSkippedRows = 50;
// Slots of the expression examined for skipped ones.
constexpr int kMaxSlotsExamined = 10000;

// `message` with line breaks turned into spaces (errors are one line).
std::string OneLine(absl::string_view message) {
  std::string line(message);
  std::replace(line.begin(), line.end(), '\n', ' ');
  return line;
}

// The --from / --from-ms instant, or now.
absl::StatusOr<absl::Time> FromTime(const CommandContext& c) {
  const ParsedArgs& args = c.args();
  if (args.Has("from") && args.Has("from-ms")) {
    return absl::InvalidArgumentError("give --from or --from-ms, not both");
  }
  if (auto from = args.Get("from")) return ParseTimeFlag("--from", *from);
  if (auto ms = args.Get("from-ms")) {
    int64_t value = 0;
    if (!absl::SimpleAtoi(*ms, &value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--from-ms must be epoch milliseconds, not '", *ms, "'"));
    }
    return absl::FromUnixMillis(value);
  }
  return c.env().now();
}

// `s` as a JSON string.
std::string JsonString(const std::string& s) {
  google::protobuf::Value value;
  value.set_string_value(s);
  std::string json;
  (void)google::protobuf::util::MessageToJsonString(value, &json);
  return json;
}

absl::StatusOr<int> Count(const ParsedArgs& args) {
  auto text = args.Get("count");
  if (!text) return 10;
  ASSIGN_OR_RETURN(int64_t n, ParseId("-n", *text));
  if (n > 1000) return absl::InvalidArgumentError("-n is at most 1000");
  if (args.Has("calendar") && n > kMaxServerPreview) {
    return absl::InvalidArgumentError(
        absl::StrCat("-n is at most ", kMaxServerPreview, " with --calendar"));
  }
  return static_cast<int>(n);
}

// The first `count` instants of `schedule` (naming a calendar) after
// `from`, as the server computes them.
grpc::Status ServerPreview(CommandContext& c, const v1::Schedule& schedule, absl::Time from,
                           int count, std::vector<absl::Time>* times) {
  v1::PreviewScheduleRequest req;
  *req.mutable_schedule() = schedule;
  *req.mutable_from_time() = ToTimestamp(from);
  req.set_count(count);
  v1::PreviewScheduleResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().PreviewSchedule(rpc.get(), req, &resp); !s.ok()) return s;
  for (const google::protobuf::Timestamp& t : resp.fire_times()) times->push_back(ToAbslTime(t));
  return grpc::Status::OK;
}

// The slots of `schedule` (without its calendar) after `from` and before
// the last of `fires` that are not fires: those the calendar skipped. At
// most kMaxSlotsExamined slots are looked at; `*more` says whether there
// were more.
std::vector<absl::Time> SkippedSlots(v1::Schedule schedule, absl::Time from,
                                     const std::vector<absl::Time>& fires, bool* more) {
  *more = false;
  std::vector<absl::Time> skipped;
  if (fires.empty()) return skipped;
  schedule.clear_calendar();
  size_t next_fire = 0;
  int examined = 0;
  absl::Time t = from;
  while (examined < kMaxSlotsExamined) {
    absl::StatusOr<std::vector<absl::Time>> chunk = schedule::Preview(schedule, t, 256);
    if (!chunk.ok() || chunk->empty()) return skipped;
    for (absl::Time slot : *chunk) {
      if (slot >= fires.back()) return skipped;
      if (++examined > kMaxSlotsExamined) break;
      while (next_fire < fires.size() && fires[next_fire] < slot) ++next_fire;
      if (next_fire < fires.size() && fires[next_fire] == slot) continue;
      skipped.push_back(slot);
    }
    t = chunk->back();
  }
  *more = true;
  return skipped;
}

int Next(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {"EXPR"}); !s.ok()) {
    return c.UsageError(s);
  }
  absl::StatusOr<absl::Time> from = FromTime(c);
  if (!from.ok()) return c.UsageError(from.status());
  absl::StatusOr<int> count = Count(c.args());
  if (!count.ok()) return c.UsageError(count.status());
  v1::Schedule schedule;
  schedule.mutable_cron()->set_expression(c.args().positionals()[0]);
  schedule.mutable_cron()->set_time_zone(c.args().Get("tz").value_or(""));
  absl::TimeZone zone = absl::UTCTimeZone();
  if (!schedule.cron().time_zone().empty()) {
    auto loaded = schedule::LoadZone(schedule.cron().time_zone());
    if (!loaded.ok()) {
      return c.Fail(OneLine(loaded.status().message()), kExitUsage);
    }
    zone = *loaded;
  }
  absl::StatusOr<std::vector<absl::Time>> times = schedule::Preview(schedule, *from, *count);
  if (!times.ok()) {
    // An expression that does not parse is a usage error: one line, exit 2.
    return c.Fail(OneLine(times.status().message()), kExitUsage);
  }
  std::optional<schedule::ParamTemplate> params;
  if (auto text = c.args().Get("params")) {
    absl::StatusOr<schedule::ParamTemplate> parsed = schedule::ParamTemplate::Parse(*text);
    if (!parsed.ok())
      return c.Fail(absl::StrCat("--params: ", parsed.status().message()), kExitUsage);
    params = *std::move(parsed);
  }
  // With a calendar the server's instants replace the local ones (which
  // checked the expression first), and the skipped slots are worked out.
  const std::string calendar = c.args().Get("calendar").value_or("");
  std::vector<absl::Time> skipped;
  bool more_skipped = false;
  if (!calendar.empty()) {
    schedule.set_calendar(calendar);
    times->clear();
    if (grpc::Status s = ServerPreview(c, schedule, *from, *count, &*times); !s.ok()) {
      return c.RpcError(s);
    }
    skipped = SkippedSlots(schedule, *from, *times, &more_skipped);
  }
  if (c.structured()) {
    std::string json = "{\"next_ms\": [";
    for (size_t i = 0; i < times->size(); ++i) {
      absl::StrAppend(&json, i == 0 ? "" : ", ", absl::ToUnixMillis((*times)[i]));
    }
    absl::StrAppend(&json, "]");
    if (!calendar.empty()) {
      absl::StrAppend(&json, ", \"skipped_ms\": [");
      for (size_t i = 0; i < skipped.size(); ++i) {
        absl::StrAppend(&json, i == 0 ? "" : ", ", absl::ToUnixMillis(skipped[i]));
      }
      absl::StrAppend(&json, "]");
    }
    if (params) {
      absl::StrAppend(&json, ", \"params\": [");
      for (size_t i = 0; i < times->size(); ++i) {
        absl::StrAppend(&json, i == 0 ? "" : ", ", JsonString(params->Render((*times)[i], zone)));
      }
      absl::StrAppend(&json, "]");
    }
    return c.PrintJsonText(absl::StrCat(json, "}\n"));
  }
  if (times->empty()) {
    c.out() << "the expression does not fire after " << FormatUtc(*from)
            << (calendar.empty() ? ""
                                 : absl::StrCat(" at an instant calendar ", calendar, " allows"))
            << "\n";
    return kExitOk;
  }
  const std::string zone_name =
      schedule.cron().time_zone().empty() ? std::string("UTC") : schedule.cron().time_zone();
  std::vector<std::string> columns = {"#", absl::StrCat("TIME (", zone_name, ")"), "UTC"};
  if (params) columns.push_back("PARAMS");
  if (!calendar.empty()) columns.push_back("CALENDAR");
  const bool show_skipped = !more_skipped && skipped.size() <= kMaxSkippedRows;
  Table table(columns);
  size_t next_skipped = 0;
  for (size_t i = 0; i < times->size(); ++i) {
    const absl::Time t = (*times)[i];
    for (; show_skipped && next_skipped < skipped.size() && skipped[next_skipped] < t;
         ++next_skipped) {
      const absl::Time s = skipped[next_skipped];
      std::vector<std::string> row = {"-", FormatAbslScheduleTime(s, zone), FormatUtc(s)};
      if (params) row.push_back("");
      row.push_back("skipped");
      table.AddRow(row);
    }
    std::vector<std::string> row = {absl::StrCat(i + 1), FormatAbslScheduleTime(t, zone),
                                    FormatUtc(t)};
    if (params) row.push_back(params->Render(t, zone));
    if (!calendar.empty()) row.push_back("fires");
    table.AddRow(row);
  }
  table.Render(c.out());
  if (!show_skipped) {
    c.out() << "(" << (more_skipped ? "more than " : "") << skipped.size()
            << " slots between these are skipped by calendar " << calendar
            << "; -o json lists them)\n";
  }
  if (times->size() < static_cast<size_t>(*count)) {
    c.out() << "(the expression fires no more after these"
            << (calendar.empty() ? "" : absl::StrCat(" that calendar ", calendar, " allows"))
            << ")\n";
  }
  return kExitOk;
}

}  // namespace

std::vector<Command> CronCommands() {
  return {
      {"cron", "next",
       "EXPR [--tz ZONE] [--from TIME | --from-ms MS] [-n N] [--params TEMPLATE] "
       "[--calendar NAME]",
       "Print the next fire times of a Quartz cron expression (no server needed, but for "
       "--calendar).",
       CronNextFlagSpecs(),
       "gnomonctl cron next '0 0 2 * * ?' --tz Europe/Berlin -n 5\n"
       "gnomonctl cron next '0 */15 * * * ?' --from 2024-03-31T00:00:00Z -o "
       "json\n"
       "gnomonctl cron next '0 30 1 * * ?' --tz Asia/Shanghai --params 'day=$[yyyyMMdd-1]'\n"
       "gnomonctl cron next '0 0 9 * * ?' --tz Europe/Berlin --calendar workdays",
       Next,
       /*offline=*/true,
       /*online_when=*/[](const ParsedArgs& args) { return args.Has("calendar"); }},
  };
}

}  // namespace gnomon::cli

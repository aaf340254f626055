// gnomonctl cron next: upcoming fire times of a cron expression, computed
// locally with the same schedule library the scheduler uses (no server).
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
  };
}

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
  return static_cast<int>(n);
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
  if (c.structured()) {
    std::string json = "{\"next_ms\": [";
    for (size_t i = 0; i < times->size(); ++i) {
      absl::StrAppend(&json, i == 0 ? "" : ", ", absl::ToUnixMillis((*times)[i]));
    }
    absl::StrAppend(&json, "]");
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
    c.out() << "the expression does not fire after " << FormatUtc(*from) << "\n";
    return kExitOk;
  }
  const std::string zone_name =
      schedule.cron().time_zone().empty() ? std::string("UTC") : schedule.cron().time_zone();
  std::vector<std::string> columns = {"#", absl::StrCat("TIME (", zone_name, ")"), "UTC"};
  if (params) columns.push_back("PARAMS");
  Table table(columns);
  for (size_t i = 0; i < times->size(); ++i) {
    std::vector<std::string> row = {absl::StrCat(i + 1), FormatAbslScheduleTime((*times)[i], zone),
                                    FormatUtc((*times)[i])};
    if (params) row.push_back(params->Render((*times)[i], zone));
    table.AddRow(row);
  }
  table.Render(c.out());
  if (times->size() < static_cast<size_t>(*count)) {
    c.out() << "(the expression fires no more after these)\n";
  }
  return kExitOk;
}

}  // namespace

std::vector<Command> CronCommands() {
  return {
      {"cron", "next", "EXPR [--tz ZONE] [--from TIME | --from-ms MS] [-n N] [--params TEMPLATE]",
       "Print the next fire times of a Quartz cron expression (no server "
       "needed).",
       CronNextFlagSpecs(),
       "gnomonctl cron next '0 0 2 * * ?' --tz Europe/Berlin -n 5\n"
       "gnomonctl cron next '0 */15 * * * ?' --from 2024-03-31T00:00:00Z -o "
       "json\n"
       "gnomonctl cron next '0 30 1 * * ?' --tz Asia/Shanghai --params 'day=$[yyyyMMdd-1]'",
       Next,
       /*offline=*/true},
  };
}

}  // namespace gnomon::cli

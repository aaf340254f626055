#include "cli/format.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/names.h"
#include "google/protobuf/util/json_util.h"

namespace gnomon::cli {

Table::Table(std::vector<std::string> header) { rows_.push_back(std::move(header)); }

void Table::AddRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

void Table::Render(std::ostream& out) const {
  std::vector<size_t> widths;
  for (const auto& row : rows_) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  for (const auto& row : rows_) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      const std::string& cell = row[i].empty() ? std::string("-") : row[i];
      line += cell;
      if (i + 1 < row.size()) {
        line += std::string(widths[i] - cell.size() + 2, ' ');
      }
    }
    out << line << "\n";
  }
}

void Details::Add(std::string key, std::string value) {
  rows_.emplace_back(std::move(key), std::move(value));
}

void Details::Render(std::ostream& out) const {
  size_t width = 0;
  for (const auto& row : rows_) width = std::max(width, row.first.size());
  for (const auto& [key, value] : rows_) {
    out << key << ":" << std::string(width - key.size() + 2, ' ') << (value.empty() ? "-" : value)
        << "\n";
  }
}

absl::Time ToAbslTime(const google::protobuf::Timestamp& ts) {
  return absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
}

google::protobuf::Timestamp ToTimestamp(absl::Time t) {
  google::protobuf::Timestamp ts;
  const int64_t seconds = absl::ToUnixSeconds(t);
  ts.set_seconds(seconds);
  ts.set_nanos(static_cast<int32_t>(absl::ToInt64Nanoseconds(t - absl::FromUnixSeconds(seconds))));
  return ts;
}

absl::Duration ToAbslDuration(const google::protobuf::Duration& d) {
  return absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
}

google::protobuf::Duration ToDurationProto(absl::Duration d) {
  google::protobuf::Duration out;
  const int64_t seconds = absl::IDivDuration(d, absl::Seconds(1), &d);
  out.set_seconds(seconds);
  out.set_nanos(static_cast<int32_t>(absl::ToInt64Nanoseconds(d)));
  return out;
}

std::string FormatTime(const google::protobuf::Timestamp& ts, absl::TimeZone zone) {
  if (ts.seconds() == 0 && ts.nanos() == 0) return "-";
  return FormatAbslTime(ToAbslTime(ts), zone);
}

std::string FormatAbslTime(absl::Time t, absl::TimeZone zone) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3S%Ez", t, zone);
}

std::string FormatUtc(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", t, absl::UTCTimeZone());
}

std::string FormatScheduleTime(const google::protobuf::Timestamp& ts, absl::TimeZone zone) {
  if (ts.seconds() == 0 && ts.nanos() == 0) return "-";
  return FormatAbslScheduleTime(ToAbslTime(ts), zone);
}

std::string FormatAbslScheduleTime(absl::Time t, absl::TimeZone zone) {
  return absl::FormatTime("%Y-%m-%d %H:%M:%E*S %Ez", t, zone);
}

absl::TimeZone JobZone(const v1::Job& job) { return ScheduleZone(job.schedule()); }

absl::TimeZone ScheduleZone(const v1::Schedule& schedule) {
  absl::TimeZone zone = absl::UTCTimeZone();
  if (schedule.has_cron() && !schedule.cron().time_zone().empty() &&
      !absl::LoadTimeZone(schedule.cron().time_zone(), &zone)) {
    return absl::UTCTimeZone();
  }
  return zone;
}

std::string FormatDuration(const google::protobuf::Duration& d) {
  return FormatAbslDuration(ToAbslDuration(d));
}

std::string FormatAbslDuration(absl::Duration d) {
  if (d == absl::ZeroDuration()) return "-";
  return absl::FormatDuration(d);
}

namespace {

std::string DescribeKind(const v1::Schedule& schedule) {
  switch (schedule.kind_case()) {
    case v1::Schedule::kCron: {
      const std::string& zone = schedule.cron().time_zone();
      return absl::StrCat("cron '", schedule.cron().expression(), "' ",
                          zone.empty() ? "UTC" : zone);
    }
    case v1::Schedule::kFixRate:
      return absl::StrCat("fix_rate ", FormatDuration(schedule.fix_rate()));
    case v1::Schedule::kFixDelay:
      return absl::StrCat("fix_delay ", FormatDuration(schedule.fix_delay()));
    case v1::Schedule::KIND_NOT_SET:
      break;
  }
  return "manual";
}

}  // namespace

std::string DescribeSchedule(const v1::Schedule& schedule) {
  std::string text = DescribeKind(schedule);
  if (!schedule.calendar().empty()) absl::StrAppend(&text, ", calendar ", schedule.calendar());
  if (schedule.has_jitter() && ToAbslDuration(schedule.jitter()) > absl::ZeroDuration()) {
    absl::StrAppend(&text, ", jitter ", FormatDuration(schedule.jitter()));
  }
  return text;
}

std::string DescribeTask(const v1::Job& job) {
  switch (job.task_case()) {
    case v1::Job::kBean:
      return absl::StrCat("handler ", job.bean().handler());
    case v1::Job::kScript:
      return absl::StrCat("script ", ScriptLanguageName(job.script().language()), " v",
                          job.script().version());
    case v1::Job::TASK_NOT_SET:
      break;
  }
  return "-";
}

std::string DescribeMembership(const v1::Group& group) {
  if (group.membership_case() == v1::Group::kManual) {
    return absl::StrCat("manual ", absl::StrJoin(group.manual().addresses(), ","));
  }
  return "auto";
}

namespace {

// to - from when both are set, "-" otherwise; under a millisecond is "0s",
// not missing.
std::string Span(const google::protobuf::Timestamp* from, const google::protobuf::Timestamp* to) {
  if (from == nullptr || to == nullptr) return "-";
  const absl::Duration d = ToAbslTime(*to) - ToAbslTime(*from);
  return d == absl::ZeroDuration() ? "0s" : absl::FormatDuration(d);
}

}  // namespace

std::string RunDuration(const v1::Run& run) {
  return Span(run.has_start_time() ? &run.start_time() : nullptr,
              run.has_end_time() ? &run.end_time() : nullptr);
}

std::string RunWait(const v1::Run& run) {
  return Span(run.has_trigger_time() ? &run.trigger_time() : nullptr,
              run.has_start_time() ? &run.start_time() : nullptr);
}

absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message, bool indent) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = indent;
  options.always_print_primitive_fields = true;
  options.preserve_proto_field_names = true;
  std::string json;
  auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("cannot print JSON: ", status.ToString()));
  }
  // add_whitespace already ends the document with a newline.
  if (json.empty() || json.back() != '\n') json += "\n";
  return json;
}

}  // namespace gnomon::cli

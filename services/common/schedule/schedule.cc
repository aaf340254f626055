#include "services/common/schedule/schedule.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "services/common/client/quote.h"
#include "services/common/cron/cron.h"
#include "services/common/status/status_macros.h"

namespace gnomon::schedule {
namespace {

absl::string_view Abs(std::string_view s) { return absl::string_view(s.data(), s.size()); }

absl::Duration FromProto(const google::protobuf::Duration& d) {
  return absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
}

std::string Format(absl::Duration d) {
  if (d % absl::Milliseconds(1) == absl::ZeroDuration()) {
    return absl::StrCat(absl::ToInt64Milliseconds(d), "ms");
  }
  return absl::FormatDuration(d);
}

absl::Status ValidatePeriod(std::string_view field, std::string_view what,
                            const google::protobuf::Duration& p) {
  // google.protobuf.Duration: |seconds| <= 315576000000, |nanos| < 1e9,
  // and both carry the same sign.
  if (p.nanos() <= -1000000000 || p.nanos() >= 1000000000 || (p.seconds() > 0 && p.nanos() < 0) ||
      (p.seconds() < 0 && p.nanos() > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(Abs(field), ": not a valid duration (seconds ",
                                                   p.seconds(), ", nanos ", p.nanos(), ")"));
  }
  absl::Duration d = FromProto(p);
  if (d < kMinPeriod) {
    return absl::InvalidArgumentError(absl::StrCat(Abs(field), ": ", Abs(what), " ", Format(d),
                                                   " is below the minimum of ",
                                                   Format(kMinPeriod)));
  }
  if (d > kMaxPeriod) {
    return absl::InvalidArgumentError(absl::StrCat(Abs(field), ": ", Abs(what), " ", Format(d),
                                                   " is above the maximum of ",
                                                   Format(kMaxPeriod)));
  }
  if (d % absl::Milliseconds(1) != absl::ZeroDuration()) {
    return absl::InvalidArgumentError(absl::StrCat(Abs(field), ": ", Abs(what), " ", Format(d),
                                                   " is not a whole number of milliseconds"));
  }
  return absl::OkStatus();
}

bool IsZoneNameChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '/' ||
         c == '_' || c == '-' || c == '+';
}

}  // namespace

absl::StatusOr<absl::TimeZone> LoadZone(std::string_view name) {
  if (name.empty() || name == "UTC") return absl::UTCTimeZone();
  bool plausible = name.size() <= 64 && name.front() != '/' && name.back() != '/' &&
                   name != "localtime" && name.find("//") == std::string_view::npos;
  for (char c : name) plausible = plausible && IsZoneNameChar(c);
  absl::TimeZone zone;
  if (!plausible || !absl::LoadTimeZone(Abs(name), &zone)) {
    return absl::InvalidArgumentError(absl::StrCat("unknown zone ", QuotedPrefix(name)));
  }
  return zone;
}

absl::TimeZone ZoneOf(const gnomon::v1::Schedule& s) {
  if (!s.has_cron()) return absl::UTCTimeZone();
  absl::StatusOr<absl::TimeZone> zone = LoadZone(s.cron().time_zone());
  return zone.ok() ? *zone : absl::UTCTimeZone();
}

absl::Duration Period(const gnomon::v1::Schedule& s) {
  switch (s.kind_case()) {
    case gnomon::v1::Schedule::kFixRate:
      return FromProto(s.fix_rate());
    case gnomon::v1::Schedule::kFixDelay:
      return FromProto(s.fix_delay());
    default:
      return absl::ZeroDuration();
  }
}

absl::Status ValidateSchedule(const gnomon::v1::Schedule& s) {
  switch (s.kind_case()) {
    case gnomon::v1::Schedule::kCron:
      return CompileCron(s.cron()).status();
    case gnomon::v1::Schedule::kFixRate:
      return ValidatePeriod("schedule.fix_rate", "period", s.fix_rate());
    case gnomon::v1::Schedule::kFixDelay:
      return ValidatePeriod("schedule.fix_delay", "delay", s.fix_delay());
    case gnomon::v1::Schedule::KIND_NOT_SET:
      return absl::OkStatus();
  }
  return absl::InvalidArgumentError("schedule: unknown kind");
}

absl::StatusOr<std::vector<absl::Time>> Preview(const gnomon::v1::Schedule& s, absl::Time from,
                                                int count) {
  RETURN_IF_ERROR(ValidateSchedule(s));
  if (count < 0 || count > kMaxPreviewCount) {
    return absl::InvalidArgumentError(
        absl::StrCat("count: ", count, " is outside 0-", kMaxPreviewCount));
  }
  std::vector<absl::Time> out;
  switch (s.kind_case()) {
    case gnomon::v1::Schedule::kCron: {
      ASSIGN_OR_RETURN(CompiledCron c, CompileCron(s.cron()));
      absl::Time t = from;
      while (static_cast<int>(out.size()) < count) {
        std::optional<absl::Time> next = c.NextAfter(t);
        if (!next) break;
        out.push_back(*next);
        t = *next;
      }
      break;
    }
    case gnomon::v1::Schedule::kFixRate:
    case gnomon::v1::Schedule::kFixDelay: {
      absl::Duration p = Period(s);
      out.reserve(count);
      for (int k = 1; k <= count; ++k) out.push_back(from + k * p);
      break;
    }
    case gnomon::v1::Schedule::KIND_NOT_SET:
      break;
  }
  return out;
}

absl::StatusOr<CompiledCron> CompileCron(const gnomon::v1::CronSchedule& cron) {
  absl::StatusOr<cron::CronExpression> e = cron::CronExpression::Parse(cron.expression());
  if (!e.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule.cron.expression: ", e.status().message()));
  }
  absl::StatusOr<absl::TimeZone> z = LoadZone(cron.time_zone());
  if (!z.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("schedule.cron.time_zone: ", z.status().message()));
  }
  return CompiledCron{*std::move(e), *z};
}

std::optional<absl::Time> NextCronFire(const gnomon::v1::CronSchedule& cron, absl::Time after) {
  absl::StatusOr<CompiledCron> c = CompileCron(cron);
  if (!c.ok()) return std::nullopt;
  return c->NextAfter(after);
}

}  // namespace gnomon::schedule

#include "services/common/schedule/schedule.h"

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "services/common/client/quote.h"
#include "services/common/cron/cron.h"
#include "services/common/schedule/calendar.h"
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
  RETURN_IF_ERROR(ValidateKind(s));
  const bool fires = s.kind_case() != gnomon::v1::Schedule::KIND_NOT_SET;
  if (!s.calendar().empty()) {
    RETURN_IF_ERROR(ValidateCalendarName(s.calendar(), "schedule.calendar"));
    if (!fires) {
      return absl::InvalidArgumentError(
          "schedule.calendar: a schedule that never fires by itself takes no calendar");
    }
  }
  if (s.has_jitter()) {
    const absl::Duration j = FromProto(s.jitter());
    if (j < absl::ZeroDuration() || j > kMaxJitter ||
        j % absl::Milliseconds(1) != absl::ZeroDuration()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "schedule.jitter: ", Format(j), " is not a whole number of milliseconds from 0 to 24h"));
    }
    if (!fires && j > absl::ZeroDuration()) {
      return absl::InvalidArgumentError(
          "schedule.jitter: a schedule that never fires by itself takes no jitter");
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateKind(const gnomon::v1::Schedule& s) {
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
                                                int count, const Calendar* calendar) {
  RETURN_IF_ERROR(ValidateSchedule(s));
  if (count < 0 || count > kMaxPreviewCount) {
    return absl::InvalidArgumentError(
        absl::StrCat("count: ", count, " is outside 0-", kMaxPreviewCount));
  }
  if (!s.calendar().empty() && calendar == nullptr) {
    return absl::InvalidArgumentError("schedule.calendar: the calendar was not given");
  }
  std::optional<CompiledCron> cron;
  if (s.has_cron()) {
    ASSIGN_OR_RETURN(cron, CompileCron(s.cron()));
  }
  const absl::Duration period = Period(s);
  // The schedule's first slot at or after `t` (a fixed delay: `t`, as if
  // each run took no time).
  auto at_or_after = [&](absl::Time t) -> std::optional<absl::Time> {
    if (cron) return cron->NextAfter(t - absl::Nanoseconds(1));
    if (s.has_fix_delay()) return t;
    absl::Duration rest;
    const int64_t k = absl::IDivDuration(t - from + period - absl::Nanoseconds(1), period, &rest);
    return from + std::max<int64_t>(k, 1) * period;
  };
  const absl::TimeZone zone = cron ? cron->zone : absl::UTCTimeZone();
  std::vector<absl::Time> out;
  absl::Time last = from;
  while (s.kind_case() != gnomon::v1::Schedule::KIND_NOT_SET &&
         static_cast<int>(out.size()) < count) {
    std::optional<absl::Time> next = s.has_fix_delay() ? std::optional<absl::Time>(last + period)
                                                       : at_or_after(last + absl::Nanoseconds(1));
    if (next && calendar != nullptr) next = SkipDisallowed(*calendar, zone, *next, at_or_after);
    if (!next) break;
    out.push_back(*next);
    last = *next;
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

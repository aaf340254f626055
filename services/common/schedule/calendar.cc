#include "services/common/schedule/calendar.h"

#include <algorithm>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "services/common/client/quote.h"
#include "services/common/schedule/schedule.h"
#include "services/common/status/status_macros.h"

namespace gnomon::schedule {
namespace {

constexpr int kDaySeconds = 24 * 3600;

absl::string_view Abs(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Digits only, exactly `n` of them, as a number.
std::optional<int> Digits(std::string_view s, size_t n) {
  if (s.size() != n) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// "YYYY-MM-DD" as a day, when it names a real one from 1970 to 9999.
std::optional<absl::CivilDay> FullDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return std::nullopt;
  std::optional<int> y = Digits(s.substr(0, 4), 4), m = Digits(s.substr(5, 2), 2),
                     d = Digits(s.substr(8, 2), 2);
  if (!y || !m || !d || *y < 1970) return std::nullopt;
  const absl::CivilDay day(*y, *m, *d);
  if (day.year() != *y || day.month() != *m || day.day() != *d) return std::nullopt;
  return day;
}

// "MM-DD" as month * 100 + day, when some year has that date.
std::optional<int> YearlyDate(std::string_view s) {
  if (s.size() != 5 || s[2] != '-') return std::nullopt;
  std::optional<int> m = Digits(s.substr(0, 2), 2), d = Digits(s.substr(3, 2), 2);
  if (!m || !d) return std::nullopt;
  const absl::CivilDay leap(2000, *m, *d);
  if (leap.month() != *m || leap.day() != *d) return std::nullopt;
  return *m * 100 + *d;
}

// "HH:MM" as seconds of the day; "24:00" only as an end.
std::optional<int> TimeOfDay(std::string_view s, bool end) {
  if (s.size() != 5 || s[2] != ':') return std::nullopt;
  std::optional<int> h = Digits(s.substr(0, 2), 2), m = Digits(s.substr(3, 2), 2);
  if (!h || !m || *m > 59) return std::nullopt;
  if (*h == 24 && *m == 0 && end) return kDaySeconds;
  if (*h > 23) return std::nullopt;
  return *h * 3600 + *m * 60;
}

// A window as one or two [from, to) ranges of seconds of the day.
std::optional<std::vector<std::pair<int, int>>> Window(std::string_view s) {
  const size_t dash = s.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  std::optional<int> from = TimeOfDay(s.substr(0, dash), false);
  std::optional<int> to = TimeOfDay(s.substr(dash + 1), true);
  if (!from || !to || *from == *to) return std::nullopt;
  if (*from < *to) return std::vector<std::pair<int, int>>{{*from, *to}};
  // Wraps midnight: the evening and the morning of each allowed day.
  std::vector<std::pair<int, int>> parts = {{*from, kDaySeconds}};
  if (*to > 0) parts.insert(parts.begin(), {0, *to});
  return parts;
}

absl::Status Refuse(std::string_view field, int index, std::string_view value,
                    std::string_view expected) {
  return absl::InvalidArgumentError(absl::StrCat(
      "calendar.", Abs(field), "[", index, "]: ", QuotedPrefix(value), " is not ", Abs(expected)));
}

int64_t DayNumber(absl::CivilDay d) { return d - absl::CivilDay(1970, 1, 1); }

// The instant of civil time `cs` in `zone` that is at or after `floor`
// where the clock shows it twice; the transition where it never shows it.
absl::Time AtOrAfter(absl::CivilSecond cs, absl::TimeZone zone, absl::Time floor) {
  const absl::TimeZone::TimeInfo ti = zone.At(cs);
  absl::Time t = ti.pre;
  if (ti.kind == absl::TimeZone::TimeInfo::SKIPPED) {
    t = ti.trans;
  } else if (ti.kind == absl::TimeZone::TimeInfo::REPEATED && ti.pre < floor) {
    t = ti.post;
  }
  return std::max(t, floor);
}

}  // namespace

absl::Status ValidateCalendarName(std::string_view name, std::string_view field) {
  bool ok = !name.empty() && name.size() <= 64;
  for (char c : name) {
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '.' || c == '_' || c == '-');
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(Abs(field), ": ", QuotedPrefix(name),
                   " is not a calendar name (letters, digits, '.', '_' and '-', 1 to 64 chars)"));
}

absl::Status ValidateCalendar(const v1::Calendar& calendar) {
  return Calendar::Compile(calendar).status();
}

absl::StatusOr<Calendar> Calendar::Compile(const v1::Calendar& c) {
  RETURN_IF_ERROR(ValidateCalendarName(c.name(), "calendar.name"));
  if (c.description().size() > kMaxCalendarDescription) {
    return absl::InvalidArgumentError(
        absl::StrCat("calendar.description: longer than ", kMaxCalendarDescription, " bytes"));
  }
  Calendar cal;
  cal.name_ = c.name();
  if (!c.time_zone().empty()) {
    absl::StatusOr<absl::TimeZone> zone = LoadZone(c.time_zone());
    if (!zone.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("calendar.time_zone: ", zone.status().message()));
    }
    cal.zone_ = *zone;
  }
  if (c.weekdays_size() > 0) {
    cal.weekdays_ = 0;
    for (int i = 0; i < c.weekdays_size(); ++i) {
      const int d = c.weekdays(i);
      if (d < v1::MONDAY || d > v1::SUNDAY) {
        return absl::InvalidArgumentError(
            absl::StrCat("calendar.weekdays[", i, "]: ", d, " is not a day of the week"));
      }
      cal.weekdays_ |= static_cast<uint8_t>(1u << (d - 1));
    }
  }
  if (c.excluded_dates_size() > kMaxCalendarDates || c.included_dates_size() > kMaxCalendarDates) {
    return absl::InvalidArgumentError(absl::StrCat(c.excluded_dates_size() > kMaxCalendarDates
                                                       ? "calendar.excluded_dates"
                                                       : "calendar.included_dates",
                                                   ": more than ", kMaxCalendarDates, " dates"));
  }
  for (int i = 0; i < c.excluded_dates_size(); ++i) {
    const std::string& s = c.excluded_dates(i);
    if (std::optional<absl::CivilDay> d = FullDate(s)) {
      cal.excluded_.insert(DayNumber(*d));
    } else if (std::optional<int> y = YearlyDate(s)) {
      cal.excluded_yearly_.insert(*y);
    } else {
      return Refuse("excluded_dates", i, s, "a date YYYY-MM-DD or MM-DD");
    }
  }
  for (int i = 0; i < c.included_dates_size(); ++i) {
    std::optional<absl::CivilDay> d = FullDate(c.included_dates(i));
    if (!d) return Refuse("included_dates", i, c.included_dates(i), "a date YYYY-MM-DD");
    cal.included_.insert(DayNumber(*d));
  }
  if (c.windows_size() > kMaxCalendarWindows) {
    return absl::InvalidArgumentError(
        absl::StrCat("calendar.windows: more than ", kMaxCalendarWindows, " windows"));
  }
  std::vector<std::pair<int, int>> ranges;
  for (int i = 0; i < c.windows_size(); ++i) {
    std::optional<std::vector<std::pair<int, int>>> w = Window(c.windows(i));
    if (!w) {
      return Refuse("windows", i, c.windows(i),
                    "a window HH:MM-HH:MM (two different times; 24:00 only as its end)");
    }
    ranges.insert(ranges.end(), w->begin(), w->end());
  }
  std::sort(ranges.begin(), ranges.end());
  for (const auto& r : ranges) {  // Merge overlapping and touching ranges.
    if (!cal.windows_.empty() && r.first <= cal.windows_.back().second) {
      cal.windows_.back().second = std::max(cal.windows_.back().second, r.second);
    } else {
      cal.windows_.push_back(r);
    }
  }
  if (cal.windows_.size() == 1 && cal.windows_[0] == std::pair<int, int>{0, kDaySeconds}) {
    cal.windows_.clear();  // All day.
  }
  return cal;
}

bool Calendar::DateAllowed(absl::CivilDay day) const {
  const int64_t n = DayNumber(day);
  if (excluded_.contains(n) || excluded_yearly_.contains(day.month() * 100 + day.day())) {
    return false;
  }
  if (included_.contains(n)) return true;
  // absl::Weekday: Monday is 0.
  return (weekdays_ >> static_cast<int>(absl::GetWeekday(day)) & 1) != 0;
}

bool Calendar::Allows(absl::Time t, absl::TimeZone fallback) const {
  const absl::CivilSecond cs = absl::ToCivilSecond(t, zone_.value_or(fallback));
  if (!DateAllowed(absl::CivilDay(cs))) return false;
  if (windows_.empty()) return true;
  const int sod = static_cast<int>(cs - absl::CivilSecond(absl::CivilDay(cs)));
  for (const auto& [from, to] : windows_) {
    if (sod >= from && sod < to) return true;
  }
  return false;
}

absl::Time Calendar::NextAllowed(absl::Time t, absl::TimeZone fallback) const {
  const absl::TimeZone zone = zone_.value_or(fallback);
  const absl::CivilSecond cs = absl::ToCivilSecond(t, zone);
  absl::CivilDay day(cs);
  const int sod = static_cast<int>(cs - absl::CivilSecond(day));
  for (int i = 0; i <= kCalendarHorizonDays; ++i, ++day) {
    if (!DateAllowed(day)) continue;
    if (windows_.empty()) return i == 0 ? t : AtOrAfter(absl::CivilSecond(day), zone, t);
    for (const auto& [from, to] : windows_) {
      if (i == 0 && sod >= to) continue;  // Today's window already over.
      if (i == 0 && sod >= from) return t;
      return AtOrAfter(absl::CivilSecond(day) + from, zone, t);
    }
  }
  return absl::InfiniteFuture();
}

std::optional<absl::Time> SkipDisallowed(
    const Calendar& calendar, absl::TimeZone fallback, absl::Time slot,
    absl::FunctionRef<std::optional<absl::Time>(absl::Time)> next) {
  // Each turn moves to the next allowed stretch, at least a day further
  // once the slot's day is done: twice the horizon's days bounds the turns.
  for (int turn = 0; turn < 2 * kCalendarHorizonDays + 2; ++turn) {
    const absl::Time allowed = calendar.NextAllowed(slot, fallback);
    if (allowed == slot) return slot;
    if (allowed == absl::InfiniteFuture()) return std::nullopt;
    std::optional<absl::Time> n = next(allowed);
    if (!n || *n <= slot) return std::nullopt;  // No slot (or no progress): never.
    slot = *n;
  }
  return std::nullopt;
}

}  // namespace gnomon::schedule

#include "services/common/cron/cron.h"

#include <cstdint>
#include <string>

#include "absl/time/civil_time.h"
#include "services/common/cron/cron_parse.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cron {
namespace {

// Lowest set bit at or above `from`, or -1.
int NextBit64(uint64_t bits, int from) {
  if (from > 63) return -1;
  uint64_t m = bits & (~uint64_t{0} << from);
  return m == 0 ? -1 : __builtin_ctzll(m);
}

int DaysInMonth(int year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && (year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))) return 29;
  return kDays[month - 1];
}

// Quartz weekday (1=SUN..7=SAT) of a civil day (normalised, so day may
// overflow the month).
int QuartzWeekday(int year, int month, int day) {
  absl::Weekday w = absl::GetWeekday(absl::CivilDay(year, month, day));
  return (static_cast<int>(w) + 1) % 7 + 1;  // absl: monday = 0
}

bool YearSet(const CronFields& f, int y) {
  if (y < kMinYear || y > kMaxYear) return false;
  int i = y - kMinYear;
  return (f.years[i / 64] >> (i % 64)) & 1;
}

}  // namespace

absl::StatusOr<CronExpression> CronExpression::Parse(std::string_view text) {
  ASSIGN_OR_RETURN(CronFields fields, ParseCronFields(text));
  return CronExpression(std::string(text), fields);
}

uint32_t CronExpression::DayMask(int year, int month) const {
  const CronFields& f = fields_;
  const int ldom = DaysInMonth(year, month);
  const uint32_t valid = static_cast<uint32_t>(((uint64_t{1} << (ldom + 1)) - 1) & ~uint64_t{1});
  if (f.dom_is_spec) {
    switch (f.dom_mode) {
      case CronFields::DomMode::kSet:
        return f.dom & valid;
      case CronFields::DomMode::kLast: {
        int d = ldom - f.dom_offset;
        return d >= 1 ? uint32_t{1} << d : 0;
      }
      case CronFields::DomMode::kLastWeekday: {
        // Quartz's W rule on day ldom - n: Saturday moves back to Friday and
        // Sunday forward to Monday, each the other way when that would leave
        // the month (Saturday the 1st: Monday the 3rd; Sunday the last day:
        // Friday). No day when ldom - n is before the 1st (as L-n).
        int d = ldom - f.dom_offset;
        if (d < 1) return 0;
        int wd = QuartzWeekday(year, month, d);
        if (wd == 7) {
          d = d == 1 ? 3 : d - 1;
        } else if (wd == 1) {
          d = d == ldom ? d - 2 : d + 1;
        }
        return uint32_t{1} << d;
      }
      case CronFields::DomMode::kNearestWeekday: {
        // Quartz looks at the weekday of day n even when the month is shorter
        // than n (the date then spills into the next month) and fires in this
        // month only if the adjusted day exists.
        int n = f.dom_offset;
        int wd = QuartzWeekday(year, month, n);
        int d = n;
        if (wd == 7) {
          d = n == 1 ? 3 : n - 1;
        } else if (wd == 1) {
          d = n == ldom ? n - 2 : n + 1;
        }
        return d <= ldom ? uint32_t{1} << d : 0;
      }
    }
    return 0;
  }
  const int wd1 = QuartzWeekday(year, month, 1);
  switch (f.dow_mode) {
    case CronFields::DowMode::kSet: {
      // Rotate the weekday set so that bit k means "day 1 + k".
      uint32_t week = 0;
      for (int k = 0; k < 7; ++k) {
        int wd = (wd1 - 1 + k) % 7 + 1;
        if ((f.dow >> wd) & 1) week |= uint32_t{1} << k;
      }
      uint64_t all = uint64_t{week} * 0x10204081ULL;  // five copies, 7 apart
      return static_cast<uint32_t>(all << 1) & valid;
    }
    case CronFields::DowMode::kLast: {
      int first = 1 + (f.dow_value - wd1 + 7) % 7;
      int d = first + ((ldom - first) / 7) * 7;
      return uint32_t{1} << d;
    }
    case CronFields::DowMode::kNth: {
      int first = 1 + (f.dow_value - wd1 + 7) % 7;
      int d = first + (f.dow_nth - 1) * 7;
      return d <= ldom ? uint32_t{1} << d : 0;
    }
  }
  return 0;
}

std::optional<absl::CivilSecond> CronExpression::NextCivilAtOrAfter(absl::CivilSecond from) const {
  const CronFields& f = fields_;
  if (from.year() < kMinYear) from = absl::CivilSecond(kMinYear, 1, 1, 0, 0, 0);
  int y = static_cast<int>(from.year());
  int mo = from.month(), d = from.day(), h = from.hour(), mi = from.minute(), s = from.second();
  // Each pass either returns or moves strictly forward by at least one
  // field; the year bound ends the search for expressions that never fire.
  while (y <= kMaxYear) {
    if (!YearSet(f, y)) {
      ++y;
      mo = 1, d = 1, h = 0, mi = 0, s = 0;
      continue;
    }
    int m2 = NextBit64(f.months, mo);
    if (m2 < 0) {
      ++y;
      mo = 1, d = 1, h = 0, mi = 0, s = 0;
      continue;
    }
    if (m2 != mo) mo = m2, d = 1, h = 0, mi = 0, s = 0;
    uint32_t days = d > 31 ? 0 : DayMask(y, mo) & (~uint32_t{0} << d);
    if (days == 0) {
      if (++mo > 12) ++y, mo = 1;
      d = 1, h = 0, mi = 0, s = 0;
      continue;
    }
    int d2 = __builtin_ctz(days);
    if (d2 != d) d = d2, h = 0, mi = 0, s = 0;
    int h2 = NextBit64(f.hours, h);
    if (h2 < 0) {
      ++d, h = 0, mi = 0, s = 0;
      continue;
    }
    if (h2 != h) h = h2, mi = 0, s = 0;
    int mi2 = NextBit64(f.minutes, mi);
    if (mi2 < 0) {
      ++h, mi = 0, s = 0;
      if (h > 23) ++d, h = 0;
      continue;
    }
    if (mi2 != mi) mi = mi2, s = 0;
    int s2 = NextBit64(f.seconds, s);
    if (s2 < 0) {
      ++mi, s = 0;
      if (mi > 59) ++h, mi = 0;
      if (h > 23) ++d, h = 0;
      continue;
    }
    return absl::CivilSecond(y, mo, d, h, mi, s2);
  }
  return std::nullopt;
}

std::optional<absl::Time> CronExpression::NextAfter(absl::Time after, absl::TimeZone zone) const {
  // Keep civil arithmetic far from absl's representable limits.
  const absl::Time lo =
      absl::FromCivil(absl::CivilSecond(kMinYear - 1, 1, 1, 0, 0, 0), absl::UTCTimeZone());
  const absl::Time hi =
      absl::FromCivil(absl::CivilSecond(kMaxYear + 2, 1, 1, 0, 0, 0), absl::UTCTimeZone());
  if (after >= hi) return std::nullopt;
  if (after < lo) after = lo;
  // Fire instants are whole seconds; find the earliest wall-clock time C
  // whose instant is after `after_s` (the whole second containing `after`).
  const absl::Time after_s = absl::FromUnixSeconds(absl::ToUnixSeconds(after));
  absl::CivilSecond start = zone.At(after_s).cs + 1;
  absl::TimeZone::TimeInfo ti = zone.At(start);
  if (ti.kind == absl::TimeZone::TimeInfo::REPEATED && ti.pre <= after_s) {
    // `after` is in the second pass of a fall-back overlap: every wall-clock
    // time of the overlap already fired in its first pass. Resume where the
    // overlap ends.
    absl::TimeZone::CivilTransition tr;
    if (zone.PrevTransition(after_s + absl::Seconds(1), &tr)) start = tr.from;
  }
  std::optional<absl::CivilSecond> c = NextCivilAtOrAfter(start);
  if (!c) return std::nullopt;
  ti = zone.At(*c);
  switch (ti.kind) {
    case absl::TimeZone::TimeInfo::UNIQUE:
    case absl::TimeZone::TimeInfo::REPEATED:
      return ti.pre;  // the first occurrence
    case absl::TimeZone::TimeInfo::SKIPPED:
      return ti.trans;  // the first instant after the gap
  }
  return ti.pre;
}

}  // namespace gnomon::cron

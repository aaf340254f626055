// CronExpression: a Quartz cron expression and its next fire instant in an
// IANA time zone.
//
// Syntax is Quartz 2.3.2's: six or seven whitespace-separated fields
//
//   seconds minutes hours day-of-month month day-of-week [year]
//
// with `*`, lists `a,b`, ranges `a-b` (wrapping when a > b: `22-2`, `NOV-FEB`,
// `FRI-MON`), steps `a/n`, `*/n`, `a-b/n`, names JAN-DEC and SUN-SAT (any
// case), day-of-week 1=SUN ... 7=SAT, and the day specials `L`, `L-n`, `LW`,
// `L-nW`, `nW` (day-of-month) and `L`, `nL`, `n#k` (day-of-week). Exactly one of the
// two day fields is `?`. Fire times agree with Quartz's
// CronExpression.getTimeAfter except across DST transitions, where gnomon's
// policy (docs/dst.md) applies: a wall-clock time inside a spring-forward gap
// fires once at the first instant after the gap; a wall-clock time repeated
// by a fall-back overlap fires once, at its first occurrence.
//
// Parsing is stricter than Quartz: text Quartz ignores by accident (`12abc`,
// `MON!`, `15W,16`, a step on a name, an eighth field) is an error naming the
// field and the offending text.
//
//   absl::StatusOr<CronExpression> e = CronExpression::Parse("0 15 10 ? * 6#3");
//   // A bad one is InvalidArgument, e.g. day-of-week: unexpected text "!" in "MON!"
//   if (!e.ok()) return e.status();
//   std::optional<absl::Time> next = e->NextAfter(absl::Now(), zone);
//   if (!next) { /* never fires again */ }
//
// Thread safety: a CronExpression is immutable after Parse; all const methods
// may be called concurrently. NextAfter allocates nothing.
#ifndef GNOMON_SERVICES_COMMON_CRON_CRON_H_
#define GNOMON_SERVICES_COMMON_CRON_CRON_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"

namespace gnomon::cron {

// The last year in which any expression fires. Quartz 2.3.2 stops at the
// current year + 100; gnomon fixes the value it had when the ground truth in
// tests/quartz/ was generated, so results do not depend on the wall clock.
inline constexpr int kMaxYear = 2126;
// The first year of the year field (Quartz's lower bound).
inline constexpr int kMinYear = 1970;
// Year-field values are accepted up to this bound; years after kMaxYear never
// fire.
inline constexpr int kMaxYearValue = 2999;

// The parsed fields. Exposed for tests and tools; most callers need only
// CronExpression.
struct CronFields {
  // How the day-of-month field selects days.
  enum class DomMode : uint8_t {
    kSet,             // the days in `dom` (also used when day-of-month is `?`)
    kLast,            // L or L-n: last day minus `dom_offset`
    kLastWeekday,     // LW, L-nW: weekday nearest to last day minus `dom_offset`
    kNearestWeekday,  // nW: weekday nearest to day `dom_offset`
  };
  // How the day-of-week field selects days.
  enum class DowMode : uint8_t {
    kSet,   // the weekdays in `dow`
    kLast,  // nL: last weekday `dow_value` of the month
    kNth,   // n#k: the `dow_nth`-th weekday `dow_value` of the month
  };

  uint64_t seconds = 0;  // bit s for second s (0-59)
  uint64_t minutes = 0;  // bit m for minute m (0-59)
  uint32_t hours = 0;    // bit h for hour h (0-23)
  uint32_t dom = 0;      // bit d for day d (1-31), DomMode::kSet only
  uint16_t months = 0;   // bit m for month m (1-12)
  uint8_t dow = 0;       // bit d for weekday d (1=SUN..7=SAT), DowMode::kSet
  // Bit (y - kMinYear) for each year y in [kMinYear, kMaxYear].
  std::array<uint64_t, (kMaxYear - kMinYear) / 64 + 1> years{};
  bool dom_is_spec = true;  // true: day-of-month selects; false: day-of-week
  DomMode dom_mode = DomMode::kSet;
  DowMode dow_mode = DowMode::kSet;
  uint8_t dom_offset = 0;  // kLast, kLastWeekday: n of L-n, L-nW (LW: 0); kNearestWeekday: n of nW
  uint8_t dow_value = 0;   // kLast / kNth: the weekday (1-7)
  uint8_t dow_nth = 0;     // kNth: k of n#k (1-5)
};

class CronExpression {
 public:
  // Parses Quartz cron syntax. Errors are InvalidArgument naming the field:
  //   `day-of-week: unexpected text "!" in "MON!"`.
  static absl::StatusOr<CronExpression> Parse(std::string_view text);

  // The first fire instant strictly after `after`, evaluated in `zone`, or
  // nullopt if the expression never fires again (up to kMaxYear). Fire
  // instants are whole seconds: the result is at least the next whole second
  // after `after`.
  std::optional<absl::Time> NextAfter(absl::Time after, absl::TimeZone zone) const;

  // The first matching wall-clock time at or after `from`, ignoring time
  // zones; nullopt when there is none up to kMaxYear.
  std::optional<absl::CivilSecond> NextCivilAtOrAfter(absl::CivilSecond from) const;

  // The text as given to Parse.
  const std::string& text() const { return text_; }
  const CronFields& fields() const { return fields_; }

 private:
  CronExpression(std::string text, const CronFields& fields)
      : text_(std::move(text)), fields_(fields) {}

  // Days of (year, month) that match the day fields: bit d for day d.
  uint32_t DayMask(int year, int month) const;

  std::string text_;
  CronFields fields_;
};

}  // namespace gnomon::cron

#endif  // GNOMON_SERVICES_COMMON_CRON_CRON_H_

// Calendars (gnomon.v1.Calendar): the dates and times of day a schedule
// that names one may fire. An instant is allowed when its date, read in the
// calendar's zone (else the schedule's), is allowed — an excluded date
// never, else an included date always, else a listed weekday (every day
// when none is listed) — and its time of day lies in one of the windows
// (all day when there are none).
//
//   ASSIGN_OR_RETURN(schedule::Calendar cal, schedule::Calendar::Compile(proto));
//   absl::Time at = cal.NextAllowed(slot, zone);   // slot itself if allowed
//   std::optional<absl::Time> fire = schedule::SkipDisallowed(
//       cal, zone, first, [&](absl::Time t) { return cron.NextAfter(t - absl::Milliseconds(1)); });
//
// Errors are InvalidArgument naming the field ("calendar.windows[1]: ...").
//
// Thread safety: a compiled Calendar is immutable; share it freely.
#ifndef GNOMON_SERVICES_COMMON_SCHEDULE_CALENDAR_H_
#define GNOMON_SERVICES_COMMON_SCHEDULE_CALENDAR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/civil_time.h"
#include "absl/time/time.h"
#include "gnomon/v1/common.pb.h"

namespace gnomon::schedule {

// Limits on one calendar.
inline constexpr int kMaxCalendarDates = 2000;  // excluded_dates, and included_dates
inline constexpr int kMaxCalendarWindows = 48;
inline constexpr int kMaxCalendarDescription = 1024;
// How far NextAllowed looks for an allowed day before it gives up.
inline constexpr int kCalendarHorizonDays = 366 * 10;

// OK, or InvalidArgument naming the first offending field.
absl::Status ValidateCalendar(const v1::Calendar& calendar);
// OK for a name a calendar may have (letters, digits, '.', '_', '-'; 1 to
// 64 chars); otherwise InvalidArgument naming `field`.
absl::Status ValidateCalendarName(std::string_view name, std::string_view field);

class Calendar {
 public:
  // ValidateCalendar's errors.
  static absl::StatusOr<Calendar> Compile(const v1::Calendar& calendar);

  const std::string& name() const { return name_; }
  // Whether the calendar allows `t`, read in its zone (`fallback` when it has none).
  bool Allows(absl::Time t, absl::TimeZone fallback) const;
  // The first instant at or after `t` it allows: `t` itself when allowed;
  // InfiniteFuture when it allows nothing within kCalendarHorizonDays.
  absl::Time NextAllowed(absl::Time t, absl::TimeZone fallback) const;

 private:
  Calendar() = default;
  bool DateAllowed(absl::CivilDay day) const;

  std::string name_;
  std::optional<absl::TimeZone> zone_;
  uint8_t weekdays_ = 0x7f;                   // Bit (weekday - 1), Monday first.
  absl::flat_hash_set<int64_t> excluded_;     // Days since 1970-01-01.
  absl::flat_hash_set<int> excluded_yearly_;  // month * 100 + day.
  absl::flat_hash_set<int64_t> included_;
  std::vector<std::pair<int, int>> windows_;  // [from, to) seconds of the day, sorted, merged.
};

// The first instant that `next` yields and `calendar` allows, from `slot`
// on: while the calendar does not allow the slot, the slot becomes
// next(NextAllowed(slot)), where next(t) is the schedule's first slot at or
// after t (nullopt: none). nullopt when no slot is allowed within the
// calendar's horizon.
std::optional<absl::Time> SkipDisallowed(
    const Calendar& calendar, absl::TimeZone fallback, absl::Time slot,
    absl::FunctionRef<std::optional<absl::Time>(absl::Time)> next);

}  // namespace gnomon::schedule

#endif  // GNOMON_SERVICES_COMMON_SCHEDULE_CALENDAR_H_

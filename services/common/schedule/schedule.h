// Schedule validation and fire-time preview for the four schedule kinds of
// gnomon.v1.Schedule: CRON (Quartz syntax in an IANA zone, default UTC),
// FIX_RATE (a period of at least 100 ms, whole milliseconds), FIX_DELAY (a
// delay after the previous run ends, at least 100 ms, whole milliseconds)
// and NONE (no kind set: manual triggers only).
//
//   gnomon::v1::Schedule s;
//   s.mutable_cron()->set_expression("0 0 9 ? * MON-FRI");
//   s.mutable_cron()->set_time_zone("Europe/Berlin");
//   if (absl::Status st = schedule::ValidateSchedule(s); !st.ok()) return st;
//   absl::StatusOr<std::vector<absl::Time>> next = schedule::Preview(s, now, 5);
//
// Errors are InvalidArgument and name the field:
//   schedule.cron.expression: day-of-week: unexpected text "!" in "MON!"
//   schedule.cron.time_zone: unknown zone "Mars/Base"
//   schedule.fix_rate: period 50ms is below the minimum of 100ms
//
// Thread safety: all functions are thread-safe (absl time zones are cached
// process-wide and immutable).
#ifndef GNOMON_SERVICES_COMMON_SCHEDULE_SCHEDULE_H_
#define GNOMON_SERVICES_COMMON_SCHEDULE_SCHEDULE_H_

#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gnomon/v1/common.pb.h"
#include "services/common/cron/cron.h"

namespace gnomon::schedule {

class Calendar;

// The smallest FIX_RATE period and FIX_DELAY delay.
inline constexpr absl::Duration kMinPeriod = absl::Milliseconds(100);
// The largest FIX_RATE period and FIX_DELAY delay (a guard against overflow).
inline constexpr absl::Duration kMaxPeriod = absl::Hours(24 * 366 * 10);
// The largest `count` Preview accepts.
inline constexpr int kMaxPreviewCount = 10000;

// The largest Schedule.jitter.
inline constexpr absl::Duration kMaxJitter = absl::Hours(24);

// OK for a valid schedule (including NONE, the unset oneof; its calendar
// only named well, not looked up); InvalidArgument naming the offending
// field otherwise.
absl::Status ValidateSchedule(const gnomon::v1::Schedule& s);
// ValidateSchedule for its kind alone (cron, fixed rate or delay).
absl::Status ValidateKind(const gnomon::v1::Schedule& s);

// The next `count` fire instants strictly after `from`:
//   CRON: CronExpression::NextAfter in the schedule's zone (fewer than
//         `count` when the expression stops firing);
//   FIX_RATE: from + k * period, k = 1..count;
//   FIX_DELAY: from + k * delay, k = 1..count (as if each run took no time;
//         real fires are later by the run durations);
//   NONE: empty.
// A schedule naming a calendar takes it compiled (`calendar`): the
// instants it does not allow are skipped (a fixed delay waits for the next
// instant it allows).
// Fails with the ValidateSchedule error for an invalid schedule and with
// InvalidArgument when count is outside [0, kMaxPreviewCount] or the
// schedule names a calendar not given.
absl::StatusOr<std::vector<absl::Time>> Preview(const gnomon::v1::Schedule& s, absl::Time from,
                                                int count, const Calendar* calendar = nullptr);

// A cron schedule ready to evaluate: the parsed expression and its loaded
// zone. Compile once per job version and keep it; NextAfter allocates nothing.
struct CompiledCron {
  cron::CronExpression expression;
  absl::TimeZone zone;

  // The first fire strictly after `after`; nullopt once it never fires again.
  std::optional<absl::Time> NextAfter(absl::Time after) const {
    return expression.NextAfter(after, zone);
  }
};

// Parses and loads a cron schedule; errors are ValidateSchedule's
// ("schedule.cron.expression: ...", "schedule.cron.time_zone: ...").
absl::StatusOr<CompiledCron> CompileCron(const gnomon::v1::CronSchedule& cron);

// The next fire of a cron schedule strictly after `after`, or nullopt if it
// never fires again or is invalid. Parses on every call: hot paths should
// keep a CompiledCron instead.
std::optional<absl::Time> NextCronFire(const gnomon::v1::CronSchedule& cron, absl::Time after);

// Loads an IANA zone from the system tzdata; "" means UTC. Rejects names
// that are not zone names ("localtime", paths, "..").
absl::StatusOr<absl::TimeZone> LoadZone(std::string_view name);

// The zone a schedule's times are read in: a cron schedule's (UTC if it
// does not load), UTC for the other kinds.
absl::TimeZone ZoneOf(const gnomon::v1::Schedule& s);

// The FIX_RATE period or FIX_DELAY delay of `s` as an absl::Duration
// (zero for other kinds). Assumes a valid schedule.
absl::Duration Period(const gnomon::v1::Schedule& s);

}  // namespace gnomon::schedule

#endif  // GNOMON_SERVICES_COMMON_SCHEDULE_SCHEDULE_H_

#include "services/scheduler/next_fire.h"

#include <algorithm>
#include <limits>

#include "google/protobuf/util/time_util.h"
#include "services/common/schedule/schedule.h"
#include "services/common/store/store.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

int64_t CronAfter(const v1::CronSchedule& cron, const schedule::CompiledCron* compiled,
                  int64_t after_ms) {
  std::optional<absl::Time> t = compiled != nullptr
                                    ? compiled->NextAfter(absl::FromUnixMillis(after_ms))
                                    : schedule::NextCronFire(cron, absl::FromUnixMillis(after_ms));
  return t ? absl::ToUnixMillis(*t) : store::kNever;
}

}  // namespace

std::shared_ptr<const schedule::CompiledCron> CompileJobCron(const v1::Job& job) {
  if (!job.schedule().has_cron()) return nullptr;
  absl::StatusOr<schedule::CompiledCron> c = schedule::CompileCron(job.schedule().cron());
  if (!c.ok()) return nullptr;
  return std::make_shared<const schedule::CompiledCron>(*std::move(c));
}

v1::Job WorkflowSlots(const v1::Workflow& workflow) {
  v1::Job j;
  *j.mutable_schedule() = workflow.schedule();
  return j;
}

namespace {

int64_t RawFirstSlot(const v1::Job& job, int64_t now_ms, const schedule::CompiledCron* cron) {
  const v1::Schedule& s = job.schedule();
  switch (s.kind_case()) {
    case v1::Schedule::kCron:
      return CronAfter(s.cron(), cron, now_ms);
    case v1::Schedule::kFixRate:
      return now_ms + TimeUtil::DurationToMilliseconds(s.fix_rate());
    case v1::Schedule::kFixDelay:
      return now_ms + TimeUtil::DurationToMilliseconds(s.fix_delay());
    default:
      return store::kNever;
  }
}

int64_t RawSlotAfter(const v1::Job& job, int64_t slot_ms, const schedule::CompiledCron* cron) {
  const v1::Schedule& s = job.schedule();
  switch (s.kind_case()) {
    case v1::Schedule::kCron:
      return CronAfter(s.cron(), cron, slot_ms);
    case v1::Schedule::kFixRate:
      return slot_ms + TimeUtil::DurationToMilliseconds(s.fix_rate());
    default:
      return store::kNever;  // FIX_DELAY: set when the run ends.
  }
}

int64_t RawFirstSlotAfterNow(const v1::Job& job, int64_t slot_ms, int64_t now_ms,
                             const schedule::CompiledCron* cron) {
  const v1::Schedule& s = job.schedule();
  switch (s.kind_case()) {
    case v1::Schedule::kCron:
      return CronAfter(s.cron(), cron, now_ms);
    case v1::Schedule::kFixRate: {
      const int64_t period = TimeUtil::DurationToMilliseconds(s.fix_rate());
      if (period <= 0 || slot_ms > now_ms) return slot_ms;
      return slot_ms + ((now_ms - slot_ms) / period + 1) * period;
    }
    default:
      return store::kNever;
  }
}

// The first slot at or after `slot` the calendar allows (a FIX_DELAY
// job's: the first instant). A job naming a calendar not given has none.
int64_t OnCalendar(const v1::Job& job, int64_t slot, const SlotRules& rules) {
  if (job.schedule().calendar().empty()) return slot;
  if (rules.calendar == nullptr) return store::kNever;
  const absl::TimeZone zone =
      rules.cron != nullptr ? rules.cron->zone : schedule::ZoneOf(job.schedule());
  const bool delay = job.schedule().has_fix_delay();
  // The schedule's first slot at or after t (a fixed delay waits: t).
  auto at_or_after = [&](absl::Time t) -> std::optional<absl::Time> {
    const int64_t ms = absl::ToUnixMillis(t);
    const int64_t next = delay ? ms : RawFirstSlotAfterNow(job, slot, ms - 1, rules.cron);
    if (next == store::kNever) return std::nullopt;
    return absl::FromUnixMillis(next);
  };
  std::optional<absl::Time> allowed =
      schedule::SkipDisallowed(*rules.calendar, zone, absl::FromUnixMillis(slot), at_or_after);
  return allowed ? absl::ToUnixMillis(*allowed) : store::kNever;
}

// `slot` within the job's start_time and end_time and on its calendar: a
// slot before the start moves to the first at or after it, then to the
// first the calendar allows; one at or after the end is kNever.
int64_t Bounded(const v1::Job& job, int64_t slot, const SlotRules& rules) {
  if (slot == store::kNever) return slot;
  if (job.has_start_time()) {
    const int64_t start = TimeUtil::TimestampToMilliseconds(job.start_time());
    if (slot < start) {
      slot = job.schedule().has_fix_delay()
                 ? start
                 : RawFirstSlotAfterNow(job, slot, start - 1, rules.cron);
    }
  }
  if (slot != store::kNever) slot = OnCalendar(job, slot, rules);
  if (slot != store::kNever && job.has_end_time() &&
      slot >= TimeUtil::TimestampToMilliseconds(job.end_time())) {
    return store::kNever;
  }
  return slot;
}

}  // namespace

int64_t FirstSlot(const v1::Job& job, int64_t now_ms, const SlotRules& rules) {
  return Bounded(job, RawFirstSlot(job, now_ms, rules.cron), rules);
}

int64_t SlotAfter(const v1::Job& job, int64_t slot_ms, const SlotRules& rules) {
  return Bounded(job, RawSlotAfter(job, slot_ms, rules.cron), rules);
}

int64_t FirstSlotAfterNow(const v1::Job& job, int64_t slot_ms, int64_t now_ms,
                          const SlotRules& rules) {
  return Bounded(job, RawFirstSlotAfterNow(job, slot_ms, now_ms, rules.cron), rules);
}

int64_t AllowedSlot(const v1::Job& job, int64_t slot_ms, const SlotRules& rules) {
  return Bounded(job, slot_ms, rules);
}

int64_t SlotFromNow(const v1::Job& job, int64_t cursor_ms, int64_t now_ms, const SlotRules& rules) {
  const v1::Schedule& s = job.schedule();
  if (cursor_ms == store::kNever) {
    if (s.has_fix_delay() || (job.max_fires() > 0 && job.fires_left() == 0)) return cursor_ms;
    return FirstSlot(job, now_ms, rules);  // Perhaps it had no slot its calendar allowed.
  }
  // Due (or waiting for a run's end): it stays if allowed.
  if (cursor_ms <= now_ms || s.has_fix_delay()) return Bounded(job, cursor_ms, rules);
  if (s.has_fix_rate()) {
    const int64_t period = TimeUtil::DurationToMilliseconds(s.fix_rate());
    if (period > 0)
      cursor_ms -= (cursor_ms - now_ms - 1) / period * period;  // In (now, now + period].
    return Bounded(job, cursor_ms, rules);
  }
  return FirstSlotAfterNow(job, cursor_ms, now_ms, rules);  // Its first slot after now.
}

int64_t SlotsBetween(const v1::Job& job, int64_t from_ms, int64_t to_ms, const SlotRules& rules,
                     int64_t cap) {
  if (from_ms == store::kNever) return 0;
  // kNever: the schedule has no slot after; every one left counts.
  if (to_ms == store::kNever) to_ms = std::numeric_limits<int64_t>::max();
  if (from_ms >= to_ms) return 0;
  if (job.schedule().has_fix_rate() && job.schedule().calendar().empty() &&
      to_ms != std::numeric_limits<int64_t>::max()) {
    const int64_t period = TimeUtil::DurationToMilliseconds(job.schedule().fix_rate());
    if (period > 0) return std::min(cap, (to_ms - from_ms + period - 1) / period);
  }
  int64_t n = 0;
  for (int64_t t = from_ms; t != store::kNever && t < to_ms && n < cap;
       t = SlotAfter(job, t, rules)) {
    ++n;
  }
  return n;
}

int64_t JitterMs(const v1::Job& job, int64_t slot_ms, int64_t next_slot_ms) {
  if (!job.schedule().has_jitter()) return 0;
  int64_t span = TimeUtil::DurationToMilliseconds(job.schedule().jitter());
  if (next_slot_ms != store::kNever) span = std::min(span, next_slot_ms - slot_ms);
  if (span <= 1) return 0;
  // SplitMix64 of (job, slot): stable across replicas and restarts, unlike
  // absl::Hash, whose seed may differ per process.
  uint64_t x =
      static_cast<uint64_t>(job.id()) * 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(slot_ms);
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return static_cast<int64_t>(x % static_cast<uint64_t>(span));
}

}  // namespace gnomon::scheduler

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

// `slot` within the job's start_time and end_time: a slot before the start
// moves to the first at or after it, one at or after the end is kNever.
int64_t Bounded(const v1::Job& job, int64_t slot, const schedule::CompiledCron* cron) {
  if (slot == store::kNever) return slot;
  if (job.has_start_time()) {
    const int64_t start = TimeUtil::TimestampToMilliseconds(job.start_time());
    if (slot < start) slot = RawFirstSlotAfterNow(job, slot, start - 1, cron);
  }
  if (slot != store::kNever && job.has_end_time() &&
      slot >= TimeUtil::TimestampToMilliseconds(job.end_time())) {
    return store::kNever;
  }
  return slot;
}

}  // namespace

int64_t FirstSlot(const v1::Job& job, int64_t now_ms, const schedule::CompiledCron* cron) {
  return Bounded(job, RawFirstSlot(job, now_ms, cron), cron);
}

int64_t SlotAfter(const v1::Job& job, int64_t slot_ms, const schedule::CompiledCron* cron) {
  return Bounded(job, RawSlotAfter(job, slot_ms, cron), cron);
}

int64_t FirstSlotAfterNow(const v1::Job& job, int64_t slot_ms, int64_t now_ms,
                          const schedule::CompiledCron* cron) {
  return Bounded(job, RawFirstSlotAfterNow(job, slot_ms, now_ms, cron), cron);
}

int64_t SlotsBetween(const v1::Job& job, int64_t from_ms, int64_t to_ms,
                     const schedule::CompiledCron* cron, int64_t cap) {
  if (from_ms == store::kNever) return 0;
  // kNever: the schedule has no slot after; every one left counts.
  if (to_ms == store::kNever) to_ms = std::numeric_limits<int64_t>::max();
  if (from_ms >= to_ms) return 0;
  if (job.schedule().has_fix_rate() && to_ms != std::numeric_limits<int64_t>::max()) {
    const int64_t period = TimeUtil::DurationToMilliseconds(job.schedule().fix_rate());
    if (period > 0) return std::min(cap, (to_ms - from_ms + period - 1) / period);
  }
  int64_t n = 0;
  for (int64_t t = from_ms; t != store::kNever && t < to_ms && n < cap;
       t = SlotAfter(job, t, cron)) {
    ++n;
  }
  return n;
}

}  // namespace gnomon::scheduler

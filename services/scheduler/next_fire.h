// Next slot computation for a job's schedule, in UTC milliseconds.
//
//   SlotRules rules{cron.get(), calendar.get()};
//   int64_t first = FirstSlot(job, now_ms, rules);   // when a job is started
//   int64_t next  = SlotAfter(job, slot_ms, rules);  // the slot after a fired one
//   int64_t skip  = FirstSlotAfterNow(job, slot_ms, now_ms, rules);  // skipping missed slots
//
// A cron job's expression is parsed on every call unless its compiled form
// is passed (SlotRules::cron, from CompileJobCron): the schedule loop keeps
// one per armed job, with the job's calendar (SlotRules::calendar). Slots
// lie within the job's start_time and end_time and on what its calendar
// allows.
//
// store::kNever means the schedule does not fire (again) by itself: manual
// jobs, cron expressions with no future instant, and FIX_DELAY jobs between a
// fire and the end of its run.
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_SCHEDULER_NEXT_FIRE_H_
#define GNOMON_SERVICES_SCHEDULER_NEXT_FIRE_H_

#include <cstdint>
#include <memory>

#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/workflow.pb.h"
#include "services/common/schedule/calendar.h"
#include "services/common/schedule/schedule.h"

namespace gnomon::scheduler {

// What a job's slots are computed with besides the job itself.
struct SlotRules {
  // Its compiled cron (from CompileJobCron); null: parsed on every call.
  const schedule::CompiledCron* cron = nullptr;
  // The calendar its schedule names. A job naming one fires on no slot
  // without it: callers resolve it first (CalendarBook, the store).
  const schedule::Calendar* calendar = nullptr;
};

// The compiled cron of a cron job; null for other kinds or an invalid expression.
std::shared_ptr<const schedule::CompiledCron> CompileJobCron(const v1::Job& job);

int64_t FirstSlot(const v1::Job& job, int64_t now_ms, const SlotRules& rules);
int64_t SlotAfter(const v1::Job& job, int64_t slot_ms, const SlotRules& rules);
int64_t FirstSlotAfterNow(const v1::Job& job, int64_t slot_ms, int64_t now_ms,
                          const SlotRules& rules);
// `slot_ms` if the job's start, end and calendar allow it, else its next
// slot they allow (a FIX_DELAY job's: the next instant they allow); kNever
// for none. A cursor written before its calendar changed is moved by this.
int64_t AllowedSlot(const v1::Job& job, int64_t slot_ms, const SlotRules& rules);
// A running job's next slot after `now_ms` under rules that changed (its
// calendar was edited), from its cursor `cursor_ms`: a fixed rate keeps
// its grid; kNever stays for a job waiting for its run's end (FIX_DELAY) or
// with no fire left (max_fires).
int64_t SlotFromNow(const v1::Job& job, int64_t cursor_ms, int64_t now_ms, const SlotRules& rules);
// The job's slots in [from_ms, to_ms) (from_ms a slot; to_ms kNever: all the
// slots left), counted up to `cap`: how many a misfire policy passes over
// when it moves a cursor from one to the other.
int64_t SlotsBetween(const v1::Job& job, int64_t from_ms, int64_t to_ms, const SlotRules& rules,
                     int64_t cap = 1'000'000);
// How much later than `slot_ms` its fire runs with the schedule's jitter:
// from 0 to below the jitter (and below `next_slot_ms` - `slot_ms` unless
// that is kNever), the same for the same job and slot on every replica.
int64_t JitterMs(const v1::Job& job, int64_t slot_ms, int64_t next_slot_ms);

// A workflow's schedule as the job these functions take (only its schedule).
v1::Job WorkflowSlots(const v1::Workflow& workflow);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_NEXT_FIRE_H_

// Next slot computation for a job's schedule, in UTC milliseconds.
//
//   int64_t first = FirstSlot(job, now_ms);       // when a job is started
//   int64_t next  = SlotAfter(job, slot_ms);      // the slot after a fired one
//   int64_t skip  = FirstSlotAfterNow(job, slot_ms, now_ms);  // skipping missed slots
//
// A cron job's expression is parsed on every call unless its compiled form
// is passed (`cron`, from CompileJobCron): the schedule loop keeps one per
// armed job.
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
#include "services/common/schedule/schedule.h"

namespace gnomon::scheduler {

// The compiled cron of a cron job; null for other kinds or an invalid expression.
std::shared_ptr<const schedule::CompiledCron> CompileJobCron(const v1::Job& job);

int64_t FirstSlot(const v1::Job& job, int64_t now_ms, const schedule::CompiledCron* cron = nullptr);
int64_t SlotAfter(const v1::Job& job, int64_t slot_ms,
                  const schedule::CompiledCron* cron = nullptr);
int64_t FirstSlotAfterNow(const v1::Job& job, int64_t slot_ms, int64_t now_ms,
                          const schedule::CompiledCron* cron = nullptr);
// The job's slots in [from_ms, to_ms) (from_ms a slot; to_ms kNever: all the
// slots left), counted up to `cap`: how many a misfire policy passes over
// when it moves a cursor from one to the other.
// A workflow's schedule as the job these functions take (only its schedule).
v1::Job WorkflowSlots(const v1::Workflow& workflow);

int64_t SlotsBetween(const v1::Job& job, int64_t from_ms, int64_t to_ms,
                     const schedule::CompiledCron* cron, int64_t cap = 1'000'000);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_NEXT_FIRE_H_

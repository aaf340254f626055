// Next slot computation for a job's schedule, in UTC milliseconds.
//
//   int64_t first = FirstSlot(job, now_ms);       // when a job is started
//   int64_t next  = SlotAfter(job, slot_ms);      // the slot after a fired one
//   int64_t skip  = FirstSlotAfterNow(job, slot_ms, now_ms);  // skipping missed slots
//
// store::kNever means the schedule does not fire (again) by itself: manual
// jobs, cron expressions with no future instant, and FIX_DELAY jobs between a
// fire and the end of its run.
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_SCHEDULER_NEXT_FIRE_H_
#define GNOMON_SERVICES_SCHEDULER_NEXT_FIRE_H_

#include <cstdint>

#include "gnomon/v1/common.pb.h"

namespace gnomon::scheduler {

int64_t FirstSlot(const v1::Job& job, int64_t now_ms);
int64_t SlotAfter(const v1::Job& job, int64_t slot_ms);
int64_t FirstSlotAfterNow(const v1::Job& job, int64_t slot_ms, int64_t now_ms);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_NEXT_FIRE_H_

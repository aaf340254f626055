// CalendarAdmin: the calendar methods of gnomon.v1.JobAdmin, and the
// calendar a schedule names for the methods that compute its slots.
//
//   CalendarAdmin calendars(store, clock, &loop);
//   absl::StatusOr<v1::Calendar> c = calendars.Create(proto);
//   ASSIGN_OR_RETURN(auto cal, CalendarOf(store, job.schedule(), "job.schedule.calendar"));
//
// Update replaces a calendar and, in the same store transaction, moves the
// next fire of every running job and workflow that names it to its first
// slot after now under the new rules and moves its update time; this
// replica's loop re-reads those jobs at once, other replicas at their next
// pre-read (the update time tells them), and each arms them on the new
// calendar.
//
// Thread safety: thread-safe (the store's and the loop's).
#ifndef GNOMON_SERVICES_SCHEDULER_CALENDAR_ADMIN_H_
#define GNOMON_SERVICES_SCHEDULER_CALENDAR_ADMIN_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "gnomon/v1/admin.pb.h"
#include "services/common/client/clock.h"
#include "services/common/schedule/calendar.h"
#include "services/common/store/calendar_store.h"
#include "services/scheduler/schedule_loop.h"

namespace gnomon::scheduler {

// The compiled calendar `schedule` names; null when it names none.
// NotFound naming `field` when no calendar has that name; Unimplemented
// when `store` is null and it names one.
absl::StatusOr<std::shared_ptr<const schedule::Calendar>> CalendarOf(store::CalendarStore* store,
                                                                     const v1::Schedule& schedule,
                                                                     std::string_view field);

class CalendarAdmin {
 public:
  // `loop` may be null (no loop on this replica to tell).
  CalendarAdmin(store::CalendarStore* store, Clock* clock, ScheduleLoop* loop)
      : store_(store), clock_(clock), loop_(loop) {}

  absl::StatusOr<v1::Calendar> Create(const v1::Calendar& calendar);
  absl::StatusOr<v1::Calendar> Get(std::string_view name);
  absl::StatusOr<v1::ListCalendarsResponse> List();
  absl::StatusOr<v1::Calendar> Update(const v1::Calendar& calendar);
  absl::Status Delete(std::string_view name);

 private:
  store::CalendarStore* const store_;
  Clock* const clock_;
  ScheduleLoop* const loop_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_CALENDAR_ADMIN_H_

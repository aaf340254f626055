// CalendarStore: calendars (gnomon.v1.Calendar, keyed by name) and the jobs
// and workflows whose schedule names one (Schedule.calendar).
//
//   absl::StatusOr<v1::Calendar> c = store.CreateCalendar(calendar, now_ms);
//   absl::StatusOr<std::vector<CalendarUser>> users = store.ListCalendarUsers("cn-workdays");
//   // ...compute each running user's next slot under the new rules...
//   c = store.UpdateCalendar(edited, moved, now_ms);
//
// One of the role-sized interfaces that together make up the Store
// (store.h); conventions (times, errors, thread safety) are store.h's.
#ifndef GNOMON_SERVICES_COMMON_STORE_CALENDAR_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_CALENDAR_STORE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/workflow.pb.h"
#include "services/common/store/table_version.h"

namespace gnomon::store {

// A job or a workflow whose schedule names a calendar, as it stands.
struct CalendarUser {
  enum class Kind { kJob, kWorkflow };
  Kind kind = Kind::kJob;
  int64_t id = 0;
  // The job (kJob) or the workflow (kWorkflow), as GetJob / GetWorkflow
  // return it; only the one of its kind is set.
  v1::Job job;
  v1::Workflow workflow;
  // Its cursor (kNever: none), and whether its schedule fires it (RUNNING).
  int64_t next_fire_ms = 0;
  bool running = false;
};

// A user's new cursor, written by UpdateCalendar.
struct CalendarCursor {
  CalendarUser::Kind kind = CalendarUser::Kind::kJob;
  int64_t id = 0;
  int64_t next_fire_ms = 0;
};

class CalendarStore {
 public:
  virtual ~CalendarStore() = default;

  // Stores a new calendar (its id, create and update times are the
  // store's). AlreadyExists naming calendar.name if one has that name.
  virtual absl::StatusOr<v1::Calendar> CreateCalendar(const v1::Calendar& calendar,
                                                      int64_t now_ms) = 0;
  // NotFound naming the calendar.
  virtual absl::StatusOr<v1::Calendar> GetCalendar(std::string_view name) = 0;
  // Every calendar, by name.
  virtual absl::StatusOr<std::vector<v1::Calendar>> ListCalendars() = 0;
  // Replaces the calendar named calendar.name (its id and create time
  // stay; its update time is now, and always later than any calendar's
  // before, so the version moves) and, in the same transaction, moves the
  // cursor of each listed job or workflow that is still RUNNING and still
  // names this calendar (others are left alone), bumping its update time
  // (now, or one past its own) so every replica re-reads it. NotFound
  // naming the calendar.
  virtual absl::StatusOr<v1::Calendar> UpdateCalendar(const v1::Calendar& calendar,
                                                      const std::vector<CalendarCursor>& cursors,
                                                      int64_t now_ms) = 0;
  // NotFound naming the calendar; FailedPrecondition naming a job ("job 12")
  // or workflow ("workflow 3") whose schedule names it, jobs first.
  virtual absl::Status DeleteCalendar(std::string_view name) = 0;
  // The jobs and workflows whose schedule names the calendar, by kind then
  // id (whether or not a calendar of that name exists).
  virtual absl::StatusOr<std::vector<CalendarUser>> ListCalendarUsers(std::string_view name) = 0;
  // One cheap read: the scheduler re-reads the calendars when it changes.
  virtual absl::StatusOr<TableVersion> GetCalendarsVersion() = 0;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_CALENDAR_STORE_H_

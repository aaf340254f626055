// CalendarBook: the calendars a scheduler loop needs, compiled, kept in
// step with the store by one cheap read per pass (the calendars' version).
//
//   CalendarBook book(store, clock);
//   book.Refresh();                           // at the start of each pre-read
//   std::shared_ptr<const schedule::Calendar> cal = book.Find("cn-workdays");
//
// Thread safety: one owner (the loop that keeps it); not thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_CALENDAR_BOOK_H_
#define GNOMON_SERVICES_SCHEDULER_CALENDAR_BOOK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "services/common/client/clock.h"
#include "services/common/schedule/calendar.h"
#include "services/common/store/calendar_store.h"

namespace gnomon::scheduler {

class CalendarBook {
 public:
  // `store` may be null: no calendars (every Find misses).
  CalendarBook(store::CalendarStore* store, Clock* clock) : store_(store), clock_(clock) {}

  // Re-reads every calendar if their version moved since the last read.
  void Refresh();
  // The calendar named `name`. One unknown to the book is looked for again
  // in the store (at most every 100 ms: a name just created elsewhere); null
  // when there is none, or the store could not be read.
  std::shared_ptr<const schedule::Calendar> Find(std::string_view name);

 private:
  void Load(const store::TableVersion& version);

  store::CalendarStore* const store_;
  Clock* const clock_;
  std::optional<store::TableVersion> version_;
  absl::flat_hash_map<std::string, std::shared_ptr<const schedule::Calendar>> calendars_;
  int64_t missed_ms_ = -1'000'000;  // When a Find last re-read the store for a name.
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_CALENDAR_BOOK_H_

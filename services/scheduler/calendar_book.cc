#include "services/scheduler/calendar_book.h"

#include <utility>
#include <vector>

#include "services/common/client/log.h"

namespace gnomon::scheduler {

void CalendarBook::Refresh() {
  if (store_ == nullptr) return;
  absl::StatusOr<store::TableVersion> version = store_->GetCalendarsVersion();
  if (!version.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: reading the calendars' version: " << version.status();
    return;  // Keep what is known; the next pass asks again.
  }
  if (version_ != *version) Load(*version);
}

void CalendarBook::Load(const store::TableVersion& version) {
  absl::StatusOr<std::vector<v1::Calendar>> all = store_->ListCalendars();
  if (!all.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: reading the calendars: " << all.status();
    return;
  }
  calendars_.clear();
  for (const v1::Calendar& c : *all) {
    absl::StatusOr<schedule::Calendar> compiled = schedule::Calendar::Compile(c);
    if (!compiled.ok()) {  // Validated when written: only a newer release's calendar.
      GNOMON_LOG(WARNING) << "scheduler: calendar '" << c.name()
                          << "' does not compile here: " << compiled.status();
      continue;
    }
    calendars_[c.name()] = std::make_shared<const schedule::Calendar>(*std::move(compiled));
  }
  version_ = version;
}

std::shared_ptr<const schedule::Calendar> CalendarBook::Find(std::string_view name) {
  auto it = calendars_.find(absl::string_view(name.data(), name.size()));
  if (it != calendars_.end()) return it->second;
  const int64_t now = clock_->NowMillis();
  if (store_ == nullptr || now - missed_ms_ < 100) return nullptr;
  missed_ms_ = now;
  version_.reset();  // Read them all again, whatever the version says.
  Refresh();
  it = calendars_.find(absl::string_view(name.data(), name.size()));
  return it == calendars_.end() ? nullptr : it->second;
}

}  // namespace gnomon::scheduler

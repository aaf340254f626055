// Calendar flags (calendar create / calendar update) applied to a v1::Calendar.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/names.h"
#include "cli/requests.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cli {

std::vector<FlagSpec> CalendarFlagSpecs() {
  return {
      {"zone", "", true, "ZONE",
       "IANA zone its dates and windows are read in ('' : the zone of the schedule using it, its "
       "cron's, else UTC)."},
      {"weekdays", "", true, "DAY,...",
       "The days of the week it allows: MON,TUE,WED,THU,FRI,SAT,SUN (any case; repeatable); '' "
       "for every day (the default)."},
      {"exclude", "", true, "DATE,...",
       "Dates it never allows (holidays): YYYY-MM-DD, or MM-DD for every year (repeatable); '' "
       "for none."},
      {"include", "", true, "DATE,...",
       "Dates it allows whatever their weekday (a working Saturday): YYYY-MM-DD (repeatable); '' "
       "for none. An excluded date wins."},
      {"window", "", true, "HH:MM-HH:MM",
       "A time of day it allows on an allowed date, from the first (inclusive) to the second; "
       "24:00 ends the day, 22:00-06:00 spans midnight (repeatable or a comma list); '' for all "
       "day (the default)."},
      {"description", "", true, "D", "For people."},
  };
}

absl::Status ApplyCalendarFlags(const ParsedArgs& args, v1::Calendar* calendar) {
  if (args.Has("weekdays")) {
    calendar->clear_weekdays();
    for (const std::string& word : SplitList(args.GetAll("weekdays"))) {
      absl::StatusOr<v1::Weekday> day = ParseWeekday(word);
      if (!day.ok()) {
        return absl::InvalidArgumentError(absl::StrCat("--weekdays: ", day.status().message()));
      }
      // "MON,MONDAY" is one day: the server takes each day once.
      if (std::find(calendar->weekdays().begin(), calendar->weekdays().end(), *day) ==
          calendar->weekdays().end()) {
        calendar->add_weekdays(*day);
      }
    }
  }
  if (auto zone = args.Get("zone")) calendar->set_time_zone(*zone);
  if (auto description = args.Get("description")) calendar->set_description(*description);
  ReplaceListFlag(args, "exclude", calendar->mutable_excluded_dates());
  ReplaceListFlag(args, "include", calendar->mutable_included_dates());
  ReplaceListFlag(args, "window", calendar->mutable_windows());
  return absl::OkStatus();
}

absl::StatusOr<v1::CreateCalendarRequest> BuildCreateCalendarRequest(const ParsedArgs& args) {
  RETURN_IF_ERROR(ExpectPositionals(args, {"NAME"}));
  v1::CreateCalendarRequest req;
  req.mutable_calendar()->set_name(args.positionals()[0]);
  RETURN_IF_ERROR(ApplyCalendarFlags(args, req.mutable_calendar()));
  return req;
}

}  // namespace gnomon::cli

// Calendars as apply documents: `kind: Calendar` v1.Manifests keyed by
// calendar.name. apply (apply_commands.cc) applies them with ApplyCalendar
// before every group, job and workflow, so a job may name a calendar its
// file declares; `get calendar|calendars` prints them, so its output applies
// back unchanged.
//
//   std::string outcome;
//   grpc::Status s = ApplyCalendar(c, manifest, /*dry_run=*/false, &outcome);
//   // outcome: "created", "configured" or "unchanged"
//
// Thread safety: functions of one CommandContext, on its thread.
#ifndef GNOMON_CLI_CALENDAR_MANIFEST_H_
#define GNOMON_CLI_CALENDAR_MANIFEST_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cli/command.h"
#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/manifest.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli {

// What the server cannot check in a Calendar document: calendar.name given,
// and no app (calendars belong to no group). InvalidArgument naming the field.
absl::Status CheckCalendarManifest(const v1::Manifest& manifest);

// A calendar's declaration: no id or times.
v1::Calendar DeclaredCalendar(v1::Calendar calendar);

// Creates the declared calendar, or replaces the one of that name when it
// differs from the declaration. A dry run reads but changes nothing.
grpc::Status ApplyCalendar(CommandContext& c, const v1::Manifest& manifest, bool dry_run,
                           std::string* outcome);

// get calendar NAME and get calendars; part of the `get` noun's table
// (ApplyCommands).
std::vector<Command> CalendarGetCommands();

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_CALENDAR_MANIFEST_H_

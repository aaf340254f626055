// Readable (table) output of gnomon objects for gnomonctl.
//
//   PrintJobTable(response.jobs(), /*wide=*/false, std::cout);
//   PrintRunDetails(get_run_response.run(), JobZone(job), std::cout);
//
// A job's times are shown in its zone (JobZone) as "2026-11-24 18:00:00
// +08:00"; other times in `zone` as RFC 3339 with milliseconds. Durations
// read "1.5s", enums are short lower-case words. `wide` tables (-o wide)
// carry extra columns.
// Thread safety: pure functions over their arguments.
#ifndef GNOMON_CLI_PRINTERS_H_
#define GNOMON_CLI_PRINTERS_H_

#include <ostream>

#include "absl/time/time.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/common.pb.h"
#include "google/protobuf/repeated_ptr_field.h"

namespace gnomon::cli {

template <typename T>
using Repeated = google::protobuf::RepeatedPtrField<T>;

void PrintGroupTable(const Repeated<v1::Group>& groups, absl::TimeZone zone, std::ostream& out);
// One group; its access token too when the server returned one.
void PrintGroupDetails(const v1::Group& group, absl::TimeZone zone, std::ostream& out);

void PrintJobTable(const Repeated<v1::Job>& jobs, bool wide, std::ostream& out);
void PrintJobDetails(const v1::Job& job, std::ostream& out);

void PrintRunTable(const Repeated<v1::Run>& runs, absl::TimeZone zone, bool wide,
                   std::ostream& out);
void PrintRunDetails(const v1::Run& run, absl::TimeZone zone, std::ostream& out);
// "2024-05-01T12:00:00.250+02:00  text"
void PrintLogLine(const v1::LogLine& line, absl::TimeZone zone, std::ostream& out);

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_PRINTERS_H_

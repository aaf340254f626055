// Text building blocks for gnomonctl output: times, durations, schedules,
// aligned tables and protobuf JSON.
//
//   Table t({"ID", "STATUS"});
//   t.AddRow({"12", "succeeded"});
//   t.Render(std::cout);          // columns padded to the widest cell
//   FormatTime(ts, absl::LocalTimeZone());   // "2024-05-01T12:00:00.250+02:00"
//   DescribeSchedule(job.schedule());        // "cron '0 * * * * ?' Europe/Berlin"
//
// Thread safety: pure functions; a Table is not shared between threads.
#ifndef GNOMON_CLI_FORMAT_H_
#define GNOMON_CLI_FORMAT_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gnomon/v1/common.pb.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/message.h"
#include "google/protobuf/timestamp.pb.h"

namespace gnomon::cli {

// An aligned text table; the last column is not padded.
class Table {
 public:
  explicit Table(std::vector<std::string> header);
  void AddRow(std::vector<std::string> cells);
  void Render(std::ostream& out) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// "KEY:   value" lines for one object, keys aligned; rows with an empty value
// are kept (shown as "-").
class Details {
 public:
  void Add(std::string key, std::string value);
  void Render(std::ostream& out) const;

 private:
  std::vector<std::pair<std::string, std::string>> rows_;
};

// Conversions between protobuf and Abseil time types.
absl::Time ToAbslTime(const google::protobuf::Timestamp& ts);
google::protobuf::Timestamp ToTimestamp(absl::Time t);
absl::Duration ToAbslDuration(const google::protobuf::Duration& d);
google::protobuf::Duration ToDurationProto(absl::Duration d);

// RFC 3339 with milliseconds in `zone`; "-" for an unset (zero) timestamp.
std::string FormatTime(const google::protobuf::Timestamp& ts, absl::TimeZone zone);
std::string FormatAbslTime(absl::Time t, absl::TimeZone zone);
// RFC 3339 with milliseconds in UTC, ending in "Z".
std::string FormatUtc(absl::Time t);
// A schedule time (next fire, previews) in `zone` with its offset:
// "2026-11-24 18:00:00 +08:00" (fractional seconds only when there are some);
// "-" for an unset timestamp.
std::string FormatScheduleTime(const google::protobuf::Timestamp& ts, absl::TimeZone zone);
std::string FormatAbslScheduleTime(absl::Time t, absl::TimeZone zone);
// The zone a job's times are shown in: its cron zone, else UTC (also for an
// unknown zone, which the server would not have accepted).
absl::TimeZone JobZone(const v1::Job& job);
// The same for any schedule (a workflow's): its cron zone, else UTC.
absl::TimeZone ScheduleZone(const v1::Schedule& schedule);
// "2s", "1m30s", "250ms"; "-" for zero.
std::string FormatDuration(const google::protobuf::Duration& d);
std::string FormatAbslDuration(absl::Duration d);

// "cron '0 * * * * ?' Europe/Berlin", "fix_rate 2s", "fix_delay 10s", "manual";
// then ", calendar NAME" and ", jitter 5m" when the schedule has them.
std::string DescribeSchedule(const v1::Schedule& schedule);
// "handler demo", "script shell v3".
std::string DescribeTask(const v1::Job& job);
// "auto" or "manual a:1,b:2".
std::string DescribeMembership(const v1::Group& group);
// end - start of a finished run, "-" otherwise.
std::string RunDuration(const v1::Run& run);
// start - trigger (how long a run waited to start), "-" before it started.
std::string RunWait(const v1::Run& run);

// Protobuf's JSON for `message` with proto field names, default-valued
// fields included, indented.
absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message, bool indent = true);

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_FORMAT_H_

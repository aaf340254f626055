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
#include <string>

#include "absl/time/time.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/workflow.pb.h"
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

// Calendars: NAME, ZONE, WEEKDAYS, EXCLUDED and INCLUDED (counts), WINDOWS;
// the details list every date. Times in `zone`.
void PrintCalendarTable(const Repeated<v1::Calendar>& calendars, std::ostream& out);
void PrintCalendarDetails(const v1::Calendar& calendar, absl::TimeZone zone, std::ostream& out);

// Alarm channels as the API shows them: NAME, KIND, URL (its origin), SECRET
// (yes/no: whether one is stored), CHAT, TEMPLATE (default/custom); the
// details print the template itself. Times in `zone`.
void PrintAlarmChannelTable(const Repeated<v1::AlarmChannel>& channels, std::ostream& out);
void PrintAlarmChannelDetails(const v1::AlarmChannel& channel, absl::TimeZone zone,
                              std::ostream& out);

// Pools (pool_printers.cc): NAME, SLOTS, RUNNING, QUEUED, DESCRIPTION; the
// details add the times, in `zone`. The queue of one pool: the runs holding
// its slots ("#" is "-"), then the queued ones numbered in the order they
// get a slot, times in `zone`; "N queued in all" when it shows fewer than
// queued_total.
void PrintPoolTable(const Repeated<v1::Pool>& pools, std::ostream& out);
void PrintPoolDetails(const v1::Pool& pool, absl::TimeZone zone, std::ostream& out);
void PrintPoolQueue(const v1::ListPoolQueueResponse& queue, absl::TimeZone zone, std::ostream& out);

// Workflows (workflow_printers.cc). A workflow's times, and its runs' when
// the command names it, are in its schedule's zone (ScheduleZone).
void PrintWorkflowTable(const Repeated<v1::Workflow>& workflows, std::ostream& out);
// Its settings, then one row per node: what it runs and what it waits for.
void PrintWorkflowDetails(const v1::Workflow& workflow, std::ostream& out);
void PrintWorkflowRunTable(const Repeated<v1::WorkflowRun>& runs, absl::TimeZone zone,
                           std::ostream& out);
// The run, then one row per node; outputs are cut to one short line unless
// `wide`, which also shows the shards that ended.
void PrintWorkflowRunDetails(const v1::WorkflowRun& run, absl::TimeZone zone, bool wide,
                             std::ostream& out);
// "2/5": the nodes of `run` that ended (by any outcome) of all its nodes.
std::string WorkflowNodesDone(const v1::WorkflowRun& run);

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_PRINTERS_H_

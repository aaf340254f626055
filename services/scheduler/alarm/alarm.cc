#include "services/scheduler/alarm/alarm.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "services/common/client/json_text.h"

namespace gnomon::scheduler::alarm {
namespace {

bool IsTimeField(const std::string& name) {
  return name == "scheduled_time" || name == "end_time" || name == "failed_since";
}

}  // namespace

AlarmChannel::~AlarmChannel() = default;

const char* KindName(AlarmKind kind) {
  switch (kind) {
    case AlarmKind::kDeadlineMissed:
      return "deadline_missed";
    case AlarmKind::kSucceeded:
      return "succeeded";
    default:
      return "failed";
  }
}

std::string FormatTimestamp(const google::protobuf::Timestamp& ts) {
  if (ts.seconds() == 0 && ts.nanos() == 0) return "";
  absl::Time t = absl::FromUnixSeconds(ts.seconds()) + absl::Nanoseconds(ts.nanos());
  return absl::FormatTime("%Y-%m-%d%ET%H:%M:%E3SZ", t, absl::UTCTimeZone());
}

std::vector<AlarmField> AlarmFields(const Alarm& alarm) {
  const v1::Job& job = alarm.job;
  const v1::Run& run = alarm.run;
  std::string trigger = v1::TriggerType_Name(run.trigger_type());
  if (trigger.empty()) trigger = absl::StrCat(static_cast<int>(run.trigger_type()));
  return {
      {"job_id", absl::StrCat(job.id()), true},
      {"job_description", job.description()},
      {"run_id", absl::StrCat(run.id()), true},
      {"first_run_id", absl::StrCat(run.first_run_id()), true},
      {"attempt", absl::StrCat(run.attempt()), true},
      {"trigger_type", trigger},
      {"executor_address", run.executor_address()},
      {"handle_code", absl::StrCat(run.handle_code()), true},
      {"handle_message", run.handle_message()},
      {"scheduled_time", FormatTimestamp(run.scheduled_time())},
      {"end_time", FormatTimestamp(run.end_time())},
      {"reason", alarm.reason},
      {"failed_runs", absl::StrCat(alarm.failed_runs), true},
      {"failed_since", FormatTimestamp(alarm.failed_since)},
      {"kind", KindName(alarm.kind)},
  };
}

absl::Status CombineDeliveries(const std::vector<absl::Status>& outcomes) {
  std::vector<std::string> errors;
  bool all_invalid = true;
  for (const absl::Status& s : outcomes) {
    if (s.ok()) continue;
    if (!absl::IsInvalidArgument(s)) all_invalid = false;
    errors.push_back(std::string(s.message()));
  }
  if (errors.empty()) return absl::OkStatus();
  std::string message = absl::StrJoin(errors, "; ");
  return all_invalid ? absl::InvalidArgumentError(message) : absl::UnavailableError(message);
}

std::string SummaryLine(const Alarm& alarm) {
  if (alarm.failed_runs <= 1) return "";
  std::string since = FormatTimestamp(alarm.failed_since);
  const char* what = alarm.kind == AlarmKind::kDeadlineMissed
                         ? " fires that missed their deadline, of job "
                     : alarm.kind == AlarmKind::kSucceeded ? " succeeded runs of job "
                                                           : " failed runs of job ";
  return absl::StrCat("Run ", alarm.run.id(), " is the latest of ", alarm.failed_runs, what,
                      alarm.job.id(), since.empty() ? "" : absl::StrCat(" since ", since),
                      " (their alarms were folded into this one while earlier alarms of the job "
                      "were being delivered).");
}

std::string AlarmJson(const Alarm& alarm) {
  std::string out = "{";
  bool first = true;
  for (const AlarmField& f : AlarmFields(alarm)) {
    if (!first) out.append(",");
    first = false;
    AppendJsonString(&out, f.name);
    out.append(":");
    if (f.numeric) {
      out.append(f.value);
    } else if (IsTimeField(f.name) && f.value.empty()) {
      out.append("null");
    } else {
      AppendJsonString(&out, f.value);
    }
  }
  out.append("}");
  return out;
}

}  // namespace gnomon::scheduler::alarm

// Alarm and AlarmChannel: what is raised when a run has finally failed (all
// its retries spent), and the interface every way of telling people about it
// implements (webhook, email, ...).
//
//   class ChatChannel final : public AlarmChannel {
//    public:
//     std::string name() const override { return "chat"; }
//     bool Wants(const v1::Job& job) const override { return !room_.empty(); }
//     absl::Status Send(const Alarm& alarm) override { ... }
//   };
//
// Channels are driven by AlarmSender on its own worker thread, never on a
// scheduling thread, so Send may block, but only up to the channel's own
// timeout.
//
// Thread safety: name() and Wants() must be thread-safe; Send is called from
// one thread at a time.
#ifndef GNOMON_SERVICES_SCHEDULER_ALARM_ALARM_H_
#define GNOMON_SERVICES_SCHEDULER_ALARM_ALARM_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "gnomon/v1/common.pb.h"

namespace gnomon::scheduler::alarm {

// What an alarm is about. Alarms of one kind fold only into a summary of
// that kind: a missed deadline is never reported as one more failure.
enum class AlarmKind {
  kFailed,          // A run failed for good (its retries spent).
  kDeadlineMissed,  // A fire's work was not done by its job's deadline.
  kSucceeded,       // A run succeeded (the job's alarm.on asks for it).
};
// "failed", "deadline_missed", "succeeded": the "kind" field of every alarm.
const char* KindName(AlarmKind kind);

// One finally-failed run and the job it belongs to, or a summary of several
// failed runs of one job (see AlarmSender: alarms raised while an earlier
// alarm of the job is still being delivered are folded into one), or the
// same for fires that missed their deadline (kind).
struct Alarm {
  v1::Job job;
  // The run, or for a summary the latest run it stands for.
  v1::Run run;
  // Why the alarm was raised, for people ("retries exhausted", ...); for a
  // summary, the latest run's reason.
  std::string reason;
  // How many failed runs of the job this alarm stands for: 1 for the alarm of
  // one run, N > 1 for a summary made by AlarmSender (`run` is the latest of
  // the N; the other N - 1 get no alarm of their own).
  int64_t failed_runs = 1;
  // For a summary (failed_runs > 1): when the earliest of its runs ended (or,
  // for a run without an end time, when its alarm was raised). Unset
  // otherwise.
  google::protobuf::Timestamp failed_since{};
  AlarmKind kind = AlarmKind::kFailed;
};

class AlarmChannel {
 public:
  virtual ~AlarmChannel();
  // Short lower-case name used in status strings and logs ("webhook").
  virtual std::string name() const = 0;
  // Whether this channel has anything to deliver for `job` (targets set and
  // the channel configured).
  virtual bool Wants(const v1::Job& job) const = 0;
  // Delivers one alarm to every target of the job. An error names the target
  // that failed and why; the whole delivery is retried by AlarmSender.
  virtual absl::Status Send(const Alarm& alarm) = 0;
};

// The alarm's fields as (name, value) pairs in a fixed order, values already
// rendered as text; shared by the channels so every channel says the same.
// Times are RFC 3339 UTC with milliseconds; unset times are empty. The last
// three are "failed_runs" (Alarm::failed_runs: for a deadline alarm, the
// fires that missed theirs), "failed_since" and "kind" (KindName).
struct AlarmField {
  std::string name;
  std::string value;
  // True for fields that are JSON numbers (ids, attempt, handle code).
  bool numeric = false;
};
std::vector<AlarmField> AlarmFields(const Alarm& alarm);

// One Send's outcome over several destinations (a job's webhooks, its chat
// channels): OK if every one went; else their errors joined with "; ", as
// InvalidArgument when none is worth a retry (AlarmSender does not retry
// those), Unavailable otherwise.
absl::Status CombineDeliveries(const std::vector<absl::Status>& outcomes);

// RFC 3339 UTC ("2026-01-02T03:04:05.678Z"), or "" for an unset timestamp.
std::string FormatTimestamp(const google::protobuf::Timestamp& ts);

// The JSON document a webhook receives: one object with AlarmFields (unset
// times as null), e.g. for a summary of 57 runs
// {"job_id":42,...,"reason":"...","failed_runs":57,"failed_since":"2026-01-02T03:04:05.000Z"}.
std::string AlarmJson(const Alarm& alarm);

// One sentence for people about what the alarm stands for: "" for the alarm
// of one run; for a summary, "Run 7 is the latest of 57 failed runs of job 42
// since 2026-01-02T03:04:05.000Z (their alarms were folded into this one
// while earlier alarms of the job were being delivered)."
std::string SummaryLine(const Alarm& alarm);

}  // namespace gnomon::scheduler::alarm

#endif  // GNOMON_SERVICES_SCHEDULER_ALARM_ALARM_H_

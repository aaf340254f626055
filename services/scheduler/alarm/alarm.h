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
#include "gnomon/v1/common.pb.h"

namespace gnomon::scheduler::alarm {

// One finally-failed run and the job it belongs to.
struct Alarm {
  v1::Job job;
  v1::Run run;
  // Why the alarm was raised, for people ("retries exhausted", ...).
  std::string reason;
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
// Times are RFC 3339 UTC with milliseconds; unset times are empty.
struct AlarmField {
  std::string name;
  std::string value;
  // True for fields that are JSON numbers (ids, attempt, handle code).
  bool numeric = false;
};
std::vector<AlarmField> AlarmFields(const Alarm& alarm);

// RFC 3339 UTC ("2026-01-02T03:04:05.678Z"), or "" for an unset timestamp.
std::string FormatTimestamp(const google::protobuf::Timestamp& ts);

// The JSON document a webhook receives: one object with AlarmFields (unset
// times as null).
std::string AlarmJson(const Alarm& alarm);

}  // namespace gnomon::scheduler::alarm

#endif  // GNOMON_SERVICES_SCHEDULER_ALARM_ALARM_H_

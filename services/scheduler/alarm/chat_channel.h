// ChatChannel: the alarm channel for the chat robots a job names in
// alarm.channels (v1::AlarmChannel, kept in the store by name): DingTalk,
// WeCom, Feishu, Slack and Telegram, one small ChatFormat each (like the
// routers). Each alarm is rendered as text from the channel's template
// (AlarmText) and posted where the channel says; the service's answer is
// checked the way it documents (an HTTP 200 may still say "errcode 310000").
// docs/alarms.md shows each kind's request; chat_formats.cc builds them.
//
//   ChatChannel chat([&](const std::string& name) { return book.Find(name); },
//                    {.timeout = absl::Seconds(5)});
//   absl::Status s = chat.Send(alarm);  // every named channel; errors name each
//
// Every named channel is tried on each Send; a failure of any makes Send
// fail naming it (by its name and url origin, never its token: a secret a
// service quotes back reads "<secret>"), and
// AlarmSender retries the whole delivery (a chat may then show a message
// twice) unless every failure is permanent (InvalidArgument: a channel that
// does not exist, a token or signature refused). A channel's url goes only
// where the webhook allow list lets it (VettedPost).
//
// Thread safety: thread-safe if `find` is (Send runs on AlarmSender's thread).
#ifndef GNOMON_SERVICES_SCHEDULER_ALARM_CHAT_CHANNEL_H_
#define GNOMON_SERVICES_SCHEDULER_ALARM_CHAT_CHANNEL_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gnomon/v1/common.pb.h"
#include "services/common/client/clock.h"
#include "services/scheduler/alarm/alarm.h"
#include "services/scheduler/alarm/vetted_post.h"
#include "services/scheduler/alarm/webhook_channel.h"

namespace gnomon::scheduler::alarm {

// A chat service's request for one message, and how its answer reads.
struct ChatRequest {
  std::string url;   // POSTed to, with the body as application/json.
  std::string body;  // JSON.
};

class ChatFormat {
 public:
  virtual ~ChatFormat();
  virtual v1::AlarmChannelKind kind() const = 0;
  // The request that posts `text` through `channel` (its url, secret, chat
  // id), signed at `now` where the service signs requests. `text` is sent
  // as valid UTF-8 (a stray byte becomes U+FFFD), cut to what the service
  // takes (docs/alarms.md).
  virtual ChatRequest Request(const v1::AlarmChannel& channel, const std::string& text,
                              absl::Time now) const = 0;
  // OK if the service's answer means the message was delivered; otherwise
  // Unavailable (worth retrying: 5xx, 429, a rate limit the service
  // reports) or InvalidArgument (never works as configured: a bad token or
  // signature, a chat that does not exist), saying what the service said.
  virtual absl::Status Check(long http_code, const std::string& body) const = 0;
};

// The format of `kind`; null for ALARM_CHANNEL_KIND_UNSPECIFIED or an
// unknown value.
const ChatFormat* FormatOf(v1::AlarmChannelKind kind);

// The text of `alarm` from `tmpl` ({{field}} replaced by the alarm's field:
// AlarmFields by their names, plus "job_name" (the job's name, "job-<id>"
// if it has none) and "summary" (SummaryLine: empty for the alarm of one
// run)); an empty `tmpl` is kDefaultAlarmTemplate. No spaces inside the
// braces. A {{...}} naming no field, or a "{{" never closed, stays as
// written (ValidateAlarmTemplate refuses both). Trailing blanks and line
// ends are dropped, so an empty last field leaves no blank line.
//
//   AlarmText("job {{job_name}}: {{reason}}", alarm)  // "job nightly: retries exhausted"
std::string AlarmText(std::string_view tmpl, const Alarm& alarm);
// OK if every {{...}} of `tmpl` names a field AlarmText knows; otherwise
// InvalidArgument, counting characters (UTF-8) from 1:
//   "<field>: unknown field {{x}} at character N"
//   "<field>: unknown field {{ job_id }} at character N (no spaces inside: {{job_id}})"
//   "<field>: {{ at character N has no closing }}"
absl::Status ValidateAlarmTemplate(std::string_view tmpl, std::string_view field);
// The default template, quoted in docs/alarms.md (alarms_doc_test checks it):
//   [gnomon] job {{job_name}} (id {{job_id}}) {{kind}}: {{reason}}
//   run: {{run_id}} (attempt {{attempt}})
//   executor: {{executor_address}}
//   handle code: {{handle_code}}
//   message: {{handle_message}}
//   scheduled: {{scheduled_time}}
//   {{summary}}
// The "[gnomon]" prefix also suits robots that require a keyword.
extern const char kDefaultAlarmTemplate[];

// A channel by name as the store holds it (secret included); NotFound if
// there is none.
using FindAlarmChannel = std::function<absl::StatusOr<v1::AlarmChannel>(const std::string& name)>;

struct ChatOptions {
  absl::Duration timeout = absl::Seconds(10);
  // Where a channel's url may point (as WebhookOptions::allow).
  curl::DestinationAllowList allow = *WebhookAllowList(kDefaultWebhookAllow);
  curl::Resolver resolver = curl::SystemResolve;
  Clock* clock = &RealClock();  // Signing times; null means RealClock().
};

class ChatChannel final : public AlarmChannel {
 public:
  ChatChannel(FindAlarmChannel find, ChatOptions options);

  std::string name() const override { return "chat"; }
  bool Wants(const v1::Job& job) const override { return job.alarm().channels_size() > 0; }
  absl::Status Send(const Alarm& alarm) override;
  // One message through `channel` now (TestAlarmChannel, and Send for each).
  absl::Status SendTo(const v1::AlarmChannel& channel, const Alarm& alarm) const;

 private:
  const FindAlarmChannel find_;
  const ChatOptions options_;
  const PostOptions post_;  // options_ as VettedPost takes them.
};

}  // namespace gnomon::scheduler::alarm

#endif  // GNOMON_SERVICES_SCHEDULER_ALARM_CHAT_CHANNEL_H_

// EmailChannel: one mail per alarm to the job's alarm.emails, over SMTP with
// libcurl (smtp:// with opportunistic STARTTLS, or smtps://).
//
//   EmailChannel email({.smtp_url = "smtp://mail.example.com:587",
//                       .from = "gnomon@example.com",
//                       .username = "gnomon", .password = "..."});
//
// Subject: "[gnomon] job <id> failed: <description>", or for a summary of N
// runs "[gnomon] job <id> failed (N runs): <description>"; the plain-text body
// says which run failed (and, for a summary, SummaryLine), then lists the same
// fields as the webhook's JSON document (AlarmFields).
//
// Thread safety: thread-safe (each Send uses its own curl handle).
#ifndef GNOMON_SERVICES_SCHEDULER_ALARM_EMAIL_CHANNEL_H_
#define GNOMON_SERVICES_SCHEDULER_ALARM_EMAIL_CHANNEL_H_

#include <string>
#include <utility>

#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/scheduler/alarm/alarm.h"

namespace gnomon::scheduler::alarm {

struct EmailOptions {
  // "smtp://host:port" or "smtps://host:port"; empty disables the channel.
  std::string smtp_url;
  // Envelope sender and From: address.
  std::string from = "gnomon@localhost";
  // SMTP AUTH credentials; empty username means no AUTH.
  std::string username;
  std::string password;
  // Bound on one mail (connect, dialogue, upload).
  absl::Duration timeout = absl::Seconds(30);
  // For smtp://: refuse to send unless the server offers STARTTLS (otherwise
  // TLS is used when offered).
  bool require_tls = false;
  // Source of the Date: header; nullptr means RealClock().
  Clock* clock = nullptr;
};

class EmailChannel final : public AlarmChannel {
 public:
  explicit EmailChannel(EmailOptions options);

  std::string name() const override { return "email"; }
  bool Wants(const v1::Job& job) const override;
  absl::Status Send(const Alarm& alarm) override;

 private:
  const EmailOptions options_;
  Clock* const clock_;
};

// The RFC 5322 message EmailChannel uploads (CRLF line ends), exposed for tests.
std::string AlarmMailMessage(const Alarm& alarm, const std::string& from, absl::Time now);

}  // namespace gnomon::scheduler::alarm

#endif  // GNOMON_SERVICES_SCHEDULER_ALARM_EMAIL_CHANNEL_H_

// WebhookChannel: POSTs one JSON document per alarm (see AlarmJson) to each
// of the job's alarm.webhook_urls. A summary of several failed runs is one
// document too: its "failed_runs" says how many runs it stands for (1 for the
// alarm of one run) and "failed_since" since when (null for one run).
//
//   WebhookChannel webhook({.timeout = absl::Seconds(5)});
//   absl::Status s = webhook.Send(alarm);  // "http://x/hook: HTTP 500" on failure
//
// Every URL is tried on each Send; a non-2xx answer or a transport error on
// any of them makes Send fail with a message naming those URLs, so a retry
// posts to every URL again (receivers can deduplicate on run_id). A URL is
// named by its origin only ("https://hooks.slack.com/..."): a webhook's path
// is often its secret. Each POST goes only where the allow list lets it
// (VettedPost, vetted_post.h), so that whoever may set a job's webhooks
// cannot make gnomond call internal services.
//
// Thread safety: thread-safe (each Send uses its own curl handle).
#ifndef GNOMON_SERVICES_SCHEDULER_ALARM_WEBHOOK_CHANNEL_H_
#define GNOMON_SERVICES_SCHEDULER_ALARM_WEBHOOK_CHANNEL_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "services/common/curl/destination_allow_list.h"
#include "services/common/curl/vetted_request.h"
#include "services/scheduler/alarm/alarm.h"
#include "services/scheduler/alarm/vetted_post.h"

namespace gnomon::scheduler::alarm {

// Any public destination, by name or address: loopback, private and
// link-local addresses (the cloud metadata service) only when listed.
inline constexpr char kDefaultWebhookAllow[] = "*,0.0.0.0/0,::/0";

// `list` as gnomond's --alarm-webhook-allow (InvalidArgument naming a bad entry).
absl::StatusOr<curl::DestinationAllowList> WebhookAllowList(absl::string_view list);

struct WebhookOptions {
  // Bound on one POST (connect, send, answer).
  absl::Duration timeout = absl::Seconds(10);
  // Where webhooks may go (a destination refused is a permanent failure).
  curl::DestinationAllowList allow = *WebhookAllowList(kDefaultWebhookAllow);
  // Tests substitute a fake DNS.
  curl::Resolver resolver = curl::SystemResolve;
};

class WebhookChannel final : public AlarmChannel {
 public:
  explicit WebhookChannel(WebhookOptions options);

  std::string name() const override { return "webhook"; }
  bool Wants(const v1::Job& job) const override;
  absl::Status Send(const Alarm& alarm) override;

 private:
  const PostOptions post_;
};

}  // namespace gnomon::scheduler::alarm

#endif  // GNOMON_SERVICES_SCHEDULER_ALARM_WEBHOOK_CHANNEL_H_

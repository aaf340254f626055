#include "services/scheduler/alarm/webhook_channel.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/common/curl/curl_util.h"

namespace gnomon::scheduler::alarm {

absl::StatusOr<curl::DestinationAllowList> WebhookAllowList(absl::string_view list) {
  return curl::DestinationAllowList::Parse(list, "--alarm-webhook-allow",
                                           "GNOMON_ALARM_WEBHOOK_ALLOW");
}

WebhookChannel::WebhookChannel(WebhookOptions options)
    : post_{.timeout = options.timeout,
            .allow = std::move(options.allow),
            .resolver = std::move(options.resolver)} {
  curl::CurlGlobalInit();
}

bool WebhookChannel::Wants(const v1::Job& job) const { return job.alarm().webhook_urls_size() > 0; }

absl::Status WebhookChannel::Send(const Alarm& alarm) {
  const std::string body = AlarmJson(alarm);
  std::vector<absl::Status> outcomes;
  for (const std::string& url : alarm.job.alarm().webhook_urls()) {
    absl::StatusOr<PostAnswer> answer = VettedPost(post_, url, body);
    absl::Status s = answer.status();
    if (s.ok() && (answer->http_code < 200 || answer->http_code > 299)) {
      s = absl::UnavailableError(absl::StrCat(curl::UrlOrigin(url), ": HTTP ", answer->http_code));
    }
    outcomes.push_back(std::move(s));
  }
  return CombineDeliveries(outcomes);
}

}  // namespace gnomon::scheduler::alarm

#include "services/scheduler/alarm/webhook_channel.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/curl/curl_util.h"

namespace gnomon::scheduler::alarm {
namespace {

size_t DiscardBody(char* /*data*/, size_t size, size_t n, void* /*user*/) { return size * n; }

}  // namespace

absl::StatusOr<curl::DestinationAllowList> WebhookAllowList(absl::string_view list) {
  return curl::DestinationAllowList::Parse(list, "--alarm-webhook-allow",
                                           "GNOMON_ALARM_WEBHOOK_ALLOW");
}

WebhookChannel::WebhookChannel(WebhookOptions options) : options_(std::move(options)) {
  curl::CurlGlobalInit();
}

bool WebhookChannel::Wants(const v1::Job& job) const { return job.alarm().webhook_urls_size() > 0; }

absl::Status WebhookChannel::Send(const Alarm& alarm) {
  const std::string body = AlarmJson(alarm);
  std::vector<std::string> errors;
  bool all_invalid = true;
  for (const std::string& url : alarm.job.alarm().webhook_urls()) {
    absl::Status s = Post(url, body);
    if (s.ok()) continue;
    if (!absl::IsInvalidArgument(s)) all_invalid = false;
    errors.push_back(std::string(s.message()));
  }
  if (errors.empty()) return absl::OkStatus();
  std::string message = absl::StrJoin(errors, "; ");
  // Only a delivery that can never succeed is reported as InvalidArgument
  // (AlarmSender does not retry those).
  return all_invalid ? absl::InvalidArgumentError(message) : absl::UnavailableError(message);
}

absl::Status WebhookChannel::Post(const std::string& url, const std::string& body) {
  const std::string shown = curl::UrlOrigin(url);
  absl::StatusOr<curl::VettedTarget> target = curl::Vet(options_.allow, options_.resolver, url);
  if (!target.ok()) {
    // A URL that is not http(s), or a destination not allowed, never works:
    // permanent. A name that does not resolve now may later.
    if (absl::IsUnavailable(target.status())) {
      return absl::UnavailableError(absl::StrCat(shown, ": ", target.status().message()));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        shown, ": ",
        absl::IsPermissionDenied(target.status()) ? target.status().message()
                                                  : "not an http:// or https:// URL with a host"));
  }
  curl::CurlEasy curl(curl_easy_init());
  curl::CurlSlist resolve;
  curl::CurlSlist headers;
  if (curl == nullptr || !curl::SlistAppend(&headers, "Content-Type: application/json") ||
      !curl::SlistAppend(&headers, "Expect:")) {
    return absl::ResourceExhaustedError(absl::StrCat(shown, ": cannot allocate a curl handle"));
  }
  char errbuf[CURL_ERROR_SIZE] = {0};
  long timeout_ms =
      static_cast<long>(std::max<int64_t>(1, absl::ToInt64Milliseconds(options_.timeout)));
  CURL* c = curl.get();
  if (absl::Status pinned = curl::Pin(c, *target, &resolve); !pinned.ok()) {
    return absl::ResourceExhaustedError(absl::StrCat(shown, ": ", pinned.message()));
  }
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_USERAGENT, "gnomon-alarm/1");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &DiscardBody);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(c);
  if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT) {
    return absl::InvalidArgumentError(absl::StrCat(shown, ": ", curl::CurlErrorText(rc, errbuf)));
  }
  if (rc != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat(shown, ": ", curl::CurlErrorText(rc, errbuf)));
  }
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  if (code < 200 || code > 299) {
    return absl::UnavailableError(absl::StrCat(shown, ": HTTP ", code));
  }
  return absl::OkStatus();
}

}  // namespace gnomon::scheduler::alarm

#include "services/scheduler/alarm/vetted_post.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "services/common/curl/curl_util.h"

namespace gnomon::scheduler::alarm {
namespace {

// Keeps the first kMaxPostAnswerBytes of the answer, reads and drops the rest.
size_t KeepBody(char* data, size_t size, size_t n, void* user) {
  auto* body = static_cast<std::string*>(user);
  const size_t bytes = size * n;
  if (body->size() < kMaxPostAnswerBytes) {
    body->append(data, std::min(bytes, kMaxPostAnswerBytes - body->size()));
  }
  return bytes;
}

}  // namespace

absl::StatusOr<PostAnswer> VettedPost(const PostOptions& options, const std::string& url,
                                      const std::string& body, absl::string_view shown_as) {
  curl::CurlGlobalInit();
  const std::string shown = shown_as.empty() ? curl::UrlOrigin(url) : std::string(shown_as);
  absl::StatusOr<curl::VettedTarget> target = curl::Vet(options.allow, options.resolver, url);
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
      static_cast<long>(std::max<int64_t>(1, absl::ToInt64Milliseconds(options.timeout)));
  CURL* c = curl.get();
  if (absl::Status pinned = curl::Pin(c, *target, &resolve); !pinned.ok()) {
    return absl::ResourceExhaustedError(absl::StrCat(shown, ": ", pinned.message()));
  }
  PostAnswer answer;
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
  curl_easy_setopt(c, CURLOPT_POST, 1L);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_USERAGENT, "gnomon-alarm/1");
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &KeepBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer.body);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(c);
  if (rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT) {
    return absl::InvalidArgumentError(absl::StrCat(shown, ": ", curl::CurlErrorText(rc, errbuf)));
  }
  if (rc != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat(shown, ": ", curl::CurlErrorText(rc, errbuf)));
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &answer.http_code);
  return answer;
}

}  // namespace gnomon::scheduler::alarm

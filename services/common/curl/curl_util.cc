#include "services/common/curl/curl_util.h"

#include <mutex>

#include "absl/strings/str_cat.h"

namespace gnomon::curl {

void CurlGlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool SlistAppend(CurlSlist* list, const std::string& item) {
  curl_slist* grown = curl_slist_append(list->get(), item.c_str());
  if (grown == nullptr) return false;
  (void)list->release();  // `grown` now owns the old nodes.
  list->reset(grown);
  return true;
}

std::string RedactUrl(const std::string& url) {
  std::string out = url;
  size_t query = out.find_first_of("?#");
  if (query != std::string::npos) out = out.substr(0, query) + "?...";
  size_t scheme = out.find("://");
  size_t host_start = scheme == std::string::npos ? 0 : scheme + 3;
  size_t path = out.find('/', host_start);
  size_t at = out.rfind('@', path == std::string::npos ? out.size() : path);
  if (at != std::string::npos && at >= host_start) out.erase(host_start, at + 1 - host_start);
  return out;
}

std::string UrlOrigin(const std::string& url) {
  const std::string redacted = RedactUrl(url);
  const size_t scheme = redacted.find("://");
  const size_t path = redacted.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (path == std::string::npos) return redacted;
  return redacted.substr(0, path) + "/...";
}

std::string Shown(absl::string_view text) {
  constexpr size_t kMax = 100;
  if (text.size() <= kMax) return std::string(text);
  return absl::StrCat(text.substr(0, kMax), "...");
}

std::string CurlErrorText(CURLcode code, const char* errbuf) {
  if (errbuf != nullptr && errbuf[0] != '\0') return errbuf;
  return curl_easy_strerror(code);
}

}  // namespace gnomon::curl

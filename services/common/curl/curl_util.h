// Small RAII helpers over libcurl's easy interface, shared by the alarm
// channels (services/scheduler/alarm/) and gnomon-executor's http handler.
// A library of its own: only what uses curl links it (the executor SDK does not).
//
// Thread safety: CurlGlobalInit is thread-safe; each handle is used by one
// thread.
#ifndef GNOMON_SERVICES_COMMON_CURL_CURL_UTIL_H_
#define GNOMON_SERVICES_COMMON_CURL_CURL_UTIL_H_

#include <curl/curl.h>

#include <memory>
#include <string>

#include "absl/strings/string_view.h"

namespace gnomon::curl {

// curl_global_init once per process (first channel constructed).
void CurlGlobalInit();

struct CurlEasyDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
using CurlEasy = std::unique_ptr<CURL, CurlEasyDeleter>;

struct CurlSlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using CurlSlist = std::unique_ptr<curl_slist, CurlSlistDeleter>;

// Appends to a list, keeping ownership in `list`; false when out of memory.
bool SlistAppend(CurlSlist* list, const std::string& item);

// A URL fit for logs and run records: user info and query removed.
std::string RedactUrl(const std::string& url);
// Less still, for URLs whose path is a secret (Slack-style webhooks): the
// scheme, host and port only, then "/..." if there was a path.
std::string UrlOrigin(const std::string& url);

// At most 100 characters of a value taken from a user (a job, a flag), for
// messages.
std::string Shown(absl::string_view text);

// The transport error text: curl's error buffer when set, else the code's text.
std::string CurlErrorText(CURLcode code, const char* errbuf);

}  // namespace gnomon::curl

#endif  // GNOMON_SERVICES_COMMON_CURL_CURL_UTIL_H_

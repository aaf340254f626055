#include "services/executor-sdk/gnomon-executor/http_handler.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "services/common/client/json_text.h"
#include "services/common/curl/curl_util.h"
#include "services/executor-sdk/gnomon-executor/task_params.h"

namespace gnomon::generic_executor {
namespace {

using executor::JobContext;

struct Response {
  std::string head;  // the first `limit` bytes of the body
  size_t limit = 0;
  size_t total = 0;
};

size_t CollectHead(char* data, size_t size, size_t count, void* user) {
  auto* r = static_cast<Response*>(user);
  const size_t n = size * count;
  if (r->head.size() < r->limit) r->head.append(data, std::min(n, r->limit - r->head.size()));
  r->total += n;
  return n;
}

int AbortIfCancelled(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const JobContext*>(user)->cancelled() ? 1 : 0;
}

struct Hop {
  long status = 0;
  std::string location;  // absolute, for a redirect
  Response body;
  absl::Duration took;
};

absl::StatusOr<Hop> Send(JobContext& ctx, const HttpHandlerOptions& options,
                         curl::VettedTarget& target, const std::string& method,
                         const std::string* body, const std::map<std::string, std::string>& headers,
                         absl::Time deadline, size_t log_bytes) {
  curl::CurlEasy curl(curl_easy_init());
  curl::CurlSlist header_list;
  curl::CurlSlist resolve;
  if (curl == nullptr) return absl::ResourceExhaustedError("cannot allocate a curl handle");
  bool expect_given = false;
  for (const auto& [name, value] : headers) {
    if (absl::EqualsIgnoreCase(name, "expect")) expect_given = true;
    // "Name;" is curl's spelling of a header with an empty value ("Name:" removes it).
    if (!curl::SlistAppend(&header_list, value.empty() ? absl::StrCat(name, ";")
                                                       : absl::StrCat(name, ": ", value))) {
      return absl::ResourceExhaustedError("cannot allocate headers");
    }
  }
  if (!expect_given && !curl::SlistAppend(&header_list, "Expect:")) {
    return absl::ResourceExhaustedError("cannot allocate headers");
  }
  const absl::Duration left = deadline - absl::Now();
  if (left <= absl::ZeroDuration()) return absl::DeadlineExceededError("no time left");
  const long left_ms = static_cast<long>(std::max<int64_t>(1, absl::ToInt64Milliseconds(left)));

  Hop hop;
  hop.body.limit = log_bytes;
  char errbuf[CURL_ERROR_SIZE] = {0};
  CURL* c = curl.get();
  if (absl::Status pinned = curl::Pin(c, target, &resolve); !pinned.ok()) return pinned;
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, left_ms);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, left_ms);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, header_list.get());
  curl_easy_setopt(c, CURLOPT_USERAGENT, options.user_agent.c_str());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &CollectHead);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &hop.body);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, &AbortIfCancelled);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &ctx);
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  if (method == "HEAD") {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else if (method != "GET") {
    if (method != "POST") curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
    // POST, PUT and PATCH always send a body (maybe empty, with Content-Length: 0).
    if (body != nullptr || method == "POST" || method == "PUT" || method == "PATCH") {
      static const std::string kEmpty;
      const std::string& b = body != nullptr ? *body : kEmpty;
      curl_easy_setopt(c, CURLOPT_POSTFIELDS, b.data());
      curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(b.size()));
    }
  }
  const absl::Time start = absl::Now();
  CURLcode rc = curl_easy_perform(c);
  hop.took = absl::Now() - start;
  if (rc != CURLE_OK) {
    std::string why = curl::CurlErrorText(rc, errbuf);
    if (rc == CURLE_OPERATION_TIMEDOUT) return absl::DeadlineExceededError(why);
    return absl::UnavailableError(why);
  }
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &hop.status);
  char* location = nullptr;
  if (curl_easy_getinfo(c, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location != nullptr) {
    hop.location = location;
  }
  return hop;
}

bool IsRedirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

std::string Expected(const v1::HttpTask& task) {
  if (task.expected_statuses().empty()) return "2xx";
  return absl::StrJoin(task.expected_statuses(), ", ");
}

bool StatusExpected(const v1::HttpTask& task, long status) {
  if (task.expected_statuses().empty()) return status >= 200 && status <= 299;
  return std::find(task.expected_statuses().begin(), task.expected_statuses().end(), status) !=
         task.expected_statuses().end();
}

}  // namespace

std::string PrintableUtf8(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == '\r') {
      } else if (c < 0x20 && c != '\n' && c != '\t') {
        out.push_back('?');
      } else if (c == 0x7f) {
        out.push_back('?');
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    const size_t len = Utf8CharLength(text, i);
    const bool ok = len > 0;
    if (ok) {
      out.append(text.data() + i, len);
      i += len;
    } else {
      out.push_back('?');
      ++i;
    }
  }
  return out;
}

void HttpHandler::operator()(JobContext& ctx) const {
  const HttpHandlerOptions& options = *options_;
  absl::StatusOr<v1::HttpTask> task = ParseHttpTask(ctx.params());
  if (!task.ok()) {
    ctx.SetResult(executor::kHandleFailure, std::string(task.status().message()));
    return;
  }
  const absl::Duration timeout =
      task->has_timeout() ? ToDuration(task->timeout()) : kDefaultHttpTimeout;
  const absl::Time deadline = std::min(absl::Now() + timeout, ctx.deadline());
  const size_t log_bytes =
      task->max_response_bytes() > 0 ? task->max_response_bytes() : kDefaultMaxResponseBytes;
  const uint32_t max_redirects =
      task->max_redirects() > 0 ? task->max_redirects() : kDefaultMaxRedirects;

  std::string url = task->url();
  std::string method = task->method();
  std::optional<std::string> body;
  if (!task->body().empty()) body = task->body();
  std::map<std::string, std::string> headers(task->headers().begin(), task->headers().end());
  std::string origin;  // scheme://host:port of the previous hop
  for (uint32_t redirects = 0;; ++redirects) {
    if (ctx.cancelled()) return;  // reported as killed / timed out
    absl::StatusOr<curl::VettedTarget> target = curl::Vet(options.allow, options.resolver, url);
    if (!target.ok()) {
      ctx.SetResult(executor::kHandleFailure,
                    absl::StrCat("http: ", redirects > 0 ? "redirect refused: " : "",
                                 target.status().message()));
      return;
    }
    const std::string here = absl::StrCat(target->scheme, "://", target->host, ":", target->port);
    if (!origin.empty() && here != origin) {
      // As browsers and curl do: credentials are for the origin they were given for.
      for (const char* name : {"authorization", "cookie", "proxy-authorization"}) {
        for (auto it = headers.begin(); it != headers.end();) {
          it = absl::EqualsIgnoreCase(it->first, name) ? headers.erase(it) : std::next(it);
        }
      }
    }
    origin = here;
    std::vector<std::string> ips;
    for (const IpAddress& ip : target->addresses) ips.push_back(ip.ToString());
    ctx.Log(absl::StrCat(method, " ", target->shown, " (", absl::StrJoin(ips, ", "), ")"));
    absl::StatusOr<Hop> hop =
        Send(ctx, options, *target, method, body ? &*body : nullptr, headers, deadline, log_bytes);
    if (!hop.ok()) {
      if (ctx.cancelled()) {
        ctx.Log(absl::StrCat("request aborted: ", ctx.cancellation().reason()));
        return;
      }
      const bool timed_out = absl::IsDeadlineExceeded(hop.status());
      ctx.SetResult(executor::kHandleFailure,
                    absl::StrCat("http: ", method, " ", target->shown,
                                 timed_out ? absl::StrCat(" timed out (limit ",
                                                          absl::FormatDuration(timeout), "): ")
                                           : " failed: ",
                                 hop.status().message()));
      return;
    }
    ctx.Log(absl::StrCat("HTTP ", hop->status, " in ", absl::ToInt64Milliseconds(hop->took),
                         " ms, ", hop->body.total, " bytes"));
    if (!hop->body.head.empty()) {
      ctx.Log(hop->body.total > hop->body.head.size()
                  ? absl::StrCat("response body (first ", hop->body.head.size(), " bytes):")
                  : "response body:");
      ctx.Log(PrintableUtf8(hop->body.head));
    }
    if (task->follow_redirects() && IsRedirect(hop->status) && !hop->location.empty()) {
      if (redirects == max_redirects) {
        ctx.SetResult(executor::kHandleFailure,
                      absl::StrCat("http: more than ", max_redirects, " redirects, the last to ",
                                   Shown(curl::RedactUrl(hop->location))));
        return;
      }
      // 303, and 301/302 after a POST, turn into a GET without a body (as
      // browsers and curl do); 307 and 308 repeat the request as it was.
      if ((hop->status == 303 && method != "HEAD") ||
          ((hop->status == 301 || hop->status == 302) && method == "POST")) {
        method = "GET";
        body.reset();
      }
      url = hop->location;
      continue;
    }
    const std::string summary =
        absl::StrCat("HTTP ", hop->status, " from ", method, " ", target->shown);
    if (StatusExpected(*task, hop->status)) {
      ctx.SetResult(executor::kHandleSuccess, summary);
    } else {
      ctx.SetResult(executor::kHandleFailure,
                    absl::StrCat(summary, " (expected ", Expected(*task), ")",
                                 IsRedirect(hop->status) && !task->follow_redirects()
                                     ? "; redirects are followed only with follow_redirects"
                                     : ""));
    }
    return;
  }
}

}  // namespace gnomon::generic_executor

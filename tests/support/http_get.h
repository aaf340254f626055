// HTTP(S) calls for tests: HttpGet, the body of a GET answered 200 (or
// nullopt), for tests that scrape /metrics; HttpCall, any request with its
// status, content type and body, for the HTTP/JSON API. For https:// URLs the
// server is verified against `tls.ca_file` and a client certificate is
// presented if given.
//
//   std::optional<std::string> body = HttpGet("http://127.0.0.1:9090/metrics");
//   HttpGet("https://127.0.0.1:9090/metrics", {.ca_file = pki.crt("ca")});
//   HttpResult r = HttpCall("POST", url + "/v1/JobAdmin/ListGroups", "{}", {"Authorization: Bearer
//   T"});
//
// Thread safety: thread-safe (curl_global_init must have run, as it does on
// the first call from one thread).
#ifndef GNOMON_TESTS_SUPPORT_HTTP_GET_H_
#define GNOMON_TESTS_SUPPORT_HTTP_GET_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gnomon::testing {

struct HttpsClient {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
};

struct HttpResult {
  long status = 0;  // 0: no answer (connection refused, TLS failure, timeout).
  std::string content_type;
  std::string body;
};

std::optional<std::string> HttpGet(const std::string& url, const HttpsClient& tls = {});
// `headers` are "Name: value" lines; a body is sent as application/json.
// `path_as_is`: send the path as written ("/a/../b"), as an attacker would.
// `on_body`, if given, sees the body received so far each time more arrives
// (a Server-Sent Event stream as it goes); such a call may last 90 s, others 30 s.
HttpResult HttpCall(const std::string& method, const std::string& url, const std::string& body,
                    const std::vector<std::string>& headers = {}, const HttpsClient& tls = {},
                    bool path_as_is = false,
                    const std::function<void(const std::string&)>& on_body = nullptr);

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_HTTP_GET_H_

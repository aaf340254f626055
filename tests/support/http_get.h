// HttpGet: the body of an HTTP(S) GET answered 200, or nullopt — for tests
// that scrape /metrics. For https:// URLs the server is verified against
// `tls.ca_file` and a client certificate is presented if given.
//
//   std::optional<std::string> body = HttpGet("http://127.0.0.1:9090/metrics");
//   HttpGet("https://127.0.0.1:9090/metrics", {.ca_file = pki.crt("ca")});
//
// Thread safety: thread-safe (curl_global_init must have run, as it does on
// the first call from one thread).
#ifndef GNOMON_TESTS_SUPPORT_HTTP_GET_H_
#define GNOMON_TESTS_SUPPORT_HTTP_GET_H_

#include <optional>
#include <string>

namespace gnomon::testing {

struct HttpsClient {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
};

std::optional<std::string> HttpGet(const std::string& url, const HttpsClient& tls = {});

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_HTTP_GET_H_

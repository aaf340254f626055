#include "tests/support/http_get.h"

#include <curl/curl.h>

namespace gnomon::testing {

HttpResult HttpCall(const std::string& method, const std::string& url, const std::string& body,
                    const std::vector<std::string>& headers, const HttpsClient& tls,
                    bool path_as_is, const std::function<void(const std::string&)>& on_body) {
  CURL* curl = curl_easy_init();
  HttpResult out;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, on_body ? 90L : 30L);
  curl_easy_setopt(curl, CURLOPT_FORBID_REUSE, 1L);  // Every call a new connection (and handshake).
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (path_as_is) curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);
  if (method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_slist* list = curl_slist_append(nullptr, "Content-Type: application/json");
  for (const std::string& h : headers) list = curl_slist_append(list, h.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  if (!tls.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, tls.ca_file.c_str());
  if (!tls.cert_file.empty()) {
    curl_easy_setopt(curl, CURLOPT_SSLCERT, tls.cert_file.c_str());
    curl_easy_setopt(curl, CURLOPT_SSLKEY, tls.key_file.c_str());
  }
  struct Sink {
    std::string* body;
    const std::function<void(const std::string&)>* on_body;
  } sink{&out.body, &on_body};
  curl_easy_setopt(
      curl, CURLOPT_WRITEFUNCTION, +[](char* p, size_t size, size_t n, void* to) {
        auto* s = static_cast<Sink*>(to);
        s->body->append(p, size * n);
        if (*s->on_body) (*s->on_body)(*s->body);
        return size * n;
      });
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  if (curl_easy_perform(curl) == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
    char* type = nullptr;
    if (curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type) == CURLE_OK && type != nullptr)
      out.content_type = type;
  }
  curl_slist_free_all(list);
  curl_easy_cleanup(curl);
  return out;
}

std::optional<std::string> HttpGet(const std::string& url, const HttpsClient& tls) {
  HttpResult r = HttpCall("GET", url, "", {}, tls);
  return r.status == 200 ? std::optional<std::string>(r.body) : std::nullopt;
}

}  // namespace gnomon::testing

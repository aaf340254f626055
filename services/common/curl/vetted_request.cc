#include "services/common/curl/vetted_request.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

namespace gnomon::curl {
namespace {

// A URL part as curl sees it ("" when absent).
std::string UrlPart(CURLU* url, CURLUPart part, unsigned flags = 0) {
  char* value = nullptr;
  if (curl_url_get(url, part, &value, flags) != CURLUE_OK || value == nullptr) return "";
  std::string out(value);
  curl_free(value);
  return out;
}

std::optional<IpAddress> FromSockaddr(const sockaddr* sa) {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (sa->sa_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, buf, sizeof buf);
  } else if (sa->sa_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, buf, sizeof buf);
  } else {
    return std::nullopt;
  }
  return IpAddress::Parse(buf);
}

// curl asks for every socket it connects: only to a vetted address (the
// pinning's backstop), and close-on-exec, since commands run beside us.
curl_socket_t OpenVettedSocket(void* user, curlsocktype purpose, curl_sockaddr* address) {
  const auto* vetted = static_cast<const std::vector<IpAddress>*>(user);
  std::optional<IpAddress> ip = FromSockaddr(&address->addr);
  if (purpose != CURLSOCKTYPE_IPCXN || !ip ||
      std::find(vetted->begin(), vetted->end(), *ip) == vetted->end()) {
    return CURL_SOCKET_BAD;
  }
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

}  // namespace

absl::StatusOr<VettedTarget> Vet(const DestinationAllowList& allow, const Resolver& resolver,
                                 const std::string& raw_url) {
  VettedTarget t;
  t.url.reset(curl_url());
  if (t.url == nullptr) return absl::ResourceExhaustedError("cannot allocate a curl URL");
  // The same parser as the request: what is checked is what is requested.
  if (CURLUcode rc = curl_url_set(t.url.get(), CURLUPART_URL, raw_url.c_str(), 0);
      rc != CURLUE_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("url '", Shown(RedactUrl(raw_url)), "': ", curl_url_strerror(rc)));
  }
  t.scheme = absl::AsciiStrToLower(UrlPart(t.url.get(), CURLUPART_SCHEME));
  t.shown = Shown(RedactUrl(UrlPart(t.url.get(), CURLUPART_URL)));
  if (t.scheme != "http" && t.scheme != "https") {
    return absl::InvalidArgumentError(
        absl::StrCat("url ", t.shown, ": only http:// and https:// URLs are allowed"));
  }
  std::string host = absl::AsciiStrToLower(UrlPart(t.url.get(), CURLUPART_HOST));
  if (absl::StartsWith(host, "[") && absl::EndsWith(host, "]")) {
    host = host.substr(1, host.size() - 2);
  } else {
    // "Example.COM." and "example.com" are one host: normalise it in the URL
    // too, so the pinned entry below is the one curl looks up.
    host = std::string(absl::StripSuffix(host, "."));
    curl_url_set(t.url.get(), CURLUPART_HOST, host.c_str(), 0);
  }
  if (host.empty() || !UrlPart(t.url.get(), CURLUPART_ZONEID).empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("url ", t.shown, ": no host, or an IPv6 zone (not allowed)"));
  }
  t.host = host;
  t.port = UrlPart(t.url.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT);
  if (absl::Status allowed = allow.CheckHost(host); !allowed.ok()) return allowed;
  if (std::optional<IpAddress> literal = IpAddress::Parse(host)) {
    t.host_is_address = true;
    t.addresses = {*literal};
    return t;
  }
  absl::StatusOr<std::vector<IpAddress>> resolved = resolver(host);
  if (!resolved.ok()) return resolved.status();
  if (absl::Status allowed = allow.CheckAddresses(host, *resolved); !allowed.ok()) {
    return allowed;
  }
  t.addresses = *std::move(resolved);
  return t;
}

absl::Status Pin(CURL* c, VettedTarget& target, CurlSlist* resolve) {
  if (!target.host_is_address) {
    std::vector<std::string> ips;
    for (const IpAddress& ip : target.addresses) {
      ips.push_back(ip.v6 ? absl::StrCat("[", ip.ToString(), "]") : ip.ToString());
    }
    if (!SlistAppend(resolve,
                     absl::StrCat(target.host, ":", target.port, ":", absl::StrJoin(ips, ",")))) {
      return absl::ResourceExhaustedError("cannot allocate the resolve list");
    }
  }
  curl_easy_setopt(c, CURLOPT_CURLU, target.url.get());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);  // redirects are the caller's to vet
  curl_easy_setopt(c, CURLOPT_PROXY, "");           // no proxy from the environment
  curl_easy_setopt(c, CURLOPT_RESOLVE, resolve->get());
  curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, &OpenVettedSocket);
  curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &target.addresses);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<IpAddress>> SystemResolve(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot resolve host ", Shown(host), ": ", ::gai_strerror(rc)));
  }
  std::vector<IpAddress> out;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    std::optional<IpAddress> ip = FromSockaddr(a->ai_addr);
    if (ip && std::find(out.begin(), out.end(), *ip) == out.end()) out.push_back(*ip);
  }
  ::freeaddrinfo(found);
  return out;
}

}  // namespace gnomon::curl

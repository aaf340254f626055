// Vetted requests: an outbound HTTP request made on a user's behalf goes
// only where a DestinationAllowList allows. Its URL's host is checked before
// anything is looked up, then every address it resolves to; the transfer is
// then pinned to those vetted addresses (CURLOPT_RESOLVE), and curl may open
// sockets only to them (CURLOPT_OPENSOCKETFUNCTION), so a name that answers
// differently on a second lookup (DNS rebinding) cannot move the request
// elsewhere. Proxies from the environment are not used (a proxy would
// connect to a destination nobody checked), only http and https, and
// redirects are not followed (a caller that follows one vets its target as
// it did the first).
//
//   absl::StatusOr<VettedTarget> t = Vet(allow, SystemResolve, url);
//   CurlSlist resolve;
//   if (t.ok() && Pin(curl, *t, &resolve).ok()) curl_easy_perform(curl);
//
// Thread safety: stateless; a target is used by one transfer at a time.
#ifndef GNOMON_SERVICES_COMMON_CURL_VETTED_REQUEST_H_
#define GNOMON_SERVICES_COMMON_CURL_VETTED_REQUEST_H_

#include <curl/curl.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/common/curl/curl_util.h"
#include "services/common/curl/destination_allow_list.h"

namespace gnomon::curl {

// Looks a host name up: its addresses, or an error saying why not.
using Resolver = std::function<absl::StatusOr<std::vector<IpAddress>>(const std::string& host)>;

// getaddrinfo (IPv4 and IPv6), duplicates removed.
absl::StatusOr<std::vector<IpAddress>> SystemResolve(const std::string& host);

struct CurlUrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
using CurlUrl = std::unique_ptr<CURLU, CurlUrlDeleter>;

// One destination, checked and resolved: what a request connects to.
struct VettedTarget {
  CurlUrl url;         // parsed by curl, host normalised
  std::string host;    // lower case; an IPv6 literal without brackets
  std::string port;    // "443"
  std::string scheme;  // "http" or "https"
  bool host_is_address = false;
  std::vector<IpAddress> addresses;  // vetted; the only ones curl may connect to
  std::string shown;                 // for logs and messages: no credentials, no query
};

// Parses `raw_url` with curl's own parser (what is checked is what is
// requested) and checks it against `allow`: InvalidArgument for a URL that
// is not http(s) or has no host, PermissionDenied (saying how to allow it)
// for a destination the list does not allow, the resolver's error for a
// name that does not resolve.
absl::StatusOr<VettedTarget> Vet(const DestinationAllowList& allow, const Resolver& resolver,
                                 const std::string& raw_url);

// Points `c` at `target` and only there (see the file comment). `resolve`
// holds the pinned addresses and must outlive the transfer.
absl::Status Pin(CURL* c, VettedTarget& target, CurlSlist* resolve);

}  // namespace gnomon::curl

#endif  // GNOMON_SERVICES_COMMON_CURL_VETTED_REQUEST_H_

// DestinationAllowList: where an outbound HTTP request made on a user's
// behalf may go — gnomon-executor's http handler (--http-allow /
// GNOMON_HTTP_ALLOW) and gnomond's alarm webhooks (--alarm-webhook-allow).
// An unrestricted one is a server-side request forgery tool: whoever may
// create a job could make the executor (or gnomond) call its cloud's
// metadata service (169.254.169.254), a database's admin port or any
// internal service, from inside the network (XXL-JOB's httpJobHandler,
// CVE-2025-7787). So the list is fail-closed: an empty list allows nothing.
//
// Entries, comma-separated:
//   api.example.com     that host name exactly (case-insensitive)
//   *.corp.example      any name below corp.example (not corp.example itself)
//   *                   any host name
//   10.0.0.0/8, fd00::/8, 127.0.0.1, ::1   addresses (a bare address is /32 or /128)
//
// A request is allowed when:
//   * its host is an address literal: an address entry contains it;
//   * its host is a name: a name entry matches it (an unmatched name is
//     refused before it is even looked up, so no DNS query leaves for it),
//     and every address the name resolves to is allowed below;
// and every address that is not public — loopback, private (RFC 1918, ULA),
// link-local (169.254.0.0/16 with the cloud metadata services, fe80::/10),
// shared, multicast, reserved, documentation, NAT64 and 6to4 — is contained
// in an address entry that lies inside that non-public range. `0.0.0.0/0` or
// `*` therefore never reach 127.0.0.1 or 169.254.169.254: only an entry such
// as `127.0.0.1` or `169.254.169.254` or `10.0.0.0/8` does. IPv4-mapped IPv6
// addresses (::ffff:a.b.c.d) are checked as the IPv4 address they carry.
//
// Ports are not restricted.
//
//   auto allow = DestinationAllowList::Parse("api.example.com,10.0.0.0/8");
//   absl::Status ok = allow->CheckName("api.example.com");     // before resolving
//   ok = allow->CheckAddresses("api.example.com", resolved);   // after
//
// Thread safety: immutable after Parse; safe to share.
#ifndef GNOMON_SERVICES_COMMON_CURL_DESTINATION_ALLOW_LIST_H_
#define GNOMON_SERVICES_COMMON_CURL_DESTINATION_ALLOW_LIST_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gnomon::curl {

// An IPv4 or IPv6 address. IPv4-mapped IPv6 addresses are stored as IPv4.
struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};  // IPv4: the first 4.

  // "10.1.2.3", "::1", "::ffff:10.1.2.3" (stored as 10.1.2.3); nullopt otherwise.
  static std::optional<IpAddress> Parse(absl::string_view text);
  int bits() const { return v6 ? 128 : 32; }
  std::string ToString() const;
  bool operator==(const IpAddress& o) const { return v6 == o.v6 && bytes == o.bytes; }
};

// An address range: `network` with its first `prefix` bits significant.
struct IpRange {
  IpAddress network;
  int prefix = 0;

  // "10.0.0.0/8", "fd00::/8", or a bare address (a range of one).
  static std::optional<IpRange> Parse(absl::string_view text);
  bool Contains(const IpAddress& ip) const;
  // True when every address of `inner` is in this range.
  bool Covers(const IpRange& inner) const;
  std::string ToString() const;
};

// The non-public range `ip` is in, with a name for messages ("loopback",
// "link-local (cloud metadata services live here)", ...); nullopt for a
// public address.
struct SpecialRange {
  IpRange range;
  const char* what;
};
std::optional<SpecialRange> SpecialRangeOf(const IpAddress& ip);

class DestinationAllowList {
 public:
  // Parses a comma-separated list (blanks around entries are ignored; an
  // empty list is valid and allows nothing). InvalidArgument naming the
  // first malformed entry. `flag` and `env` name the setting in messages.
  static absl::StatusOr<DestinationAllowList> Parse(absl::string_view list,
                                                    std::string flag = "--http-allow",
                                                    std::string env = "GNOMON_HTTP_ALLOW");

  bool empty() const { return names_.empty() && ranges_.empty(); }
  // The list as given, normalised (for messages and the start-up log line).
  std::string ToString() const;

  // Whether `host` (a URL's host: a lower-case name without a trailing dot,
  // or an address literal without brackets) may be requested at all: OK, or
  // PermissionDenied saying why and how to allow it. For an address literal
  // this is the whole check.
  absl::Status CheckHost(absl::string_view host) const;
  // Whether a name allowed by CheckHost may be reached at each of the
  // `addresses` it resolved to (none: refused).
  absl::Status CheckAddresses(absl::string_view host,
                              const std::vector<IpAddress>& addresses) const;

 private:
  bool AddressAllowed(const IpAddress& ip, bool host_named) const;

  std::vector<std::string> names_;  // "api.example.com", "*.corp.example", "*"
  std::vector<IpRange> ranges_;
  std::string flag_, env_;  // The setting, for messages.
};

}  // namespace gnomon::curl

#endif  // GNOMON_SERVICES_COMMON_CURL_DESTINATION_ALLOW_LIST_H_

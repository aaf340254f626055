#include "services/common/curl/destination_allow_list.h"

#include <arpa/inet.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "services/common/curl/curl_util.h"

namespace gnomon::curl {
namespace {

// A DNS name or a name pattern's fixed part: labels of letters, digits, '-'
// and '_' (internal names use it), 1 to 63 characters, 253 in all.
bool IsHostName(absl::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  for (absl::string_view label : absl::StrSplit(absl::string_view(name.data(), name.size()), '.')) {
    if (label.empty() || label.size() > 63) return false;
    for (char c : label) {
      if (!absl::ascii_isalnum(c) && c != '-' && c != '_') return false;
    }
  }
  return true;
}

bool NameMatches(const std::string& pattern, absl::string_view host) {
  if (pattern == "*") return true;
  if (absl::StartsWith(pattern, "*.")) {
    absl::string_view suffix = absl::string_view(pattern).substr(1);  // ".corp.example"
    return host.size() > suffix.size() && absl::EndsWith(host, suffix);
  }
  return host == pattern;
}

const std::vector<SpecialRange>& SpecialRanges() {
  static const auto* ranges = [] {
    auto* out = new std::vector<SpecialRange>();
    const std::pair<const char*, const char*> table[] = {
        {"0.0.0.0/8", "'this network' (0.0.0.0 reaches the local host)"},
        {"10.0.0.0/8", "private (RFC 1918)"},
        {"100.64.0.0/10", "shared (carrier-grade NAT)"},
        {"127.0.0.0/8", "loopback"},
        {"169.254.0.0/16", "link-local (cloud metadata services live here)"},
        {"172.16.0.0/12", "private (RFC 1918)"},
        {"192.0.0.0/24", "reserved (IETF protocol assignments)"},
        {"192.0.2.0/24", "documentation"},
        {"192.88.99.0/24", "reserved (6to4 relay)"},
        {"192.168.0.0/16", "private (RFC 1918)"},
        {"198.18.0.0/15", "reserved (benchmarking)"},
        {"198.51.100.0/24", "documentation"},
        {"203.0.113.0/24", "documentation"},
        {"224.0.0.0/4", "multicast"},
        {"240.0.0.0/4", "reserved (incl. broadcast)"},
        {"::/96", "unspecified, loopback or IPv4-compatible"},
        {"64:ff9b::/96", "NAT64 (carries an IPv4 address)"},
        {"64:ff9b:1::/48", "NAT64 (local use)"},
        {"100::/64", "discard-only"},
        {"2001::/23", "reserved (IETF protocol assignments, Teredo)"},
        {"2001:db8::/32", "documentation"},
        {"2002::/16", "6to4 (carries an IPv4 address)"},
        {"fc00::/7", "private (unique local)"},
        {"fe80::/10", "link-local"},
        {"fec0::/10", "site-local (deprecated)"},
        {"ff00::/8", "multicast"},
    };
    for (const auto& [cidr, what] : table) out->push_back({*IpRange::Parse(cidr), what});
    return out;
  }();
  return *ranges;
}

}  // namespace

std::optional<IpAddress> IpAddress::Parse(absl::string_view text) {
  const std::string s(text);
  IpAddress ip;
  if (::inet_pton(AF_INET, s.c_str(), ip.bytes.data()) == 1) return ip;
  if (::inet_pton(AF_INET6, s.c_str(), ip.bytes.data()) != 1) return std::nullopt;
  static constexpr uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::equal(kMapped, kMapped + 12, ip.bytes.begin())) {
    std::copy(ip.bytes.begin() + 12, ip.bytes.end(), ip.bytes.begin());
    std::fill(ip.bytes.begin() + 4, ip.bytes.end(), 0);
    return ip;
  }
  ip.v6 = true;
  return ip;
}

std::string IpAddress::ToString() const {
  char buf[INET6_ADDRSTRLEN] = {0};
  ::inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof buf);
  return buf;
}

std::optional<IpRange> IpRange::Parse(absl::string_view text) {
  absl::string_view address = text;
  std::optional<int> prefix;
  if (size_t slash = text.find('/'); slash != absl::string_view::npos) {
    address = text.substr(0, slash);
    int bits = -1;
    if (!absl::SimpleAtoi(text.substr(slash + 1), &bits)) return std::nullopt;
    prefix = bits;
  }
  // "::ffff:10.0.0.0/104" would be stored as IPv4 with a meaningless prefix.
  if (prefix && absl::StrContains(address, ':') && absl::StrContains(address, '.')) {
    return std::nullopt;
  }
  std::optional<IpAddress> ip = IpAddress::Parse(address);
  if (!ip) return std::nullopt;
  IpRange range{*ip, prefix.value_or(ip->bits())};
  if (range.prefix < 0 || range.prefix > ip->bits()) return std::nullopt;
  // Host bits must be zero ("10.1.0.0/8" is a typo for something).
  IpRange normal = range;
  for (int bit = range.prefix; bit < ip->bits(); ++bit) {
    normal.network.bytes[bit / 8] &= static_cast<uint8_t>(~(0x80 >> (bit % 8)));
  }
  if (!(normal.network == range.network)) return std::nullopt;
  return range;
}

bool IpRange::Contains(const IpAddress& ip) const {
  if (ip.v6 != network.v6) return false;
  for (int bit = 0; bit < prefix; ++bit) {
    const uint8_t mask = static_cast<uint8_t>(0x80 >> (bit % 8));
    if ((ip.bytes[bit / 8] & mask) != (network.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

bool IpRange::Covers(const IpRange& inner) const {
  return inner.prefix >= prefix && Contains(inner.network);
}

std::string IpRange::ToString() const {
  return prefix == network.bits() ? network.ToString()
                                  : absl::StrCat(network.ToString(), "/", prefix);
}

std::optional<SpecialRange> SpecialRangeOf(const IpAddress& ip) {
  // The most specific range, for the most telling name (::1 is in ::/96).
  std::optional<SpecialRange> found;
  for (const SpecialRange& r : SpecialRanges()) {
    if (r.range.Contains(ip) && (!found || r.range.prefix > found->range.prefix)) found = r;
  }
  return found;
}

absl::StatusOr<DestinationAllowList> DestinationAllowList::Parse(absl::string_view list,
                                                                 std::string flag,
                                                                 std::string env) {
  DestinationAllowList out;
  out.flag_ = std::move(flag);
  out.env_ = std::move(env);
  for (absl::string_view raw : absl::StrSplit(absl::string_view(list.data(), list.size()), ',')) {
    const std::string entry = absl::AsciiStrToLower(absl::StripAsciiWhitespace(raw));
    if (entry.empty()) continue;
    if (std::optional<IpRange> range = IpRange::Parse(entry)) {
      out.ranges_.push_back(*range);
      continue;
    }
    absl::string_view name = absl::StripSuffix(entry, ".");
    absl::string_view fixed = name == "*" ? "" : absl::StripPrefix(name, "*.");
    if (name == "*" || IsHostName(fixed)) {
      out.names_.emplace_back(name);
      continue;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        out.flag_, " entry '", Shown(entry),
        "' is neither a host name, a *.domain pattern, '*', an address nor an address/prefix "
        "(such as 10.0.0.0/8 with the host bits zero); schemes, ports and paths are not part "
        "of an entry"));
  }
  return out;
}

std::string DestinationAllowList::ToString() const {
  std::vector<std::string> parts = names_;
  for (const IpRange& r : ranges_) parts.push_back(r.ToString());
  return absl::StrJoin(parts, ",");
}

bool DestinationAllowList::AddressAllowed(const IpAddress& ip, bool host_named) const {
  if (std::optional<SpecialRange> special = SpecialRangeOf(ip)) {
    // Only an entry inside the non-public range admits it: 0.0.0.0/0 does not.
    for (const SpecialRange& r : SpecialRanges()) {
      if (!r.range.Contains(ip)) continue;
      for (const IpRange& entry : ranges_) {
        if (entry.Contains(ip) && r.range.Covers(entry)) return true;
      }
    }
    return false;
  }
  if (host_named) return true;
  return std::any_of(ranges_.begin(), ranges_.end(),
                     [&](const IpRange& entry) { return entry.Contains(ip); });
}

absl::Status DestinationAllowList::CheckHost(absl::string_view host) const {
  if (empty()) {
    return absl::PermissionDeniedError(
        absl::StrCat("http requests are refused: the ", flag_, " list (", env_,
                     ") is empty. Start the process with the hosts that may be called, e.g. ",
                     flag_, "=api.example.com,*.corp.example,10.0.0.0/8"));
  }
  const std::string how =
      absl::StrCat(" by the ", flag_, " list (", env_, ": ", Shown(ToString()), ")");
  if (std::optional<IpAddress> ip = IpAddress::Parse(host)) {
    if (AddressAllowed(*ip, /*host_named=*/false)) return absl::OkStatus();
    std::optional<SpecialRange> special = SpecialRangeOf(*ip);
    return absl::PermissionDeniedError(absl::StrCat(
        "address ", ip->ToString(),
        special ? absl::StrCat(" (", special->what, ")") : std::string(), " is not allowed", how,
        special
            ? absl::StrCat("; to allow it, list it or a range inside ", special->range.ToString())
            : "; to allow it, list it or a range containing it"));
  }
  if (!IsHostName(host)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "host '", Shown(host),
        "' is not an address nor a host name of ASCII letters, digits, '-' and '_' (write an "
        "internationalised name in its xn-- form)"));
  }
  for (const std::string& pattern : names_) {
    if (NameMatches(pattern, host)) return absl::OkStatus();
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "host ", Shown(host), " is not allowed", how,
      "; to allow it, list the name (or *.its-domain) there (address entries admit only URLs "
      "that name an address)"));
}

absl::Status DestinationAllowList::CheckAddresses(absl::string_view host,
                                                  const std::vector<IpAddress>& addresses) const {
  if (addresses.empty()) {
    return absl::UnavailableError(absl::StrCat("host ", Shown(host), " resolved to no address"));
  }
  for (const IpAddress& ip : addresses) {
    if (AddressAllowed(ip, /*host_named=*/true)) continue;
    std::optional<SpecialRange> special = SpecialRangeOf(ip);
    return absl::PermissionDeniedError(absl::StrCat(
        "host ", Shown(host), " resolves to ", ip.ToString(), " (",
        special ? special->what : "not public", "), which is not allowed by the ", flag_, " list (",
        env_,
        "); a name entry admits public addresses only: to reach this one, also list it or a "
        "range inside ",
        special ? special->range.ToString() : ip.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace gnomon::curl

// The destination allow-list read as its specification: which destinations
// an outbound request (gnomon-executor's http handler, gnomond's webhooks)
// may reach.
#include "services/common/curl/destination_allow_list.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace gnomon::curl {
namespace {

DestinationAllowList Allow(const std::string& list) {
  absl::StatusOr<DestinationAllowList> allow = DestinationAllowList::Parse(list);
  EXPECT_TRUE(allow.ok()) << allow.status();
  return allow.ok() ? *allow : DestinationAllowList();
}

std::vector<IpAddress> Ips(std::vector<std::string> texts) {
  std::vector<IpAddress> out;
  for (const std::string& t : texts) out.push_back(*IpAddress::Parse(t));
  return out;
}

// A name allowed and resolving to `ips`.
bool Reachable(const DestinationAllowList& allow, const std::string& host,
               std::vector<std::string> ips) {
  return allow.CheckHost(host).ok() && allow.CheckAddresses(host, Ips(std::move(ips))).ok();
}

TEST(DestinationAllowListTest, EmptyListRefusesEverythingAndSaysHowToAllow) {
  DestinationAllowList allow = Allow(" , ");
  EXPECT_TRUE(allow.empty());
  absl::Status s = allow.CheckHost("api.example.com");
  EXPECT_TRUE(absl::IsPermissionDenied(s));
  EXPECT_NE(s.message().find("--http-allow"), std::string::npos) << s;
  EXPECT_NE(s.message().find("GNOMON_HTTP_ALLOW"), std::string::npos) << s;
  EXPECT_TRUE(absl::IsPermissionDenied(allow.CheckHost("8.8.8.8")));
}

TEST(DestinationAllowListTest, HostNamesMatchExactlyAndCaseInsensitively) {
  DestinationAllowList allow = Allow("API.Example.com.");
  EXPECT_TRUE(allow.CheckHost("api.example.com").ok());
  EXPECT_TRUE(absl::IsPermissionDenied(allow.CheckHost("example.com")));
  EXPECT_TRUE(absl::IsPermissionDenied(allow.CheckHost("x.api.example.com")));
  EXPECT_TRUE(absl::IsPermissionDenied(allow.CheckHost("api.example.com.evil.test")));
  // A name that is not a host name is not "unlisted" but malformed.
  EXPECT_TRUE(absl::IsInvalidArgument(allow.CheckHost("api.example.com\xc3\xa9")));
}

TEST(DestinationAllowListTest, WildcardsMatchSubdomainsOnly) {
  DestinationAllowList allow = Allow("*.corp.example");
  EXPECT_TRUE(allow.CheckHost("billing.corp.example").ok());
  EXPECT_TRUE(allow.CheckHost("a.b.corp.example").ok());
  EXPECT_TRUE(absl::IsPermissionDenied(allow.CheckHost("corp.example")));
  EXPECT_TRUE(absl::IsPermissionDenied(allow.CheckHost("evilcorp.example")));
  EXPECT_TRUE(absl::IsPermissionDenied(allow.CheckHost("corp.example.evil.test")));
  // '*' is any name, never an address literal.
  DestinationAllowList any = Allow("*");
  EXPECT_TRUE(any.CheckHost("anything.example.org").ok());
  EXPECT_TRUE(absl::IsPermissionDenied(any.CheckHost("93.184.216.34")));
}

TEST(DestinationAllowListTest, AddressEntriesAdmitAddressLiteralsNotNames) {
  DestinationAllowList allow = Allow("10.0.0.0/8,127.0.0.1");
  EXPECT_TRUE(allow.CheckHost("10.20.30.40").ok());
  EXPECT_TRUE(allow.CheckHost("127.0.0.1").ok());
  EXPECT_TRUE(absl::IsPermissionDenied(allow.CheckHost("127.0.0.2")));
  EXPECT_TRUE(absl::IsPermissionDenied(allow.CheckHost("11.0.0.1")));
  // A name is refused before it is looked up, even if it would resolve inside.
  absl::Status s = allow.CheckHost("localhost");
  EXPECT_TRUE(absl::IsPermissionDenied(s));
  EXPECT_NE(s.message().find("host localhost is not allowed"), std::string::npos) << s;
}

TEST(DestinationAllowListTest, CidrsMatchByPrefix) {
  DestinationAllowList allow = Allow("192.168.4.0/22, 2001:4860::/32");
  EXPECT_TRUE(allow.CheckHost("192.168.4.1").ok());
  EXPECT_TRUE(allow.CheckHost("192.168.7.255").ok());
  EXPECT_TRUE(absl::IsPermissionDenied(allow.CheckHost("192.168.8.0")));
  EXPECT_TRUE(absl::IsPermissionDenied(allow.CheckHost("192.168.3.255")));
  EXPECT_TRUE(allow.CheckHost("2001:4860:4860::8888").ok());
  EXPECT_TRUE(absl::IsPermissionDenied(allow.CheckHost("2001:4861::1")));
}

TEST(DestinationAllowListTest, Ipv6LoopbackOnlyWhenListed) {
  EXPECT_TRUE(absl::IsPermissionDenied(Allow("127.0.0.1").CheckHost("::1")));
  EXPECT_TRUE(absl::IsPermissionDenied(Allow("::/0").CheckHost("::1")));
  EXPECT_TRUE(Allow("::1").CheckHost("::1").ok());
  EXPECT_TRUE(Allow("::1").CheckHost("0:0:0:0:0:0:0:1").ok());
  // IPv4-mapped IPv6 is the IPv4 address it carries.
  EXPECT_TRUE(Allow("127.0.0.1").CheckHost("::ffff:127.0.0.1").ok());
  EXPECT_TRUE(absl::IsPermissionDenied(Allow("::/0,0.0.0.0/0").CheckHost("::ffff:127.0.0.1")));
  EXPECT_TRUE(absl::IsPermissionDenied(
      Allow("*.example.com").CheckAddresses("a.example.com", Ips({"::ffff:169.254.169.254"}))));
}

TEST(DestinationAllowListTest, MetadataAddressRefusedUnlessListedInsideItsRange) {
  // Neither a catch-all range nor a name entry reaches the metadata service.
  for (const char* list : {"0.0.0.0/0", "*", "0.0.0.0/1,128.0.0.0/1", "*.internal"}) {
    DestinationAllowList allow = Allow(list);
    absl::Status literal = allow.CheckHost("169.254.169.254");
    EXPECT_TRUE(absl::IsPermissionDenied(literal)) << list;
    EXPECT_NE(literal.message().find("link-local"), std::string::npos) << literal;
    EXPECT_FALSE(Reachable(allow, "metadata.google.internal", {"169.254.169.254"})) << list;
  }
  EXPECT_TRUE(Allow("169.254.169.254").CheckHost("169.254.169.254").ok());
  EXPECT_TRUE(Allow("169.254.0.0/16").CheckHost("169.254.169.254").ok());
  EXPECT_TRUE(Reachable(Allow("metadata.google.internal,169.254.169.254"),
                        "metadata.google.internal", {"169.254.169.254"}));
}

TEST(DestinationAllowListTest, NamesReachPublicAddressesAndListedPrivateOnes) {
  DestinationAllowList allow = Allow("*.corp.example,10.1.0.0/16");
  EXPECT_TRUE(Reachable(allow, "api.corp.example", {"93.184.216.34", "2606:2800:220:1::1"}));
  EXPECT_TRUE(Reachable(allow, "db.corp.example", {"10.1.2.3"}));
  // DNS rebinding: an allowed name answering with an address nobody listed.
  for (const char* ip : {"10.2.0.1", "127.0.0.1", "::1", "192.168.1.1", "172.16.0.1", "fd00::1",
                         "fe80::1", "0.0.0.0", "100.64.0.1", "224.0.0.1", "64:ff9b::a01:203"}) {
    absl::Status s = allow.CheckAddresses("evil.corp.example", Ips({"93.184.216.34", ip}));
    EXPECT_TRUE(absl::IsPermissionDenied(s)) << ip;
    EXPECT_NE(s.message().find("resolves to"), std::string::npos) << s;
  }
  EXPECT_FALSE(allow.CheckAddresses("api.corp.example", {}).ok());
}

TEST(DestinationAllowListTest, MalformedEntriesAreRefusedByName) {
  for (const char* bad :
       {"http://api.example.com", "api.example.com:443", "10.0.0.1/8", "10.0.0.0/33", "a.*.example",
        "*example.com", "/tmp", "fe80::/129", "::ffff:10.0.0.0/104"}) {
    absl::StatusOr<DestinationAllowList> allow = DestinationAllowList::Parse(bad);
    EXPECT_TRUE(absl::IsInvalidArgument(allow.status())) << bad;
    if (!allow.ok()) {
      EXPECT_NE(allow.status().message().find("--http-allow entry"), std::string::npos);
    }
  }
}

TEST(DestinationAllowListTest, ToStringNormalises) {
  EXPECT_EQ(Allow(" API.example.com , 10.0.0.0/8,::1 ").ToString(),
            "api.example.com,10.0.0.0/8,::1");
}

}  // namespace
}  // namespace gnomon::curl

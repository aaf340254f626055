// Attacks on gnomond's HTTP listener by a caller with no credential, against
// a real gnomond on loopback: slowloris, bodies announced before any
// credential, and request-smuggling shapes. Each asserts the refusal, that an
// admin's calls keep being answered meanwhile, and that gnomond's memory
// stays bounded. (The admin calls' lateness is printed, not asserted: the
// machines that run this are shared.)
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/http_get.h"
#include "tests/support/proc_stats.h"
#include "tests/support/raw_http_client.h"

namespace gnomon {
namespace {

using testing::HttpCall;
using testing::HttpResult;
using testing::RawHttpClient;

// Short, so each attack is over in seconds.
constexpr char kHeadTimeout[] = "--http-head-timeout=2s";
constexpr int kPerClient = 32;
constexpr int64_t kMaxRssKiB = 300 * 1024;

class HttpAttacksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    std::optional<std::string> url = cluster_.HttpUrl();
    ASSERT_TRUE(url) << cluster_.Output();
    base_ = *url;
    ASSERT_TRUE(absl::SimpleAtoi(base_.substr(base_.rfind(':') + 1), &port_)) << base_;
  }

  HttpResult ListJobs() {
    return HttpCall("POST", base_ + "/v1/JobAdmin/ListJobs", "{}",
                    {"Authorization: Bearer " + cluster_.admin_token()});
  }

  // gnomond's resident memory (KiB) now.
  int64_t RssKiB() { return testing::Resident(cluster_.gnomond()->pid()).total; }

  // gnomond's CPU time (user + system) so far, in seconds.
  double CpuSeconds() { return testing::CpuSeconds(cluster_.gnomond()->pid()); }

  // `n` admin calls, one every `every` (an operator's pace): how many were
  // answered 200, and their latencies (printed by the caller).
  int AdminCalls(int n, std::vector<absl::Duration>* took,
                 absl::Duration every = absl::ZeroDuration()) {
    int ok = 0;
    for (int i = 0; i < n; ++i) {
      const absl::Time start = absl::Now();
      const HttpResult r = ListJobs();
      took->push_back(absl::Now() - start);
      ok += r.status == 200;
      absl::SleepFor(every - (absl::Now() - start));  // The pace, not a synchronisation.
    }
    return ok;
  }
  static void PrintLatencies(const std::string& attack, std::vector<absl::Duration> took) {
    std::sort(took.begin(), took.end());
    if (took.empty()) return;
    std::printf("%s: admin ListJobs p50 %s, p99 %s, max %s (%zu calls)\n", attack.c_str(),
                absl::FormatDuration(took[took.size() / 2]).c_str(),
                absl::FormatDuration(took[(took.size() * 99) / 100]).c_str(),
                absl::FormatDuration(took.back()).c_str(), took.size());
  }

  testing::GnomonCluster cluster_{{"--http-listen=127.0.0.1:0", kHeadTimeout,
                                   absl::StrCat("--http-max-connections-per-client=", kPerClient)}};
  std::string base_;
  int port_ = 0;
};

// 300 connections from one other address, each sending a header byte at a
// time and never finishing its head (slowloris). Beyond kPerClient at once
// they are refused at once; the others are answered 408 once the head
// timeout passes. The admin, from its own address, is served all along.
TEST_F(HttpAttacksTest, SlowlorisFromOneAddressNeitherStarvesTheAdminNorHoldsItsConnections) {
  constexpr int kSockets = 300;
  std::vector<std::unique_ptr<RawHttpClient>> attackers;
  for (int i = 0; i < kSockets; ++i) {
    attackers.push_back(std::make_unique<RawHttpClient>(port_, "127.0.0.2"));
    attackers.back()->Send("POST /v1/JobAdmin/ListJobs HTTP/1.1\r\n");
  }
  std::vector<absl::Duration> took;
  int answered = 0;
  std::thread admin([&] { answered = AdminCalls(80, &took, absl::Milliseconds(35)); });
  // The attack goes on: a byte per header, every 200 ms, for 3 s (past the
  // 2 s head timeout).
  for (int tick = 0; tick < 15; ++tick) {
    for (auto& a : attackers) a->Send("X");
    absl::SleepFor(absl::Milliseconds(200));  // The attacker's pace, not a synchronisation.
  }
  admin.join();
  EXPECT_EQ(answered, 80) << "every admin call answered during the attack";
  PrintLatencies("slowloris, 300 sockets", took);
  int busy = 0, timed_out = 0;
  for (auto& a : attackers) {
    const std::string got = a->ReadAll();
    busy += absl::StartsWith(got, "HTTP/1.1 503");
    timed_out += absl::StartsWith(got, "HTTP/1.1 408");
  }
  // Each was refused: at once beyond the cap, or with 408 at the head
  // timeout (then its slot went to another of them, accepted later).
  EXPECT_EQ(busy + timed_out, kSockets)
      << busy << " refused at once, " << timed_out << " timed out";
  EXPECT_GE(busy, kSockets / 2);
  EXPECT_LE(RssKiB(), kMaxRssKiB);
}

// Bodies announced without a credential are never read: 40 requests each
// announcing 8 MiB are refused from their heads (401) while their senders
// still hold the bodies back, and gnomond's memory does not grow by them.
TEST_F(HttpAttacksTest, BodiesAnnouncedWithoutACredentialAreRefusedUnread) {
  const int64_t before = RssKiB();
  std::vector<std::unique_ptr<RawHttpClient>> senders;
  for (int i = 0; i < 40; ++i) {
    // From four addresses: each within its connection cap.
    const std::string from = absl::StrCat("127.0.0.", 10 + i % 4);
    senders.push_back(std::make_unique<RawHttpClient>(port_, from.c_str()));
    const std::string credential =
        i % 2 == 0 ? "" : "Authorization: Bearer not-a-token-of-this-cluster\r\n";
    senders.back()->Send(absl::StrCat("POST /v1/JobAdmin/CreateJob HTTP/1.1\r\n", credential,
                                      "Content-Length: 8388608\r\n\r\n", std::string(4096, '{')));
  }
  for (auto& s : senders) {
    const std::string got = s->ReadAll();
    EXPECT_TRUE(absl::StartsWith(got, "HTTP/1.1 401 Unauthorized")) << got.substr(0, 80);
    EXPECT_NE(got.find("Connection: close"), std::string::npos);
  }
  EXPECT_LE(RssKiB() - before, 64 * 1024) << "no announced body was buffered";
  std::vector<absl::Duration> took;
  EXPECT_EQ(AdminCalls(10, &took), 10);
  // Login, which no credential vouches for yet, may send 64 KiB at most.
  RawHttpClient login(port_, "127.0.0.3");
  login.Send("POST /v1/JobAdmin/Login HTTP/1.1\r\nContent-Length: 1048576\r\n\r\n");
  EXPECT_TRUE(absl::StartsWith(login.ReadAll(), "HTTP/1.1 413"));
}

// 240 logins with made-up names from 24 clients at once. Each costs a full
// password check (so that the time taken does not tell which names exist),
// but at most Authenticator::kPasswordChecksAtOnce run at once: the rest
// wait a moment or are refused 429, and the admin is served meanwhile.
TEST_F(HttpAttacksTest, ALoginFloodWithMadeUpNamesCostsABoundedShareOfTheServer) {
  constexpr int kClients = 24, kEach = 10;
  std::atomic<int> refused{0}, busy{0}, other{0};
  const double cpu_before = CpuSeconds();
  const absl::Time start = absl::Now();
  std::vector<std::thread> flood;
  for (int c = 0; c < kClients; ++c) {
    flood.emplace_back([&, c] {
      for (int i = 0; i < kEach; ++i) {
        const std::string basic =
            absl::Base64Escape(absl::StrCat("made-up-", c, "-", i, ":a-password-guess"));
        const HttpResult r =
            HttpCall("POST", base_ + "/v1/JobAdmin/Login", "{}", {"Authorization: Basic " + basic});
        (r.status == 401 ? refused : r.status == 429 ? busy : other)++;
      }
    });
  }
  std::vector<absl::Duration> took;
  const int answered = AdminCalls(40, &took, absl::Milliseconds(50));
  for (std::thread& t : flood) t.join();
  const double wall = absl::ToDoubleSeconds(absl::Now() - start);
  EXPECT_EQ(answered, 40);
  EXPECT_EQ(refused + busy, kClients * kEach) << other << " answered otherwise";
  PrintLatencies("login flood, 24 clients", took);
  std::printf("login flood: %d refused 401, %d refused 429; gnomond used %.2f cores over %.1f s\n",
              refused.load(), busy.load(), (CpuSeconds() - cpu_before) / wall, wall);
  EXPECT_LE(RssKiB(), kMaxRssKiB);
}

// Request-smuggling shapes are refused (400) and close the connection, so
// nothing after them on the same connection is taken for a request.
TEST_F(HttpAttacksTest, SmugglingShapesAreRefusedAndEndTheConnection) {
  const std::string smuggled =
      "GET /v1/JobAdmin/ListJobs HTTP/1.1\r\nAuthorization: Bearer x\r\n\r\n";
  for (const std::string& head : std::vector<std::string>{
           "POST /v1/JobAdmin/Login HTTP/1.1\r\nContent-Length: 0\r\nContent-Length: 70\r\n\r\n",
           "POST /v1/JobAdmin/Login HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n",
           "POST /v1/JobAdmin/Login HTTP/1.1\r\nX-A: 1\r\n Transfer-Encoding: chunked\r\n\r\n",
           "POST /v1/JobAdmin/Login HTTP/1.1\r\nContent-Length: 0x46\r\n\r\n",
       }) {
    RawHttpClient c(port_);
    c.Send(head + smuggled);
    const std::string got = c.ReadAll();
    EXPECT_TRUE(absl::StartsWith(got, "HTTP/1.1 400 Bad Request")) << head << got.substr(0, 80);
    EXPECT_EQ(got.find("HTTP/1.1", 10), std::string::npos) << "one answer, then closed: " << got;
  }
  std::vector<absl::Duration> took;
  EXPECT_EQ(AdminCalls(10, &took), 10);
}

}  // namespace
}  // namespace gnomon

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gnomon/v1/common.pb.h"
#include "gtest/gtest.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/text_serializer.h"
#include "services/common/client/version.h"
#include "services/common/metrics/buckets.h"
#include "services/common/metrics/build_info.h"
#include "services/common/metrics/enum_metrics.h"
#include "services/common/metrics/metrics_registry.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/metrics/run_metrics.h"
#include "services/common/metrics/scrape_values.h"
#include "services/common/status/status_matchers.h"

namespace gnomon::metrics {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Text(const MetricsRegistry& m) {
  return prometheus::TextSerializer().Serialize(m.Collect());
}

TEST(EnumLabel, NameWithoutPrefixLowerCase) {
  EXPECT_EQ(EnumLabel(v1::TRIGGER_TYPE_FIX_RATE), "fix_rate");
  EXPECT_EQ(EnumLabel(v1::ROUTE_STRATEGY_SHARDING_BROADCAST), "sharding_broadcast");
  EXPECT_EQ(EnumLabel(v1::HANDLE_CODE_NO_EXECUTOR), "no_executor");
}

TEST(EnumLabel, UnspecifiedAndUnknownAreOther) {
  EXPECT_EQ(EnumLabel(v1::TRIGGER_TYPE_UNSPECIFIED), "other");
  EXPECT_EQ(EnumLabel(static_cast<v1::HandleCode>(418)), "other");
}

TEST(PerEnum, OneMetricPerNamedValueAndOther) {
  MetricsRegistry m;
  auto& family = prometheus::BuildCounter().Name("t_total").Help("h").Register(m.registry());
  PerEnum<v1::HandleCode, prometheus::Counter> codes(family, "code", {{"k", "v"}});
  codes[v1::HANDLE_CODE_TIMEOUT].Increment();
  codes[418].Increment(2);  // A handler's own code.
  codes[0].Increment(3);
  codes[-1].Increment(4);
  const std::string text = Text(m);
  EXPECT_THAT(text, HasSubstr("t_total{code=\"timeout\",k=\"v\"} 1"));
  EXPECT_THAT(text, HasSubstr("t_total{code=\"other\",k=\"v\"} 9"));
  EXPECT_THAT(text, HasSubstr("t_total{code=\"success\",k=\"v\"} 0"));  // Created up front.
  EXPECT_THAT(text, Not(HasSubstr("unspecified")));
}

TEST(PerEnum, PassesBucketsToHistograms) {
  MetricsRegistry m;
  auto& family = prometheus::BuildHistogram().Name("t_seconds").Help("h").Register(m.registry());
  PerEnum<v1::TriggerType, prometheus::Histogram> h(family, "trigger_type", {}, LatenessBuckets());
  h[v1::TRIGGER_TYPE_CRON].Observe(0.002);
  const std::string text = Text(m);
  EXPECT_THAT(text, HasSubstr("t_seconds_bucket{trigger_type=\"cron\",le=\"0.0025\"} 1"));
  EXPECT_THAT(text, HasSubstr("t_seconds_bucket{trigger_type=\"cron\",le=\"900\"} 1"));
  EXPECT_THAT(text, HasSubstr("t_seconds_count{trigger_type=\"manual\"} 0"));
}

TEST(RunEndCounters, StatusFollowsTheHandleCode) {
  MetricsRegistry m;
  RunEndCounters ended(m, "r_total", "h");
  ended.Ended(200);
  ended.Ended(v1::HANDLE_CODE_TIMEOUT, 2);
  ended.Ended(418);
  const std::string text = Text(m);
  EXPECT_THAT(text, HasSubstr("r_total{handle_code=\"success\",status=\"succeeded\"} 1"));
  EXPECT_THAT(text, HasSubstr("r_total{handle_code=\"timeout\",status=\"failed\"} 2"));
  EXPECT_THAT(text, HasSubstr("r_total{handle_code=\"other\",status=\"failed\"} 1"));
}

TEST(DueMillis, SlotForScheduledFiresTriggerTimeForTheRest) {
  EXPECT_EQ(DueMillis(v1::TRIGGER_TYPE_CRON, 1000, 1300), 1000);
  EXPECT_EQ(DueMillis(v1::TRIGGER_TYPE_MISFIRE, 1000, 9000), 1000);
  // A retry carries its first attempt's slot; a backfill a slot from history.
  EXPECT_EQ(DueMillis(v1::TRIGGER_TYPE_RETRY, 1000, 5000), 5000);
  EXPECT_EQ(DueMillis(v1::TRIGGER_TYPE_BACKFILL, 1000, 5000), 5000);
  EXPECT_EQ(DueMillis(v1::TRIGGER_TYPE_MANUAL, 0, 5000), 5000);
  EXPECT_EQ(DueMillis(v1::TRIGGER_TYPE_FIX_RATE, 0, 5000), 5000);  // No slot recorded.
  EXPECT_TRUE(RequestTimeIsDue(v1::TRIGGER_TYPE_MANUAL));
  EXPECT_TRUE(RequestTimeIsDue(v1::TRIGGER_TYPE_MISFIRE));
  EXPECT_FALSE(RequestTimeIsDue(v1::TRIGGER_TYPE_RETRY));
  EXPECT_FALSE(RequestTimeIsDue(v1::TRIGGER_TYPE_BACKFILL));
}

TEST(Buckets, AscendingAndSpanWhatTheySay) {
  for (const auto* b : {&LatenessBuckets(), &LatencyBuckets(), &RunDurationBuckets()}) {
    ASSERT_FALSE(b->empty());
    for (size_t i = 1; i < b->size(); ++i) EXPECT_LT((*b)[i - 1], (*b)[i]);
  }
  EXPECT_EQ(LatenessBuckets().front(), 0.001);
  EXPECT_EQ(LatenessBuckets().back(), 900);  // 15 min
}

TEST(MirrorCount, FollowsATotalAndNeverGoesDown) {
  MetricsRegistry m;
  auto& c = prometheus::BuildCounter().Name("m_total").Help("h").Register(m.registry()).Add({});
  MirrorCount(c, 5);
  EXPECT_EQ(c.Value(), 5);
  MirrorCount(c, 7);
  EXPECT_EQ(c.Value(), 7);
  MirrorCount(c, 2);  // Its keeper restarted.
  EXPECT_EQ(c.Value(), 7);
}

TEST(GaugeSnapshot, LeftOutChildrenReadZero) {
  MetricsRegistry m;
  auto& family = prometheus::BuildGauge().Name("g").Help("h").Register(m.registry());
  GaugeSnapshot g(family);
  g.Set({{{{"app", "a"}}, 2}, {{{"app", "b"}}, 3}});
  g.Set({{{{"app", "b"}}, 4}});
  const std::string text = Text(m);
  EXPECT_THAT(text, HasSubstr("g{app=\"a\"} 0"));
  EXPECT_THAT(text, HasSubstr("g{app=\"b\"} 4"));
}

TEST(MetricsRegistry, HooksRunBeforeEachScrapeUntilDestroyed) {
  MetricsRegistry m;
  auto& g = prometheus::BuildGauge().Name("depth").Help("h").Register(m.registry()).Add({});
  int depth = 3;
  {
    ScrapeHook hook = m.OnScrape([&] { g.Set(depth); });
    EXPECT_THAT(Text(m), HasSubstr("depth 3"));
    depth = 5;
    ScrapeHook moved = std::move(hook);  // Still registered, once.
    EXPECT_THAT(Text(m), HasSubstr("depth 5"));
  }
  depth = 8;
  EXPECT_THAT(Text(m), HasSubstr("depth 5"));
}

TEST(MetricsRegistry, AHookMayBeDroppedWhileScrapesRun) {
  MetricsRegistry m;
  auto& g = prometheus::BuildGauge().Name("n").Help("h").Register(m.registry()).Add({});
  std::atomic<bool> stop{false};
  std::thread scraper([&] {
    while (!stop) m.Collect();
  });
  for (int i = 0; i < 200; ++i) {
    auto owned = std::make_unique<int>(i);
    ScrapeHook hook = m.OnScrape([&g, p = owned.get()] { g.Set(*p); });
    m.Collect();
    hook = ScrapeHook();  // Unregistered before `owned` goes away.
  }
  stop = true;
  scraper.join();
}

TEST(BuildInfo, IsOneWithProgramVersionAndRevision) {
  MetricsRegistry m;
  AddBuildInfo(m, "gnomond");
  EXPECT_THAT(Text(m), HasSubstr(absl::StrCat("gnomon_build_info{program=\"gnomond\",revision=\"",
                                              gnomon::Revision(), "\",version=\"",
                                              gnomon::Version(), "\"} 1")));
  // Built from this checkout: its commit, 12 hex digits.
  EXPECT_EQ(std::string(gnomon::Revision()).size(), 12u) << gnomon::Revision();
}

TEST(ProcessMetrics, EveryRegistryExportsTheConventionalProcessFamilies) {
  MetricsRegistry m;
  const std::string text = Text(m);
  for (const char* family : {"process_cpu_seconds_total", "process_resident_memory_bytes",
                             "process_virtual_memory_bytes", "process_open_fds", "process_max_fds",
                             "process_start_time_seconds"}) {
    EXPECT_THAT(text, HasSubstr(absl::StrCat("# TYPE ", family))) << family;
  }
  // Read now: this process started before now, and holds some memory.
  double start = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::ConsumePrefix(&line, "process_start_time_seconds ")) {
      ASSERT_TRUE(absl::SimpleAtod(line, &start)) << line;
    }
  }
  EXPECT_GT(start, 1.7e9);
  EXPECT_LE(start, absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch()) + 1);
}

// GET /metrics over a plain socket (no HTTP client library needed here).
// GET /metrics with the extra header lines `headers` (each ending "\r\n"):
// the whole answer, head and body.
std::string Get(int port, const std::string& headers = "") {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return "";
  }
  const std::string req = "GET /metrics HTTP/1.0\r\nHost: localhost\r\n" + headers + "\r\n";
  (void)!::write(fd, req.data(), req.size());
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof(buf))) > 0;) out.append(buf, n);
  ::close(fd);
  return out;
}

TEST(MetricsServer, ServesTheRegistryOnAFreePort) {
  auto m = std::make_shared<MetricsRegistry>();
  AddBuildInfo(*m, "test");
  absl::StatusOr<std::unique_ptr<MetricsServer>> s = MetricsServer::Start("127.0.0.1:0", m);
  ASSERT_TRUE(s.ok()) << s.status();
  const std::string& address = (*s)->address();
  ASSERT_THAT(address, ::testing::StartsWith("127.0.0.1:"));
  int port = 0;
  ASSERT_TRUE(absl::SimpleAtoi(address.substr(address.rfind(':') + 1), &port));
  EXPECT_GT(port, 0);
  EXPECT_THAT(Get(port), HasSubstr("gnomon_build_info{program=\"test\""));
}

// `gz` inflated (gzip), "" if it is not gzip.
std::string Gunzip(const std::string& gz) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return "";
  std::string out;
  char buf[4096];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  int r = Z_OK;
  while (r == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    r = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - z.avail_out);
  }
  inflateEnd(&z);
  return r == Z_STREAM_END ? out : "";
}

TEST(MetricsServer, CompressesForAScraperThatAcceptsGzipAndOnlyThen) {
  auto m = std::make_shared<MetricsRegistry>();
  AddBuildInfo(*m, "test");
  absl::StatusOr<std::unique_ptr<MetricsServer>> s = MetricsServer::Start("127.0.0.1:0", m);
  ASSERT_TRUE(s.ok()) << s.status();
  int port = 0;
  ASSERT_TRUE(absl::SimpleAtoi((*s)->address().substr((*s)->address().rfind(':') + 1), &port));
  const std::string gz = Get(port, "Accept-Encoding: gzip\r\n");
  const size_t body = gz.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos) << gz;
  EXPECT_THAT(gz.substr(0, body), HasSubstr("Content-Encoding: gzip"));
  EXPECT_THAT(Gunzip(gz.substr(body + 4)), HasSubstr("gnomon_build_info{program=\"test\""));
  const std::string plain = Get(port, "Accept-Encoding: gzip;q=0, identity\r\n");
  EXPECT_THAT(plain, Not(HasSubstr("Content-Encoding")));
  EXPECT_THAT(plain, HasSubstr("gnomon_build_info{program=\"test\""));
}

TEST(MetricsServer, AnAddressInUseIsUnavailable) {
  auto m = std::make_shared<MetricsRegistry>();
  absl::StatusOr<std::unique_ptr<MetricsServer>> first = MetricsServer::Start("127.0.0.1:0", m);
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::unique_ptr<MetricsServer>> second =
      MetricsServer::Start((*first)->address(), m);
  EXPECT_THAT(second, StatusIs(absl::StatusCode::kUnavailable));
}

}  // namespace
}  // namespace gnomon::metrics

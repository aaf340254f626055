// Metrics end to end, through real processes on loopback: gnomond (all
// roles, SQLite) and the sample executor, both with --metrics-listen.
//  * docs/metrics.md lists exactly the metric families the two expose (so
//    the document cannot drift), and promtool finds nothing to lint;
//  * a real Prometheus server scrapes both; after N manual triggers, PromQL
//    sees exactly N runs ended and N lateness observations on each side.
#include <curl/curl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gnomon/v1/admin.pb.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/http_get.h"
#include "tests/support/subprocess.h"

namespace gnomon {
namespace {

using testing::GnomonCluster;
using testing::Subprocess;

using testing::HttpGet;

std::string UrlEncode(const std::string& s) {
  CURL* curl = curl_easy_init();
  char* e = curl_easy_escape(curl, s.c_str(), static_cast<int>(s.size()));
  std::string out(e);
  curl_free(e);
  curl_easy_cleanup(curl);
  return out;
}

// The URL a process printed as "... metrics on http://HOST:PORT/metrics".
std::string MetricsUrl(Subprocess& p) {
  std::optional<std::string> line = p.WaitForLine("metrics on http://", absl::Seconds(30));
  if (!line) return "";
  return std::string(absl::StripAsciiWhitespace(line->substr(line->find("http://"))));
}

// Metric family names in an exposition ("# TYPE name type" lines).
std::set<std::string> Families(const std::string& exposition) {
  std::set<std::string> out;
  for (absl::string_view line : absl::StrSplit(exposition, '\n')) {
    if (!absl::ConsumePrefix(&line, "# TYPE ")) continue;
    out.emplace(line.substr(0, line.find(' ')));
  }
  return out;
}

// Metric names in docs/metrics.md: the first cell of its table rows ("| `name` | ...").
std::set<std::string> DocumentedFamilies() {
  std::ifstream in(std::string(GNOMON_SOURCE_DIR) + "/docs/metrics.md");
  std::set<std::string> out;
  for (std::string line; std::getline(in, line);) {
    absl::string_view l = line;
    if (!absl::ConsumePrefix(&l, "| `")) continue;
    out.emplace(l.substr(0, l.find('`')));
  }
  return out;
}

// promtool's verdict on an exposition: "" when clean, else its output.
std::string PromtoolProblems(const std::string& dir, const std::string& name,
                             const std::string& exposition) {
  const std::string path = absl::StrCat(dir, "/", name, ".prom");
  std::ofstream(path) << exposition;
  testing::CommandResult r =
      testing::RunCommand({"/bin/sh", "-c", "promtool check metrics < " + path});
  return r.exit_code == 0 ? "" : absl::StrCat("exit ", r.exit_code, ": ", r.out, r.err);
}

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) ADD_FAILURE() << "bind";
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

// gnomond and one sample executor with metrics on, a group, a manual job
// and a pool (whose families are labelled by pool: none without one).
class MetricsE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    gnomond_metrics_ = MetricsUrl(*cluster_.gnomond());
    ASSERT_FALSE(gnomond_metrics_.empty()) << cluster_.Output();
    ASSERT_TRUE(cluster_.CtlJson({"group", "create", "metrics-app"}, &group_));
    executor_ = cluster_.StartExecutor("metrics-app", group_.access_token(),
                                       {"--metrics-listen=127.0.0.1:0"});
    executor_metrics_ = MetricsUrl(*executor_);
    std::optional<std::string> listening = executor_->WaitForLine("started as", absl::Seconds(30));
    ASSERT_TRUE(listening && !executor_metrics_.empty()) << executor_->Output();
    executor_address_ =
        std::string(absl::StripAsciiWhitespace(listening->substr(listening->rfind(' ') + 1)));
    ASSERT_TRUE(cluster_.CtlJson(
        {"job", "create", "--group", absl::StrCat(group_.id()), "--handler", "demo", "--manual"},
        &job_));
    v1::Pool pool;
    ASSERT_TRUE(cluster_.CtlJson({"pool", "create", "metrics-pool", "--slots", "2"}, &pool));
  }

  // Fires the job once on the executor, named explicitly so the run does not
  // depend on when the scheduler's membership view catches up.
  void Trigger() {
    v1::TriggerJobResponse t;
    ASSERT_TRUE(cluster_.CtlJson(
        {"job", "trigger", absl::StrCat(job_.id()), "--executors", executor_address_}, &t));
    ASSERT_EQ(t.run_ids_size(), 1);
  }

  // Polls until every run of the job has ended.
  void AwaitRunsEnded(int n) {
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while (absl::Now() < deadline) {
      v1::ListRunsResponse runs;
      ASSERT_TRUE(cluster_.CtlJson({"run", "list", "--job", absl::StrCat(job_.id())}, &runs));
      int ended = 0;
      for (const v1::Run& r : runs.runs()) {
        ended += r.status() == v1::RUN_STATUS_SUCCEEDED || r.status() == v1::RUN_STATUS_FAILED;
      }
      if (ended == n) return;
      cluster_.PollInterval(absl::Milliseconds(100));
    }
    FAIL() << "runs did not end";
  }

  // --metrics-jobs names the job the fixture creates first (id 1), so the
  // per-job family is exposed too.
  GnomonCluster cluster_{{"--metrics-listen=127.0.0.1:0", "--metrics-jobs=1"}};
  std::string gnomond_metrics_, executor_metrics_, executor_address_;
  v1::Group group_;
  v1::Job job_;
  std::unique_ptr<Subprocess> executor_;
};

TEST_F(MetricsE2E, DocsListExactlyTheExposedFamiliesAndPromtoolIsClean) {
  ASSERT_EQ(job_.id(), 1);
  Trigger();
  AwaitRunsEnded(1);
  std::optional<std::string> server = HttpGet(gnomond_metrics_);
  std::optional<std::string> executor = HttpGet(executor_metrics_);
  ASSERT_TRUE(server && executor);
  std::set<std::string> exposed = Families(*server);
  for (const std::string& f : Families(*executor)) exposed.insert(f);
  const std::set<std::string> documented = DocumentedFamilies();
  std::vector<std::string> undocumented, absent;
  for (const std::string& f : exposed) {
    if (!documented.count(f)) undocumented.push_back(f);
  }
  for (const std::string& f : documented) {
    if (!exposed.count(f)) absent.push_back(f);
  }
  EXPECT_TRUE(undocumented.empty())
      << "exposed but not in docs/metrics.md: " << absl::StrJoin(undocumented, ", ");
  EXPECT_TRUE(absent.empty()) << "in docs/metrics.md but not exposed: "
                              << absl::StrJoin(absent, ", ");
  EXPECT_EQ(PromtoolProblems(cluster_.dir(), "gnomond", *server), "");
  EXPECT_EQ(PromtoolProblems(cluster_.dir(), "executor", *executor), "");
}

// A Prometheus server scraping gnomond and the executor every second.
class Prometheus {
 public:
  Prometheus(const std::string& dir, const std::vector<std::string>& targets) : port_(FreePort()) {
    const std::string config = dir + "/prometheus.yml";
    std::ofstream out(config);
    out << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n";
    for (size_t i = 0; i < targets.size(); ++i) {
      out << "  - job_name: target" << i << "\n    static_configs:\n      - targets: ['"
          << targets[i] << "']\n";
    }
    out.close();
    process_ = std::make_unique<Subprocess>(std::vector<std::string>{
        "/usr/bin/prometheus", "--config.file=" + config, "--storage.tsdb.path=" + dir + "/tsdb",
        absl::StrCat("--web.listen-address=127.0.0.1:", port_)});
  }
  bool AwaitReady() {
    return process_->WaitForLine("ready to receive web requests", absl::Seconds(30)).has_value();
  }
  std::string Output() const { return process_->Output(); }

  // The value of a PromQL query that yields one sample, or nullopt (no
  // sample yet, or not one).
  std::optional<double> Query(const std::string& promql) {
    std::optional<std::string> body = HttpGet(
        absl::StrCat("http://127.0.0.1:", port_, "/api/v1/query?query=", UrlEncode(promql)));
    google::protobuf::Struct doc;
    if (!body || !google::protobuf::util::JsonStringToMessage(*body, &doc).ok())
      return std::nullopt;
    const auto& result = doc.fields().at("data").struct_value().fields().at("result").list_value();
    if (result.values_size() != 1) return std::nullopt;
    const auto& value = result.values(0).struct_value().fields().at("value").list_value();
    double v = 0;
    if (value.values_size() != 2 || !absl::SimpleAtod(value.values(1).string_value(), &v))
      return std::nullopt;
    return v;
  }

 private:
  const int port_;
  std::unique_ptr<Subprocess> process_;
};

std::string HostPort(const std::string& url) {
  absl::string_view s = url;
  absl::ConsumePrefix(&s, "http://");
  return std::string(s.substr(0, s.find('/')));
}

TEST_F(MetricsE2E, PrometheusCountsEveryTriggeredRunExactlyOnce) {
  Prometheus prometheus(cluster_.dir(), {HostPort(gnomond_metrics_), HostPort(executor_metrics_)});
  ASSERT_TRUE(prometheus.AwaitReady()) << prometheus.Output();
  constexpr int kRuns = 5;
  for (int i = 0; i < kRuns; ++i) Trigger();
  AwaitRunsEnded(kRuns);

  // Every figure that counts a run once, on the scheduler, the log role and the executor.
  const std::vector<std::string> queries = {
      "sum(gnomon_runs_total)",
      "sum(gnomon_runs_total{status=\"succeeded\"})",
      "sum(gnomon_scheduler_fires_total{trigger_type=\"manual\",outcome=\"dispatched\"})",
      "sum(gnomon_scheduler_trigger_lateness_seconds_count{trigger_type=\"manual\"})",
      "sum(gnomon_executor_start_lateness_seconds_count)",
      "sum(gnomon_executor_runs_total)",
      "sum(gnomon_run_duration_seconds_count)",
  };
  std::map<std::string, std::optional<double>> seen;
  const absl::Time deadline = absl::Now() + absl::Seconds(90);
  bool all = false;
  while (!all && absl::Now() < deadline) {
    all = true;
    for (const std::string& q : queries) {
      seen[q] = prometheus.Query(q);
      all = all && seen[q] == kRuns;
    }
    if (!all) cluster_.PollInterval(absl::Milliseconds(500));
  }
  for (const std::string& q : queries) {
    EXPECT_EQ(seen[q], std::optional<double>(kRuns)) << q;
  }
  EXPECT_EQ(prometheus.Query("sum(up)"), std::optional<double>(2));
  // Lateness of manual runs is small: all N observations within 10 s.
  EXPECT_EQ(prometheus.Query("sum(gnomon_scheduler_trigger_lateness_seconds_bucket{le=\"10\"})"),
            std::optional<double>(kRuns));
  for (const auto& [name, url] :
       {std::pair{"gnomond", gnomond_metrics_}, std::pair{"executor", executor_metrics_}}) {
    std::optional<std::string> text = HttpGet(url);
    ASSERT_TRUE(text) << name;
    EXPECT_EQ(PromtoolProblems(cluster_.dir(), name, *text), "") << name;
  }
}

}  // namespace
}  // namespace gnomon

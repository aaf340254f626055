#include "bench/window_figures.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "bench/burst_figures.h"
#include "tests/support/proc_stats.h"

namespace gnomon::bench {
namespace {

// The MariaDB server counters differenced over a window.
const std::vector<std::string>& ServerCounters() {
  static const auto* names =
      new std::vector<std::string>{"Questions",  "Com_insert", "Com_update",      "Com_select",
                                   "Com_delete", "Com_commit", "Innodb_deadlocks"};
  return *names;
}

int64_t NowMs() { return absl::ToUnixMillis(absl::Now()); }

}  // namespace

std::optional<int64_t> WindowFigures::StatusDelta(const std::string& name) const {
  auto a = status0.find(name), b = status1.find(name);
  if (a == status0.end() || b == status1.end()) return std::nullopt;
  return b->second - a->second;
}

std::string WindowFigures::CpuCells() const {
  std::vector<std::string> cells;
  for (const ProcessFigures& p : processes)
    cells.push_back(absl::StrFormat("%s %.1f", p.name, p.cpu_s));
  return absl::StrJoin(cells, ", ");
}

std::string WindowFigures::PeakRssCells() const {
  std::vector<std::string> cells;
  for (const ProcessFigures& p : processes)
    cells.push_back(absl::StrCat(p.name, " ", p.peak_rss_kib < 0 ? -1 : p.peak_rss_kib / 1024));
  return absl::StrJoin(cells, ", ");
}

WindowSampler::WindowSampler(std::vector<ProcessFigures> processes, std::string mariadb_socket,
                             bool reset_peak)
    : mariadb_socket_(std::move(mariadb_socket)) {
  w_.processes = std::move(processes);
  w_.sample0_ms = NowMs();
  for (const ProcessFigures& p : w_.processes) {
    if (reset_peak && !testing::ResetPeakRss(p.pid)) w_.peak_since_start = true;
    cpu0_.push_back(testing::CpuSeconds(p.pid));
  }
  w_.peak_since_start = w_.peak_since_start || !reset_peak;
  if (!mariadb_socket_.empty())
    w_.status0 = MariadbGlobalStatus(mariadb_socket_, ServerCounters()).value_or(w_.status0);
}

void WindowSampler::SampleThreads() {
  for (ProcessFigures& p : w_.processes)
    p.max_threads = std::max(p.max_threads, testing::ThreadCount(p.pid));
}

WindowFigures WindowSampler::Finish() {
  w_.sample1_ms = NowMs();
  for (size_t i = 0; i < w_.processes.size(); ++i) {
    ProcessFigures& p = w_.processes[i];
    p.cpu_s = testing::CpuSeconds(p.pid) - cpu0_[i];
    p.peak_rss_kib = testing::PeakRssKib(p.pid);
    p.max_threads = std::max(p.max_threads, testing::ThreadCount(p.pid));
  }
  if (!mariadb_socket_.empty())
    w_.status1 = MariadbGlobalStatus(mariadb_socket_, ServerCounters()).value_or(w_.status1);
  return w_;
}

ServerPerRun PrintServerPerRun(StoreReader& reader, const WindowFigures& w) {
  ServerPerRun out;
  absl::StatusOr<int64_t> runs = CountRunsRecorded(reader, w.sample0_ms, w.sample1_ms);
  if (!runs.ok() || *runs == 0 || !w.StatusDelta("Questions")) {
    std::printf("MariaDB counters: n/a\n");
    return out;
  }
  std::vector<std::string> parts;
  for (const std::string& name : ServerCounters()) {
    std::optional<int64_t> v = w.StatusDelta(name);
    if (!v) {
      parts.push_back(absl::StrCat(name, " n/a"));
    } else if (name == "Innodb_deadlocks") {
      parts.push_back(absl::StrCat(name, " ", *v, " in the window"));
    } else {
      parts.push_back(absl::StrFormat("%s %.3f", name, double(*v) / *runs));
    }
  }
  // The server's count of statements is the figure for the tables.
  out.statements = absl::StrFormat("%.2f", double(*w.StatusDelta("Questions")) / *runs);
  for (const ProcessFigures& p : w.processes) {
    if (p.name == "mariadbd")
      out.mariadbd_cpu_per_1000 = absl::StrFormat("%.3f", p.cpu_s * 1000 / *runs);
  }
  std::printf("mariadbd CPU s per 1,000 runs recorded: %s\n", out.mariadbd_cpu_per_1000.c_str());
  std::printf("MariaDB server counters per run (%lld runs recorded between the samples): %s\n",
              static_cast<long long>(*runs), absl::StrJoin(parts, ", ").c_str());
  return out;
}

}  // namespace gnomon::bench

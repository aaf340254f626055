#include "services/common/metrics/process_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace gnomon::metrics {
namespace {

prometheus::MetricFamily Family(std::string name, std::string help, prometheus::MetricType type,
                                double value) {
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  return {std::move(name), std::move(help), type, {m}};
}

// The fields of /proc/self/stat after the command (which may hold spaces
// and parentheses): fields[0] is the state, field 3 of proc(5).
std::vector<std::string> StatFields() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  if (!std::getline(in, line)) return {};
  const size_t close = line.rfind(')');
  if (close == std::string::npos || close + 2 > line.size()) return {};
  return absl::StrSplit(line.substr(close + 2), ' ', absl::SkipEmpty());
}

// Seconds since the epoch the system booted at (/proc/stat btime), 0 if unknown.
double BootTime() {
  std::ifstream in("/proc/stat");
  std::string line;
  while (std::getline(in, line)) {
    double t = 0;
    if (line.rfind("btime ", 0) == 0 && absl::SimpleAtod(line.substr(6), &t)) return t;
  }
  return 0;
}

int OpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int n = 0;
  while (const dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // Not counting the directory's own descriptor.
}

}  // namespace

std::vector<prometheus::MetricFamily> ProcessFamilies() {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  const std::vector<std::string> f = StatFields();
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  // proc(5) fields 14, 15 (utime, stime), 22 (starttime), 23 (vsize), 24 (rss); f[0] is field 3.
  double utime = 0, stime = 0, start = 0, vsize = 0, rss = 0;
  if (f.size() > 21 && ticks > 0 && absl::SimpleAtod(f[11], &utime) &&
      absl::SimpleAtod(f[12], &stime) && absl::SimpleAtod(f[19], &start) &&
      absl::SimpleAtod(f[20], &vsize) && absl::SimpleAtod(f[21], &rss)) {
    out.push_back(Family("process_cpu_seconds_total",
                         "Total user and system CPU time spent in seconds.", MetricType::Counter,
                         (utime + stime) / ticks));
    out.push_back(Family("process_resident_memory_bytes", "Resident memory size in bytes.",
                         MetricType::Gauge, rss * static_cast<double>(sysconf(_SC_PAGESIZE))));
    out.push_back(Family("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                         MetricType::Gauge, vsize));
    if (const double boot = BootTime(); boot > 0) {
      out.push_back(Family("process_start_time_seconds",
                           "Start time of the process since unix epoch in seconds.",
                           MetricType::Gauge, boot + start / ticks));
    }
  }
  if (const int fds = OpenFds(); fds >= 0) {
    out.push_back(
        Family("process_open_fds", "Number of open file descriptors.", MetricType::Gauge, fds));
  }
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    out.push_back(Family("process_max_fds", "Maximum number of open file descriptors.",
                         MetricType::Gauge, static_cast<double>(limit.rlim_cur)));
  }
  return out;
}

}  // namespace gnomon::metrics

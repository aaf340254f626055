#include "tests/support/proc_stats.h"

#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace gnomon::testing {
namespace {

// The number after "Name:" in /proc/PID/status (without its unit).
int64_t StatusField(pid_t pid, absl::string_view name) {
  std::ifstream f(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(f, line)) {
    absl::string_view rest = line;
    if (!absl::ConsumePrefix(&rest, name) || !absl::ConsumePrefix(&rest, ":")) continue;
    rest = absl::StripAsciiWhitespace(rest);
    rest = rest.substr(0, rest.find(' '));
    int64_t v = 0;
    return absl::SimpleAtoi(rest, &v) ? v : -1;
  }
  return -1;
}

}  // namespace

double CpuSeconds(pid_t pid) {
  std::ifstream f(absl::StrCat("/proc/", pid, "/stat"));
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t paren = s.rfind(')');
  if (paren == std::string::npos) return -1;
  // Fields after "pid (comm) ": state is field 3, utime 14, stime 15.
  std::istringstream in(s.substr(paren + 2));
  std::string field;
  int64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14 && !absl::SimpleAtoi(field, &utime)) return -1;
    if (i == 15 && !absl::SimpleAtoi(field, &stime)) return -1;
  }
  return double(utime + stime) / double(sysconf(_SC_CLK_TCK));
}

ResidentKib Resident(pid_t pid) {
  return {StatusField(pid, "VmRSS"), StatusField(pid, "RssAnon"), StatusField(pid, "RssFile")};
}

int64_t PeakRssKib(pid_t pid) { return StatusField(pid, "VmHWM"); }

bool ResetPeakRss(pid_t pid) {
  std::ofstream f(absl::StrCat("/proc/", pid, "/clear_refs"));
  f << "5" << std::flush;
  return f.good();
}

int64_t ThreadCount(pid_t pid) { return StatusField(pid, "Threads"); }

}  // namespace gnomon::testing

#include "services/common/client/log.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace gnomon::logging {
namespace {

Level Threshold() {
  static const Level level = [] {
    const char* v = std::getenv("GNOMON_LOG_LEVEL");
    if (v == nullptr) return Level::INFO;
    if (std::strcmp(v, "WARNING") == 0) return Level::WARNING;
    if (std::strcmp(v, "ERROR") == 0) return Level::ERROR;
    return Level::INFO;
  }();
  return level;
}

}  // namespace

bool Enabled(Level level) { return level >= Threshold(); }

LogLine::~LogLine() {
  static constexpr char kLetters[] = {'I', 'W', 'E'};
  std::string line = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
  line += ' ';
  line += kLetters[static_cast<int>(level_)];
  line += ' ';
  line += stream_.str();
  line += '\n';
  // One write(2) per line keeps lines from different threads whole.
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
}

}  // namespace gnomon::logging

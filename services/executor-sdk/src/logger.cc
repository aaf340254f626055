#include "services/executor-sdk/src/logger.h"

#include <cstdio>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "services/common/client/log.h"

namespace gnomon::executor::internal {

void Logger::Write(LogSeverity severity, std::string_view message) const {
  if (sink_) {
    sink_(severity, message);
    return;
  }
  if (logging::CurrentFormat() == logging::Format::kJson) {
    logging::Write(severity == LogSeverity::kError     ? logging::Level::ERROR
                   : severity == LogSeverity::kWarning ? logging::Level::WARNING
                                                       : logging::Level::INFO,
                   absl::string_view(message.data(), message.size()));
    return;
  }
  static absl::Mutex* mu = new absl::Mutex();
  const char* tag = severity == LogSeverity::kError     ? "ERROR"
                    : severity == LogSeverity::kWarning ? "WARN"
                                                        : "INFO";
  std::string now = absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
  absl::MutexLock lock(mu);
  std::fprintf(stderr, "%s %s gnomon-executor: %.*s\n", now.c_str(), tag,
               static_cast<int>(message.size()), message.data());
  std::fflush(stderr);
}

}  // namespace gnomon::executor::internal

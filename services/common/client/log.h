// GNOMON_LOG: one-line structured-enough logging to stderr.
//
//   GNOMON_LOG(INFO) << "registry: executor " << address << " left";
//
// Each statement becomes one line "2026-11-22T02:45:46.123Z I message" written
// atomically. Levels: INFO, WARNING, ERROR. GNOMON_LOG_LEVEL=WARNING (or
// ERROR) in the environment hides lower levels.
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_COMMON_CLIENT_LOG_H_
#define GNOMON_SERVICES_COMMON_CLIENT_LOG_H_

#include <sstream>

namespace gnomon::logging {

enum class Level { INFO = 0, WARNING = 1, ERROR = 2 };

bool Enabled(Level level);

class LogLine {
 public:
  explicit LogLine(Level level) : level_(level) {}
  ~LogLine();
  template <typename T>
  LogLine& operator<<(const T& v) {
    stream_ << v;
    return *this;
  }

 private:
  Level level_;
  std::ostringstream stream_;
};

// Turns the streamed expression into void so GNOMON_LOG is one expression
// (safe inside an unbraced if/else).
struct Voidify {
  void operator&(const LogLine&) {}
};

}  // namespace gnomon::logging

#define GNOMON_LOG(level)                                      \
  !::gnomon::logging::Enabled(::gnomon::logging::Level::level) \
      ? (void)0                                                \
      : ::gnomon::logging::Voidify() & ::gnomon::logging::LogLine(::gnomon::logging::Level::level)

#endif  // GNOMON_SERVICES_COMMON_CLIENT_LOG_H_

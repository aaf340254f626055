// GNOMON_LOG: one-line logging to stderr, as text or as JSON.
//
//   GNOMON_LOG(INFO) << "registry: executor " << address << " left";
//
// Each statement becomes one line written atomically, by default
//   2026-11-22T02:45:46.123Z I registry: executor a-1 left
// and with the JSON format (--log-format=json, or GNOMON_LOG_FORMAT=json)
// one object per line, for Loki, Elasticsearch and the like:
//   {"time":"2026-11-22T02:45:46.123Z","level":"INFO","program":"gnomond",
//    "message":"registry: executor a-1 left"}
// (on one line; the message is always valid UTF-8 JSON). Levels: DEBUG,
// INFO, WARNING, ERROR; GNOMON_LOG_LEVEL=DEBUG shows DEBUG lines,
// WARNING (or ERROR) hides the lower levels; the default is INFO.
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_COMMON_CLIENT_LOG_H_
#define GNOMON_SERVICES_COMMON_CLIENT_LOG_H_

#include <sstream>
#include <string>

#include "absl/strings/string_view.h"

namespace gnomon::logging {

enum class Level { DEBUG = 0, INFO = 1, WARNING = 2, ERROR = 3 };
enum class Format { kText, kJson };

bool Enabled(Level level);
// From now on, lines are written in `format` (the default: GNOMON_LOG_FORMAT,
// else text).
void SetFormat(Format format);
Format CurrentFormat();
// "text" or "json" (what --log-format takes); false for anything else.
bool ParseFormat(absl::string_view name, Format* format);
// One line of `message` at `level` at the time `time_text`, as written.
std::string FormatLine(Format format, Level level, absl::string_view time_text,
                       absl::string_view program, absl::string_view message);

// Writes one line at `level` to stderr in the current format (what
// GNOMON_LOG does; for loggers of their own, like the executor SDK's).
void Write(Level level, absl::string_view message);
// A line a program prints on stdout for people or scripts to read ("...
// started as NAME", the first admin token's file): as it is in the text
// format, a JSON object at INFO in the JSON one (a container's stdout and
// stderr end up in the same log stream).
void Announce(absl::string_view message);

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

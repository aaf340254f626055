#include "services/common/client/log.h"

#include <errno.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "services/common/client/json_text.h"

namespace gnomon::logging {
namespace {

constexpr const char* kLevelNames[] = {"DEBUG", "INFO", "WARNING", "ERROR"};

Level Threshold() {
  static const Level level = [] {
    const char* v = std::getenv("GNOMON_LOG_LEVEL");
    if (v == nullptr) return Level::INFO;
    for (int l = 0; l < 4; ++l) {
      if (std::strcmp(v, kLevelNames[l]) == 0) return static_cast<Level>(l);
    }
    return Level::INFO;
  }();
  return level;
}

Format FromEnvironment() {
  Format f = Format::kText;
  const char* v = std::getenv("GNOMON_LOG_FORMAT");
  if (v != nullptr) ParseFormat(v, &f);
  return f;
}

std::atomic<Format>& FormatSetting() {
  static std::atomic<Format> format{FromEnvironment()};
  return format;
}

std::string Now() {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::Now(), absl::UTCTimeZone());
}

// One write(2) per line keeps lines from different threads whole.
void WriteAll(int fd, const std::string& line) {
  ssize_t ignored = ::write(fd, line.data(), line.size());
  (void)ignored;
}

}  // namespace

bool Enabled(Level level) { return level >= Threshold(); }

void SetFormat(Format format) { FormatSetting().store(format, std::memory_order_relaxed); }

Format CurrentFormat() { return FormatSetting().load(std::memory_order_relaxed); }

bool ParseFormat(absl::string_view name, Format* format) {
  if (name == "text") {
    *format = Format::kText;
  } else if (name == "json") {
    *format = Format::kJson;
  } else {
    return false;
  }
  return true;
}

std::string FormatLine(Format format, Level level, absl::string_view time_text,
                       absl::string_view program, absl::string_view message) {
  const int l = static_cast<int>(level);
  std::string line;
  if (format == Format::kJson) {
    line = "{\"time\":";
    AppendJsonString(&line, time_text);
    line += ",\"level\":\"";
    line += kLevelNames[l];
    line += "\",\"program\":";
    AppendJsonString(&line, program);
    line += ",\"message\":";
    AppendJsonString(&line, message);
    line += "}\n";
    return line;
  }
  line.append(time_text.data(), time_text.size());
  line += ' ';
  line += kLevelNames[l][0];
  line += ' ';
  line.append(message.data(), message.size());
  line += '\n';
  return line;
}

void Write(Level level, absl::string_view message) {
  WriteAll(STDERR_FILENO,
           FormatLine(CurrentFormat(), level, Now(), program_invocation_short_name, message));
}

void Announce(absl::string_view message) {
  if (CurrentFormat() == Format::kText) {
    WriteAll(STDOUT_FILENO, absl::StrCat(message, "\n"));
  } else {
    WriteAll(STDOUT_FILENO,
             FormatLine(Format::kJson, Level::INFO, Now(), program_invocation_short_name, message));
  }
}

LogLine::~LogLine() { Write(level_, stream_.str()); }

}  // namespace gnomon::logging

// Logger: the SDK's own diagnostics (connection failures, refused tokens,
// spool problems), routed to ExecutorOptions::logger or stderr.
//
//   Logger log(options.logger);
//   log.Warning(absl::StrCat("registry ", endpoint, " refused the token"));
//
// Thread safety: thread-safe (stderr writes are serialised by a mutex).
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_LOGGER_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_LOGGER_H_

#include <functional>
#include <string>
#include <string_view>

#include "gnomon/executor/options.h"

namespace gnomon::executor::internal {

class Logger {
 public:
  explicit Logger(std::function<void(LogSeverity, std::string_view)> sink = nullptr)
      : sink_(std::move(sink)) {}
  void Info(std::string_view message) const { Write(LogSeverity::kInfo, message); }
  void Warning(std::string_view message) const { Write(LogSeverity::kWarning, message); }
  void Error(std::string_view message) const { Write(LogSeverity::kError, message); }
  void Write(LogSeverity severity, std::string_view message) const;

 private:
  std::function<void(LogSeverity, std::string_view)> sink_;
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_LOGGER_H_

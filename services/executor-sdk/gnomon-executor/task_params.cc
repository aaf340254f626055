#include "services/executor-sdk/gnomon-executor/task_params.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "google/protobuf/util/json_util.h"

namespace gnomon::generic_executor {
namespace {

absl::Status Invalid(absl::string_view handler, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(handler, " params: ", what));
}

// Strict protobuf JSON: unknown fields are errors (the default), so a typo
// such as "expectStatus" fails instead of being silently ignored.
absl::Status ParseJson(absl::string_view handler, absl::string_view params,
                       google::protobuf::Message* out) {
  if (absl::StripAsciiWhitespace(params).empty()) {
    return Invalid(
        handler, absl::StrCat("empty; expected a JSON object (a ",
                              out->GetDescriptor()->full_name(), "; see gnomon-executor --help)"));
  }
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto parsed = google::protobuf::util::JsonStringToMessage(
      std::string(params.data(), params.size()), out, options);
  if (!parsed.ok()) {
    // The parser names the field; it may quote the value, so keep it short.
    std::string why(parsed.message());
    if (why.size() > 200) why = why.substr(0, 200) + "...";
    return Invalid(handler,
                   absl::StrCat("not a valid ", out->GetDescriptor()->full_name(), ": ", why));
  }
  return absl::OkStatus();
}

// RFC 9110 token characters (header names).
bool IsToken(absl::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return absl::ascii_isalnum(c) || absl::StrContains("!#$%&'*+-.^_`|~", c);
  });
}

absl::Status CheckDuration(absl::string_view handler, absl::string_view field,
                           const google::protobuf::Duration& d, absl::Duration max) {
  absl::Duration v = ToDuration(d);
  if (v <= absl::ZeroDuration() || v > max) {
    return Invalid(handler, absl::StrCat(field, " must be more than 0 and at most ",
                                         absl::FormatDuration(max)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Duration ToDuration(const google::protobuf::Duration& d) {
  return absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
}

absl::StatusOr<v1::HttpTask> ParseHttpTask(absl::string_view params) {
  constexpr absl::string_view kHandler = "http";
  v1::HttpTask task;
  if (absl::Status s = ParseJson(kHandler, params, &task); !s.ok()) return s;
  if (task.url().empty()) return Invalid(kHandler, "url is required");
  std::string method = absl::AsciiStrToUpper(task.method());
  if (method.empty()) method = "GET";
  static const std::set<std::string, std::less<>> kMethods = {"GET",   "HEAD",   "POST",   "PUT",
                                                              "PATCH", "DELETE", "OPTIONS"};
  if (kMethods.count(method) == 0) {
    return Invalid(kHandler, absl::StrCat("method '", Shown(task.method()),
                                          "' is not one of GET, HEAD, POST, PUT, PATCH, DELETE, "
                                          "OPTIONS"));
  }
  task.set_method(method);
  if ((method == "GET" || method == "HEAD") && !task.body().empty()) {
    return Invalid(kHandler, absl::StrCat("body must be empty for ", method));
  }
  for (const auto& [name, value] : task.headers()) {
    if (!IsToken(name)) {
      return Invalid(kHandler, absl::StrCat("headers: '", Shown(name),
                                            "' is not a header name (letters, digits and "
                                            "!#$%&'*+-.^_`|~)"));
    }
    const std::string lower = absl::AsciiStrToLower(name);
    if (lower == "host" || lower == "content-length" || lower == "transfer-encoding" ||
        lower == "connection") {
      return Invalid(kHandler, absl::StrCat("headers: ", name,
                                            " is set by the executor (the host comes from the "
                                            "url, the length from the body)"));
    }
    if (value.find_first_of(std::string("\r\n\0", 3)) != std::string::npos) {
      return Invalid(kHandler,
                     absl::StrCat("headers: the value of ", name, " holds a CR, LF or NUL"));
    }
  }
  if (task.has_timeout()) {
    if (absl::Status s = CheckDuration(kHandler, "timeout", task.timeout(), kMaxHttpTimeout);
        !s.ok()) {
      return s;
    }
  }
  for (int status : task.expected_statuses()) {
    if (status < 100 || status > 599) {
      return Invalid(kHandler, absl::StrCat("expected_statuses: ", status,
                                            " is not an HTTP status (100..599)"));
    }
  }
  if (task.max_response_bytes() > kMaxResponseBytes) {
    return Invalid(kHandler,
                   absl::StrCat("max_response_bytes must be at most ", kMaxResponseBytes));
  }
  if (task.max_redirects() > kMaxRedirects) {
    return Invalid(kHandler, absl::StrCat("max_redirects must be at most ", kMaxRedirects));
  }
  if (task.max_redirects() > 0 && !task.follow_redirects()) {
    return Invalid(kHandler, "max_redirects is set but follow_redirects is not");
  }
  return task;
}

bool IsRefusedEnvironmentName(absl::string_view name) {
  static constexpr absl::string_view kPrefixes[] = {
      "GNOMON_",     // the executor's configuration and credentials
      "LD_",         // the dynamic loader: LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT
      "BASH_FUNC_",  // exported shell functions
      "PYTHON",      // PYTHONPATH, PYTHONSTARTUP, PYTHONHOME, PYTHONINSPECT
      "PERL5",       // PERL5LIB, PERL5OPT
      "DYLD_",       // macOS's loader, for completeness
  };
  static const std::set<std::string, std::less<>> kNames = {
      "BASH_ENV",
      "ENV",
      "SHELLOPTS",
      "BASHOPTS",
      "PS4",
      "IFS",
      "GCONV_PATH",
      "GLIBC_TUNABLES",
      "LOCPATH",
      "NLSPATH",
      "HOSTALIASES",
      "RESOLV_HOST_CONF",
      "MALLOC_CHECK_",
      "PERLLIB",
      "RUBYOPT",
      "RUBYLIB",
      "NODE_OPTIONS",
      "NODE_PATH",
      "JAVA_TOOL_OPTIONS",
      "_JAVA_OPTIONS",
      "JDK_JAVA_OPTIONS",
      "CLASSPATH",
      "GIT_SSH_COMMAND",
      "GIT_EXEC_PATH",
  };
  for (absl::string_view prefix : kPrefixes) {
    if (absl::StartsWith(name, prefix)) return true;
  }
  return kNames.count(name) > 0;
}

absl::StatusOr<v1::CommandTask> ParseCommandTask(absl::string_view params) {
  constexpr absl::string_view kHandler = "command";
  v1::CommandTask task;
  if (absl::Status s = ParseJson(kHandler, params, &task); !s.ok()) return s;
  if (task.argv().empty() || task.argv(0).empty()) {
    return Invalid(kHandler, "argv is required: the program's absolute path, then its arguments");
  }
  for (int i = 0; i < task.argv_size(); ++i) {
    if (task.argv(i).find('\0') != std::string::npos) {
      return Invalid(kHandler, absl::StrCat("argv[", i, "] holds a NUL"));
    }
  }
  for (const auto& [name, value] : task.env()) {
    bool well_formed = !name.empty() && !absl::ascii_isdigit(name[0]) &&
                       std::all_of(name.begin(), name.end(),
                                   [](char c) { return absl::ascii_isalnum(c) || c == '_'; });
    if (!well_formed) {
      return Invalid(kHandler, absl::StrCat("env: '", Shown(name),
                                            "' is not a variable name (letters, digits, '_')"));
    }
    if (IsRefusedEnvironmentName(name)) {
      return Invalid(kHandler,
                     absl::StrCat("env: ", Shown(name),
                                  " may not be set (GNOMON_ variables belong to the executor; "
                                  "loader and interpreter variables would run other code)"));
    }
    if (value.find('\0') != std::string::npos) {
      return Invalid(kHandler, absl::StrCat("env: the value of ", name, " holds a NUL"));
    }
  }
  if (!task.working_dir().empty() &&
      (task.working_dir()[0] != '/' || task.working_dir().find('\0') != std::string::npos)) {
    return Invalid(kHandler, "working_dir must be an absolute path");
  }
  if (task.has_timeout()) {
    if (absl::Status s = CheckDuration(kHandler, "timeout", task.timeout(), absl::Hours(24 * 365));
        !s.ok()) {
      return s;
    }
  }
  for (int code : task.success_exit_codes()) {
    if (code < 0 || code > 255) {
      return Invalid(kHandler,
                     absl::StrCat("success_exit_codes: ", code, " is not an exit code (0..255)"));
    }
  }
  return task;
}

}  // namespace gnomon::generic_executor

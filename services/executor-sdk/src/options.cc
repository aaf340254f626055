#include "gnomon/executor/options.h"

#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "services/common/status/status_macros.h"

namespace gnomon::executor {
namespace {

const char* Env(const char* name) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? v : nullptr;
}

absl::Status ParseInt(const char* name, int* out) {
  if (const char* v = Env(name)) {
    if (!absl::SimpleAtoi(v, out)) {
      return absl::InvalidArgumentError(absl::StrCat(name, "=", v, " is not a number"));
    }
  }
  return absl::OkStatus();
}

absl::Status ParseBool(const char* name, bool* out) {
  if (const char* v = Env(name)) {
    if (!absl::SimpleAtob(v, out)) {
      return absl::InvalidArgumentError(absl::StrCat(name, "=", v, " is not true or false"));
    }
  }
  return absl::OkStatus();
}

void ParseString(const char* name, std::string* out) {
  if (const char* v = Env(name)) *out = v;
}

}  // namespace

std::vector<std::string> SplitEndpoints(std::string_view list) {
  std::vector<std::string> out;
  for (absl::string_view part : absl::StrSplit(absl::string_view(list.data(), list.size()), ',')) {
    part = absl::StripAsciiWhitespace(part);
    if (!part.empty()) out.emplace_back(part);
  }
  return out;
}

absl::StatusOr<ExecutorOptions> OptionsFromEnvironment() {
  ExecutorOptions options;
  ParseString("GNOMON_APP", &options.app_name);
  if (const char* v = Env("GNOMON_REGISTRY")) options.registry_endpoints = SplitEndpoints(v);
  if (const char* v = Env("GNOMON_LOG_SERVICE")) options.log_endpoints = SplitEndpoints(v);
  if (const char* v = Env("GNOMON_SCHEDULERS")) options.scheduler_endpoints = SplitEndpoints(v);
  ParseString("GNOMON_ACCESS_TOKEN", &options.access_token);
  // Left over from executors that served a port: said plainly, not ignored
  // (the deployment still expects gnomond to dial that address).
  for (const char* removed : {"GNOMON_LISTEN", "GNOMON_ADVERTISE"}) {
    if (Env(removed) != nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(removed,
                       " is no longer supported: executors connect out; use "
                       "GNOMON_EXECUTOR_NAME to name the executor"));
    }
  }
  ParseString("GNOMON_EXECUTOR_NAME", &options.executor_name);
  ParseString("GNOMON_TLS_CA", &options.tls.ca_file);
  ParseString("GNOMON_TLS_CERT", &options.tls.cert_file);
  ParseString("GNOMON_TLS_KEY", &options.tls.key_file);
  ParseString("GNOMON_TLS_SERVER_NAME", &options.tls.server_name);
  ParseString("GNOMON_SPOOL_DIR", &options.spool_dir);
  ParseString("GNOMON_LOG_DIR", &options.log_dir);
  ParseString("GNOMON_METRICS_LISTEN", &options.metrics_listen);
  RETURN_IF_ERROR(ParseInt("GNOMON_LOG_RETENTION_DAYS", &options.log_retention_days));
  RETURN_IF_ERROR(ParseInt("GNOMON_MAX_CONCURRENT_RUNS", &options.max_concurrent_runs));
  RETURN_IF_ERROR(ParseInt("GNOMON_MAX_QUEUED_RUNS", &options.max_queued_runs));
  RETURN_IF_ERROR(ParseInt("GNOMON_REMEMBERED_RUNS", &options.remembered_runs));
  RETURN_IF_ERROR(ParseBool("GNOMON_ALLOW_SCRIPTS", &options.allow_scripts));
  RETURN_IF_ERROR(ParseInt("GNOMON_SCRIPT_MAX_MEMORY_MIB", &options.script_max_memory_mib));
  RETURN_IF_ERROR(ParseInt("GNOMON_SCRIPT_MAX_OPEN_FILES", &options.script_max_open_files));
  RETURN_IF_ERROR(ParseInt("GNOMON_SCRIPT_MAX_FILE_MIB", &options.script_max_file_mib));
  RETURN_IF_ERROR(ParseInt("GNOMON_MAX_LOG_MIB_PER_RUN", &options.max_log_mib_per_run));
  return options;
}

}  // namespace gnomon::executor

#include "services/registry/session_validation.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"

namespace gnomon::registry {
namespace {

using checks::Charset;
using checks::CheckCount;
using checks::CheckRange;
using checks::CheckString;
using checks::FirstError;
using checks::Indexed;

constexpr size_t kMaxAppName = 64;
constexpr int kMaxHandlers = 1000;
constexpr int kMaxLabels = 64;
// A protocol maximum no executor reaches by load: the C++ SDK lists at most
// 1,000 busy jobs a beat (and the totals), older SDKs listed every one.
constexpr int kMaxBusyJobs = 10000;
constexpr int kMaxWatchedApps = 1000;
// Runs an executor may declare or report: far above any real machine.
constexpr int64_t kMaxRuns = 1'000'000;

absl::Status CheckAppName(const std::string& field, const std::string& app) {
  return CheckString(field, app, kMaxAppName, Charset::kName, 1);
}

}  // namespace

absl::Status ValidateRegister(const v1::Register& reg) {
  RETURN_IF_ERROR(FirstError({
      CheckAppName("register.app_name", reg.app_name()),
      checks::CheckExecutorName("register.address", reg.address()),
      CheckCount("register.handlers", reg.handlers_size(), kMaxHandlers),
      CheckRange("register.capacity", reg.capacity(), 0, kMaxRuns),
      checks::CheckText("register.version", reg.version(), 64),
      CheckCount("register.labels", reg.labels_size(), kMaxLabels),
      CheckString("register.instance_id", reg.instance_id(), 64, Charset::kToken),
  }));
  for (int i = 0; i < reg.handlers_size(); ++i) {
    RETURN_IF_ERROR(
        CheckString(Indexed("register.handlers", i), reg.handlers(i), 128, Charset::kToken, 1));
  }
  for (const auto& [key, value] : reg.labels()) {
    RETURN_IF_ERROR(FirstError({CheckString("register.labels.key", key, 63, Charset::kName, 1),
                                checks::CheckText("register.labels.value", value, 256)}));
  }
  return absl::OkStatus();
}

absl::Status ValidateBeat(const v1::Beat& beat) {
  // busy_job_count and queued_runs are counts, any uint32: they cost nothing
  // to carry, and refusing a large one would end a healthy executor's session.
  RETURN_IF_ERROR(FirstError({CheckCount("beat.busy_jobs", beat.busy_jobs_size(), kMaxBusyJobs),
                              CheckRange("beat.running_runs", beat.running_runs(), 0, kMaxRuns),
                              checks::CheckFinite("beat.load", beat.load(), 0, 1e6)}));
  for (int i = 0; i < beat.busy_jobs_size(); ++i) {
    const v1::JobBusy& b = beat.busy_jobs(i);
    const std::string field = Indexed("beat.busy_jobs", i);
    RETURN_IF_ERROR(FirstError({CheckRange(field + ".job_id", b.job_id(), 1, INT64_MAX),
                                CheckRange(field + ".running", b.running(), 0, kMaxRuns),
                                CheckRange(field + ".queued", b.queued(), 0, kMaxRuns)}));
  }
  return absl::OkStatus();
}

absl::Status ValidateDeregister(const v1::Deregister& deregister) {
  return checks::CheckText("deregister.reason", deregister.reason(), 256);
}

absl::Status ValidateWatchRequest(const v1::WatchExecutorsRequest& request) {
  RETURN_IF_ERROR(CheckCount("app_names", request.app_names_size(), kMaxWatchedApps));
  for (int i = 0; i < request.app_names_size(); ++i) {
    RETURN_IF_ERROR(CheckAppName(Indexed("app_names", i), request.app_names(i)));
  }
  return absl::OkStatus();
}

}  // namespace gnomon::registry

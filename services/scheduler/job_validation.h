// Validation of admin input: groups and jobs. Every error is InvalidArgument
// (or NotFound for a reference to a missing row), names the field
// ("job.author: at most 256 bytes") and quotes at most a short prefix of a
// value. The limits are documented in docs/operations.md, "Input limits".
//
//   if (absl::Status s = ValidateJob(job, limits, store); !s.ok()) return s;
//
// Thread safety: pure functions over the store.
#ifndef GNOMON_SERVICES_SCHEDULER_JOB_VALIDATION_H_
#define GNOMON_SERVICES_SCHEDULER_JOB_VALIDATION_H_

#include <cstddef>
#include <string_view>

#include "absl/status/status.h"
#include "gnomon/v1/common.pb.h"
#include "services/common/store/job_store.h"

namespace gnomon::scheduler {

// A script version's remark (ScriptTask.remark, RollbackScriptRequest.remark).
inline constexpr size_t kMaxScriptRemarkBytes = 255;

struct JobLimits {
  size_t max_params_bytes = 64 * 1024;
  size_t max_script_bytes = 1024 * 1024;
  uint32_t max_retries = 100;
  // Jobs one group may hold (<= 0: no limit): an operator of one group
  // cannot fill the store (--max-jobs-per-group).
  int64_t max_jobs_per_group = 1'000'000;
};

// A group to store (app_name required). Fields the server sets (id, token,
// times) are ignored by the callers but bounded all the same.
absl::Status ValidateGroup(const v1::Group& group);
// The group of an UpdateGroupRequest: as ValidateGroup, but app_name (which
// cannot change) may be empty.
absl::Status ValidateGroupUpdate(const v1::Group& group);
// A schedule's fields under `field` ("job.schedule", "schedule"): bounded
// before it is parsed, then parsed.
absl::Status ValidateScheduleFields(std::string_view field, const v1::Schedule& schedule);
// Params under `field` ("job.params", "params"): at most max_params_bytes,
// then parsed as a template ("job.params: at character 12: ...").
absl::Status CheckParams(std::string_view field, const std::string& params,
                         const JobLimits& limits);
// The job's own fields, without the store (output-only ones included).
absl::Status ValidateJobFields(const v1::Job& job, const JobLimits& limits);
// ValidateJobFields, and that its group and children exist, and
// that its children do not lead back to it (a cycle).
absl::Status ValidateJob(const v1::Job& job, const JobLimits& limits, store::JobStore* store);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_JOB_VALIDATION_H_

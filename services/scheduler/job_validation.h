// Validation of admin input: groups and jobs. Every error is InvalidArgument
// (or NotFound for a reference to a missing row) and names the field.
//
//   if (absl::Status s = ValidateJob(job, limits, store); !s.ok()) return s;
//
// Thread safety: pure functions over the store.
#ifndef GNOMON_SERVICES_SCHEDULER_JOB_VALIDATION_H_
#define GNOMON_SERVICES_SCHEDULER_JOB_VALIDATION_H_

#include <cstddef>

#include "absl/status/status.h"
#include "gnomon/v1/common.pb.h"
#include "services/common/store/store.h"

namespace gnomon::scheduler {

struct JobLimits {
  size_t max_params_bytes = 64 * 1024;
  size_t max_script_bytes = 1024 * 1024;
  uint32_t max_retries = 100;
};

absl::Status ValidateGroup(const v1::Group& group);
// Checks the job's own fields and that its group and children exist, and
// that its children do not lead back to it (a cycle).
absl::Status ValidateJob(const v1::Job& job, const JobLimits& limits, store::Store* store);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_JOB_VALIDATION_H_

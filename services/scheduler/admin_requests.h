// Field checks of the JobAdmin requests that carry more than an id (jobs and
// groups themselves are checked by job_validation.h). Each returns the first
// bad field as InvalidArgument "<field>: <problem>", before any store access.
//
//   if (absl::Status s = ValidateTriggerRequest(req, limits_); !s.ok()) return s;
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_SCHEDULER_ADMIN_REQUESTS_H_
#define GNOMON_SERVICES_SCHEDULER_ADMIN_REQUESTS_H_

#include "absl/status/status.h"
#include "gnomon/v1/admin.pb.h"
#include "services/scheduler/job_validation.h"

namespace gnomon::scheduler {

absl::Status ValidateUpdateGroupMask(const v1::UpdateGroupRequest& req);
absl::Status ValidateListJobsRequest(const v1::ListJobsRequest& req);
absl::Status ValidateTriggerRequest(const v1::TriggerJobRequest& req, const JobLimits& limits);
absl::Status ValidatePreviewRequest(const v1::PreviewScheduleRequest& req, const JobLimits& limits);
absl::Status ValidateBackfillRequest(const v1::BackfillRequest& req);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_ADMIN_REQUESTS_H_

// Validation of a workflow from the admin API, as job_validation.h does
// for jobs: InvalidArgument naming the field ("workflow.nodes[2].job_id: no
// job 17"), quoting at most a short prefix of a value.
//
//   if (absl::Status s = ValidateWorkflow(workflow, limits, store); !s.ok()) return s;
//
// Thread safety: pure functions over the store.
#ifndef GNOMON_SERVICES_SCHEDULER_WORKFLOW_VALIDATION_H_
#define GNOMON_SERVICES_SCHEDULER_WORKFLOW_VALIDATION_H_

#include "absl/status/status.h"
#include "gnomon/v1/workflow.pb.h"
#include "services/common/store/job_store.h"
#include "services/scheduler/job_validation.h"

namespace gnomon::scheduler {

// What can be checked without the store, before anything is looked up: the
// workflow's own fields (group_id may be 0: an update keeps the stored
// one) and its graph's shape (names, edges, no cycle); a node may still
// name its job by job_name.
absl::Status ValidateWorkflowFields(const v1::Workflow& workflow, const JobLimits& limits);
// The workflow's own fields (name and group required), then its graph
// (workflow::Validate), whose job nodes must be jobs of its group.
absl::Status ValidateWorkflow(const v1::Workflow& workflow, const JobLimits& limits,
                              store::JobStore* jobs);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_WORKFLOW_VALIDATION_H_

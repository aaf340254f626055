// WorkflowAdmin: the logic behind JobAdmin's workflow methods — workflows
// checked and stored, runs started and acted on through the WorkflowDriver —
// as AdminCore is for jobs. AdminService authenticates, checks the request
// (Validate) and the caller's reach of the workflow's group
// (CheckWorkflowAccess), audits, and calls it. A workflow or run that does
// not exist is NotFound naming the id's field.
//
//   WorkflowAdmin admin({store, store, store}, &driver, &core, &RealClock(), JobLimits{});
//   absl::StatusOr<v1::Workflow> w = admin.Create(request.workflow());
//   absl::StatusOr<v1::WorkflowRun> run = admin.Trigger(trigger_request);
//
// Thread safety: thread-safe (its state is the store's).
#ifndef GNOMON_SERVICES_SCHEDULER_WORKFLOW_ADMIN_H_
#define GNOMON_SERVICES_SCHEDULER_WORKFLOW_ADMIN_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "gnomon/v1/workflow.pb.h"
#include "services/common/client/clock.h"
#include "services/common/store/calendar_store.h"
#include "services/common/store/job_store.h"
#include "services/common/store/run_store.h"
#include "services/common/store/workflow_store.h"
#include "services/scheduler/admin_core.h"
#include "services/scheduler/job_validation.h"
#include "services/scheduler/workflow_driver.h"

namespace gnomon::scheduler {

struct WorkflowAdminStores {
  store::WorkflowStore* workflows = nullptr;
  store::JobStore* jobs = nullptr;
  store::RunStore* runs = nullptr;
  // Calendars workflows name; null: a workflow naming one is refused.
  store::CalendarStore* calendars = nullptr;
};

class WorkflowAdmin {
 public:
  // `core` kills the runs of a cancelled workflow run's nodes.
  WorkflowAdmin(WorkflowAdminStores stores, WorkflowDriver* driver, AdminCore* core, Clock* clock,
                JobLimits limits)
      : stores_(stores), driver_(driver), core_(core), clock_(clock), limits_(limits) {}

  // A request's fields, checked before anything is looked up (each method
  // checks them again). For a workflow: what needs no store
  // (ValidateWorkflowFields).
  absl::Status Validate(const v1::Workflow& workflow) const;
  absl::Status Validate(const v1::TriggerWorkflowRequest& req) const;
  absl::Status Validate(const v1::ListWorkflowRunsRequest& req) const;
  absl::Status Validate(const v1::WorkflowNodeRequest& req) const;

  // Where workflows are (for the caller's reach: CheckWorkflowAccess).
  store::WorkflowStore* store() const { return stores_.workflows; }

  // Nodes may name their jobs by job_name (resolved in the workflow's group);
  // answers carry both the id and the name.
  absl::StatusOr<v1::Workflow> Create(const v1::Workflow& workflow);
  absl::StatusOr<v1::Workflow> Get(int64_t workflow_id);
  // `groups`: only these (empty: every group).
  absl::StatusOr<v1::ListWorkflowsResponse> List(const std::vector<int64_t>& groups);
  absl::StatusOr<v1::Workflow> Update(const v1::Workflow& workflow);
  absl::Status Delete(int64_t workflow_id);

  absl::StatusOr<v1::WorkflowRun> Trigger(const v1::TriggerWorkflowRequest& req);
  absl::StatusOr<v1::WorkflowRun> GetRun(int64_t workflow_run_id);
  absl::StatusOr<v1::ListWorkflowRunsResponse> ListRuns(const v1::ListWorkflowRunsRequest& req);
  // Cancels the run (nothing more starts), then kills its nodes' runs on
  // their executors. A node's run recorded but not yet on an executor runs
  // to its end; its result changes nothing.
  absl::StatusOr<v1::WorkflowRun> Cancel(int64_t workflow_run_id);
  absl::StatusOr<v1::WorkflowRun> Rerun(const v1::WorkflowNodeRequest& req);
  absl::StatusOr<v1::WorkflowRun> Skip(const v1::WorkflowNodeRequest& req);
  absl::StatusOr<v1::WorkflowRun> MarkSucceeded(const v1::WorkflowNodeRequest& req);

 private:
  // Job nodes named by job_name get their job's id (in the workflow's group).
  absl::Status ResolveJobNames(v1::Workflow& workflow);
  // Fills each job node's job_name (a deleted job's stays empty), for all
  // of `workflows` in one read.
  absl::Status NameJobs(const std::vector<v1::Workflow*>& workflows);
  // The same for the graph a run keeps; the run, for answers.
  absl::StatusOr<v1::WorkflowRun> Named(absl::StatusOr<v1::WorkflowRun> run);
  // The stored workflow, or run; NotFound naming `field`.
  absl::StatusOr<v1::Workflow> Read(int64_t workflow_id, const char* field);
  absl::StatusOr<v1::WorkflowRun> ReadRun(int64_t workflow_run_id, const char* field);
  // The workflow's first slot from now, or store::kNever (no schedule,
  // stopped); NotFound naming workflow.schedule.calendar for a calendar
  // that does not exist.
  absl::StatusOr<int64_t> FirstFire(const v1::Workflow& workflow, int64_t now_ms) const;

  const WorkflowAdminStores stores_;
  WorkflowDriver* const driver_;
  AdminCore* const core_;
  Clock* const clock_;
  const JobLimits limits_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_WORKFLOW_ADMIN_H_

// WorkflowStore: workflows (a DAG of jobs of one group, stored as its
// gnomon.v1.Workflow) and their runs (each node's state in one row, changed
// only from the version it was read at).
//
//   absl::StatusOr<v1::Workflow> w = store.CreateWorkflow(workflow, next_fire_ms, now_ms);
//   absl::StatusOr<v1::WorkflowRun> run = store.CreateWorkflowRun(new_run, now_ms);
//   run->mutable_nodes(0)->set_state(v1::WORKFLOW_NODE_STATE_RUNNING);
//   run = store.UpdateWorkflowRun(*run, now_ms);  // Aborted if someone changed it first
//
// One of the role-sized interfaces that together make up the Store
// (store.h); conventions (times, errors, thread safety) are store.h's.
#ifndef GNOMON_SERVICES_COMMON_STORE_WORKFLOW_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_WORKFLOW_STORE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "gnomon/v1/workflow.pb.h"

namespace gnomon::store {

// A workflow whose schedule is due, and the slot it is due for.
struct DueWorkflow {
  v1::Workflow workflow;
  int64_t next_fire_ms = 0;
};

class WorkflowStore {
 public:
  virtual ~WorkflowStore() = default;

  // Stores a new workflow (its id, and create and update times, are the
  // store's); its next slot is `next_fire_ms`. NotFound naming
  // workflow.group_id if the group does not exist; AlreadyExists naming
  // workflow.name if the group has a workflow of that name.
  virtual absl::StatusOr<v1::Workflow> CreateWorkflow(const v1::Workflow& workflow,
                                                      int64_t next_fire_ms, int64_t now_ms) = 0;
  virtual absl::StatusOr<v1::Workflow> GetWorkflow(int64_t workflow_id) = 0;
  // A group's workflows (0: every group's), by id.
  virtual absl::StatusOr<std::vector<v1::Workflow>> ListWorkflows(int64_t group_id) = 0;
  // Replaces the workflow with id workflow.id (its group stays), and its
  // next slot if `next_fire_ms` is given; NotFound, or AlreadyExists as
  // CreateWorkflow.
  virtual absl::StatusOr<v1::Workflow> UpdateWorkflow(const v1::Workflow& workflow,
                                                      std::optional<int64_t> next_fire_ms,
                                                      int64_t now_ms) = 0;
  // The workflows of `partitions` (workflow id % partition_count(); empty:
  // all) that their schedule fires (state RUNNING) with a slot at or before
  // `until_ms`, earliest first, at most `limit`.
  virtual absl::StatusOr<std::vector<DueWorkflow>> ListDueWorkflows(
      int64_t until_ms, int limit, const std::vector<int>& partitions) = 0;
  // Moves a workflow's next slot from `expected_ms` to `next_ms`; false if
  // it was not at `expected_ms` (another replica moved it, or an edit did).
  virtual absl::StatusOr<bool> AdvanceWorkflow(int64_t workflow_id, int64_t expected_ms,
                                               int64_t next_ms) = 0;
  // Deletes the workflow and its runs; FailedPrecondition while one of its
  // runs is RUNNING.
  virtual absl::Status DeleteWorkflow(int64_t workflow_id) = 0;

  // Stores a new run of run.workflow_id (its id, create time and version 1
  // are the store's). A scheduled run (scheduled_time set) starts once per
  // slot: AlreadyExists if that slot's run exists.
  virtual absl::StatusOr<v1::WorkflowRun> CreateWorkflowRun(const v1::WorkflowRun& run,
                                                            int64_t now_ms) = 0;
  virtual absl::StatusOr<v1::WorkflowRun> GetWorkflowRun(int64_t run_id) = 0;
  // Writes `run` if the stored run is still at run.version, as version + 1
  // (returned); Aborted if it was changed since (read it again and redo the
  // change), NotFound if it is gone. A run that is no longer RUNNING gets
  // its end time.
  virtual absl::StatusOr<v1::WorkflowRun> UpdateWorkflowRun(const v1::WorkflowRun& run,
                                                            int64_t now_ms) = 0;
  // A workflow's runs, newest first, at most `limit`.
  virtual absl::StatusOr<std::vector<v1::WorkflowRun>> ListWorkflowRuns(int64_t workflow_id,
                                                                        int limit) = 0;
  // The runs still RUNNING of the workflows of `partitions` (as
  // ListDueWorkflows), oldest first, at most `limit`.
  virtual absl::StatusOr<std::vector<v1::WorkflowRun>> ListRunningWorkflowRuns(
      int limit, const std::vector<int>& partitions) = 0;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_WORKFLOW_STORE_H_

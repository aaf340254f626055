// AdminService: the workflow methods of gnomon.v1.JobAdmin over
// WorkflowAdmin. Each checks that the caller reaches the workflow's group
// (a run's: the group of the workflow it started from); every change is
// audited as "workflow/ID" or "workflow_run/ID".
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "services/common/server/access.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/admin_answer.h"
#include "services/scheduler/admin_service.h"

namespace gnomon::scheduler {
namespace {

using admin_internal::Object;

// Adapts an absl::Status-returning call to the StatusOr shape Answer expects.
absl::StatusOr<v1::DeleteWorkflowResponse> Deleted(absl::Status s) {
  RETURN_IF_ERROR(s);
  return v1::DeleteWorkflowResponse();
}

}  // namespace

absl::Status AdminService::CheckWorkflows() const {
  if (workflows_ == nullptr) return absl::UnimplementedError("workflows are not served here");
  return absl::OkStatus();
}

std::string AdminService::WorkflowJson(int64_t workflow_id) {
  if (workflows_ == nullptr) return "";
  absl::StatusOr<v1::Workflow> w = workflows_->Get(workflow_id);
  return w.ok() ? AuditLog::Json(*w) : "";
}

std::string AdminService::WorkflowRunJson(int64_t workflow_run_id) {
  if (workflows_ == nullptr) return "";
  absl::StatusOr<v1::WorkflowRun> run = workflows_->GetRun(workflow_run_id);
  if (!run.ok()) return "";
  run->clear_workflow();  // The graph is the workflow's, audited with it.
  return AuditLog::Json(*run);
}

grpc::Status AdminService::CreateWorkflow(Ctx* c, const v1::CreateWorkflowRequest* r,
                                          v1::Workflow* o) {
  return Answer(__func__, c, o,
                [&](const Caller& who) -> absl::StatusOr<v1::Workflow> {
                  RETURN_IF_ERROR(CheckWorkflows());
                  RETURN_IF_ERROR(workflows_->Validate(r->workflow()));
                  RETURN_IF_ERROR(checks::CheckRange("workflow.group_id", r->workflow().group_id(),
                                                     1, INT64_MAX));
                  RETURN_IF_ERROR(who.access.CheckGroup(r->workflow().group_id()));
                  return workflows_->Create(r->workflow());
                },
                {r, [o] { return Object("workflow", o->id()); }, {}});
}

grpc::Status AdminService::GetWorkflow(Ctx* c, const v1::GetWorkflowRequest* r, v1::Workflow* o) {
  return Answer(__func__, c, o, [&](const Caller& who) -> absl::StatusOr<v1::Workflow> {
    RETURN_IF_ERROR(CheckWorkflows());
    RETURN_IF_ERROR(checks::CheckRange("workflow_id", r->workflow_id(), 1, INT64_MAX));
    RETURN_IF_ERROR(CheckWorkflowAccess(workflows_->store(), who.access, r->workflow_id()));
    return workflows_->Get(r->workflow_id());
  });
}

grpc::Status AdminService::ListWorkflows(Ctx* c, const v1::ListWorkflowsRequest* r,
                                         v1::ListWorkflowsResponse* o) {
  return Answer(
      __func__, c, o, [&](const Caller& who) -> absl::StatusOr<v1::ListWorkflowsResponse> {
        RETURN_IF_ERROR(CheckWorkflows());
        RETURN_IF_ERROR(checks::CheckRange("group_id", r->group_id(), 0, INT64_MAX));
        ASSIGN_OR_RETURN(std::vector<int64_t> groups, who.access.ListScope(r->group_id()));
        return workflows_->List(groups);
      });
}

grpc::Status AdminService::UpdateWorkflow(Ctx* c, const v1::UpdateWorkflowRequest* r,
                                          v1::Workflow* o) {
  const int64_t id = r->workflow().id();
  return Answer(
      __func__, c, o,
      [&](const Caller& who) -> absl::StatusOr<v1::Workflow> {
        RETURN_IF_ERROR(CheckWorkflows());
        RETURN_IF_ERROR(workflows_->Validate(r->workflow()));
        RETURN_IF_ERROR(checks::CheckRange("workflow.id", id, 1, INT64_MAX));
        RETURN_IF_ERROR(CheckWorkflowAccess(workflows_->store(), who.access, id));
        return workflows_->Update(r->workflow());
      },
      {r, [id] { return Object("workflow", id); }, [this, id] { return WorkflowJson(id); }});
}

grpc::Status AdminService::DeleteWorkflow(Ctx* c, const v1::DeleteWorkflowRequest* r,
                                          v1::DeleteWorkflowResponse* o) {
  const int64_t id = r->workflow_id();
  return Answer(
      __func__, c, o,
      [&](const Caller& who) -> absl::StatusOr<v1::DeleteWorkflowResponse> {
        RETURN_IF_ERROR(CheckWorkflows());
        RETURN_IF_ERROR(checks::CheckRange("workflow_id", id, 1, INT64_MAX));
        RETURN_IF_ERROR(CheckWorkflowAccess(workflows_->store(), who.access, id));
        return Deleted(workflows_->Delete(id));
      },
      {r, [id] { return Object("workflow", id); }, [this, id] { return WorkflowJson(id); }});
}

grpc::Status AdminService::TriggerWorkflow(Ctx* c, const v1::TriggerWorkflowRequest* r,
                                           v1::WorkflowRun* o) {
  return Answer(
      __func__, c, o,
      [&](const Caller& who) -> absl::StatusOr<v1::WorkflowRun> {
        RETURN_IF_ERROR(CheckWorkflows());
        RETURN_IF_ERROR(workflows_->Validate(*r));
        RETURN_IF_ERROR(CheckWorkflowAccess(workflows_->store(), who.access, r->workflow_id()));
        return workflows_->Trigger(*r);
      },
      {r, [o] { return Object("workflow_run", o->id()); }, {}});
}

grpc::Status AdminService::GetWorkflowRun(Ctx* c, const v1::GetWorkflowRunRequest* r,
                                          v1::WorkflowRun* o) {
  return Answer(__func__, c, o, [&](const Caller& who) -> absl::StatusOr<v1::WorkflowRun> {
    RETURN_IF_ERROR(CheckWorkflows());
    RETURN_IF_ERROR(checks::CheckRange("workflow_run_id", r->workflow_run_id(), 1, INT64_MAX));
    RETURN_IF_ERROR(CheckWorkflowRunAccess(workflows_->store(), who.access, r->workflow_run_id()));
    return workflows_->GetRun(r->workflow_run_id());
  });
}

grpc::Status AdminService::ListWorkflowRuns(Ctx* c, const v1::ListWorkflowRunsRequest* r,
                                            v1::ListWorkflowRunsResponse* o) {
  return Answer(
      __func__, c, o, [&](const Caller& who) -> absl::StatusOr<v1::ListWorkflowRunsResponse> {
        RETURN_IF_ERROR(CheckWorkflows());
        RETURN_IF_ERROR(workflows_->Validate(*r));
        RETURN_IF_ERROR(CheckWorkflowAccess(workflows_->store(), who.access, r->workflow_id()));
        return workflows_->ListRuns(*r);
      });
}

template <typename Request, typename Fn>
grpc::Status AdminService::OnWorkflowRun(const char* method, Ctx* c, const Request* r,
                                         v1::WorkflowRun* o, Fn&& fn) {
  const int64_t id = r->workflow_run_id();
  return Answer(
      method, c, o,
      [&](const Caller& who) -> absl::StatusOr<v1::WorkflowRun> {
        RETURN_IF_ERROR(CheckWorkflows());
        if constexpr (std::is_same_v<Request, v1::WorkflowNodeRequest>) {
          RETURN_IF_ERROR(workflows_->Validate(*r));  // Before the run is looked up.
        }
        RETURN_IF_ERROR(checks::CheckRange("workflow_run_id", id, 1, INT64_MAX));
        RETURN_IF_ERROR(CheckWorkflowRunAccess(workflows_->store(), who.access, id));
        return fn();
      },
      {r, [id] { return Object("workflow_run", id); }, [this, id] { return WorkflowRunJson(id); }});
}

grpc::Status AdminService::CancelWorkflowRun(Ctx* c, const v1::CancelWorkflowRunRequest* r,
                                             v1::WorkflowRun* o) {
  return OnWorkflowRun(__func__, c, r, o, [&] { return workflows_->Cancel(r->workflow_run_id()); });
}
grpc::Status AdminService::RerunWorkflowNode(Ctx* c, const v1::WorkflowNodeRequest* r,
                                             v1::WorkflowRun* o) {
  return OnWorkflowRun(__func__, c, r, o, [&] { return workflows_->Rerun(*r); });
}
grpc::Status AdminService::SkipWorkflowNode(Ctx* c, const v1::WorkflowNodeRequest* r,
                                            v1::WorkflowRun* o) {
  return OnWorkflowRun(__func__, c, r, o, [&] { return workflows_->Skip(*r); });
}
grpc::Status AdminService::MarkWorkflowNodeSucceeded(Ctx* c, const v1::WorkflowNodeRequest* r,
                                                     v1::WorkflowRun* o) {
  return OnWorkflowRun(__func__, c, r, o, [&] { return workflows_->MarkSucceeded(*r); });
}

}  // namespace gnomon::scheduler

#include "services/common/server/access.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"

namespace gnomon {
namespace {

// Higher is more: what each role may do.
int Rank(v1::Role role) {
  switch (role) {
    case v1::ROLE_ADMIN:
      return 3;
    case v1::ROLE_OPERATOR:
      return 2;
    case v1::ROLE_VIEWER:
      return 1;
    default:
      return 0;
  }
}

int Needed(Permission p) {
  switch (p) {
    case Permission::kAdminister:
      return 3;
    case Permission::kOperate:
      return 2;
    case Permission::kRead:
      return 1;
  }
  return 4;
}

absl::Status Denied(std::string_view what) {
  return absl::PermissionDeniedError(
      absl::StrCat(std::string(what), ": not in a group this credential is granted"));
}

}  // namespace

Access Access::Admin() {
  Access a;
  a.role = v1::ROLE_ADMIN;
  return a;
}

Access Access::ClusterReader() {
  Access a;
  a.role = v1::ROLE_VIEWER;
  a.grants.set_all_groups(true);
  return a;
}

bool Access::AllGroups() const { return IsAdmin() || (Rank(role) > 0 && grants.all_groups()); }

bool Access::Reaches(int64_t group_id) const {
  if (AllGroups()) return true;
  if (Rank(role) == 0) return false;
  const auto& ids = grants.group_ids();
  return std::find(ids.begin(), ids.end(), group_id) != ids.end();
}

absl::Status Access::CheckGroup(int64_t group_id) const {
  if (Reaches(group_id)) return absl::OkStatus();
  return Denied(absl::StrCat("group ", group_id));
}

absl::StatusOr<std::vector<int64_t>> Access::ListScope(int64_t requested) const {
  if (requested != 0) {
    RETURN_IF_ERROR(CheckGroup(requested));
    return std::vector<int64_t>{requested};
  }
  if (AllGroups()) return std::vector<int64_t>{};
  if (Rank(role) == 0 || grants.group_ids().empty()) {
    return absl::PermissionDeniedError("this credential is granted no group");
  }
  return std::vector<int64_t>(grants.group_ids().begin(), grants.group_ids().end());
}

absl::Status CheckPermission(const Access& access, Permission permission, std::string_view method) {
  if (Rank(access.role) >= Needed(permission)) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat("role ", std::string(RoleName(access.role)),
                                                  " may not call ", std::string(method)));
}

absl::Status CheckJobAccess(store::JobStore* jobs, const Access& access, int64_t job_id) {
  if (access.AllGroups()) return absl::OkStatus();
  absl::StatusOr<v1::Job> job = jobs->GetJob(job_id);
  if (absl::IsNotFound(job.status())) return Denied(absl::StrCat("job ", job_id));
  RETURN_IF_ERROR(job);
  return access.Reaches(job->group_id()) ? absl::OkStatus() : Denied(absl::StrCat("job ", job_id));
}

absl::Status CheckRunAccess(store::RunStore* runs, const Access& access, int64_t run_id) {
  if (access.AllGroups()) return absl::OkStatus();
  absl::StatusOr<v1::Run> run = runs->GetRun(run_id);
  if (absl::IsNotFound(run.status())) return Denied(absl::StrCat("run ", run_id));
  RETURN_IF_ERROR(run);
  return access.Reaches(run->group_id()) ? absl::OkStatus() : Denied(absl::StrCat("run ", run_id));
}

absl::Status CheckWorkflowAccess(store::WorkflowStore* workflows, const Access& access,
                                 int64_t workflow_id) {
  if (access.AllGroups()) return absl::OkStatus();
  absl::StatusOr<v1::Workflow> w = workflows->GetWorkflow(workflow_id);
  if (absl::IsNotFound(w.status())) return Denied(absl::StrCat("workflow ", workflow_id));
  RETURN_IF_ERROR(w);
  return access.Reaches(w->group_id()) ? absl::OkStatus()
                                       : Denied(absl::StrCat("workflow ", workflow_id));
}

absl::Status CheckWorkflowRunAccess(store::WorkflowStore* workflows, const Access& access,
                                    int64_t workflow_run_id) {
  if (access.AllGroups()) return absl::OkStatus();
  absl::StatusOr<v1::WorkflowRun> run = workflows->GetWorkflowRun(workflow_run_id);
  const std::string what = absl::StrCat("workflow run ", workflow_run_id);
  if (absl::IsNotFound(run.status())) return Denied(what);
  RETURN_IF_ERROR(run);
  return access.Reaches(run->workflow().group_id()) ? absl::OkStatus() : Denied(what);
}

std::string_view RoleName(v1::Role role) {
  switch (role) {
    case v1::ROLE_ADMIN:
      return "admin";
    case v1::ROLE_OPERATOR:
      return "operator";
    case v1::ROLE_VIEWER:
      return "viewer";
    default:
      return "unspecified";
  }
}

}  // namespace gnomon

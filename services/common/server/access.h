// Access: what an authenticated caller may reach — its role and the groups it
// is granted — and the checks every admin and query handler makes with it.
//
// Two layers, both before any change is made:
//   - by method, in Authenticator::Authorize: the role must be at least the
//     method's RequiredPermission (a VIEWER cannot call CreateJob);
//   - by object, in the handlers: the job, run or group the call names must
//     be in a group the caller reaches, and list calls are limited to those.
//
//   absl::Status s = CheckJobAccess(jobs, caller.access, request.job_id());
//   absl::StatusOr<std::vector<int64_t>> groups = caller.access.ListScope(request.group_id());
//
// An ADMIN reaches every group; an OPERATOR or VIEWER those of its Grants.
// A caller that does not reach an object gets PermissionDenied whether or not
// it exists, so ids of other groups' objects reveal nothing.
//
// Thread safety: a value; the store-reading checks are as thread-safe as the
// store.
#ifndef GNOMON_SERVICES_COMMON_SERVER_ACCESS_H_
#define GNOMON_SERVICES_COMMON_SERVER_ACCESS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "gnomon/v1/admin.pb.h"
#include "services/common/server/method_credentials.h"
#include "services/common/store/job_store.h"
#include "services/common/store/run_store.h"
#include "services/common/store/workflow_store.h"

namespace gnomon {

struct Access {
  // ROLE_UNSPECIFIED reaches nothing (executor callers, which use no admin call).
  v1::Role role = v1::ROLE_UNSPECIFIED;
  v1::Grants grants;  // Ignored for ADMIN.

  static Access Admin();
  // Every group, read only: the cluster token's (the calls roles make on each other).
  static Access ClusterReader();

  bool IsAdmin() const { return role == v1::ROLE_ADMIN; }
  // Whether it reaches every group, present and future.
  bool AllGroups() const;
  bool Reaches(int64_t group_id) const;
  // PermissionDenied naming the group unless it Reaches it.
  absl::Status CheckGroup(int64_t group_id) const;
  // The groups a list call is limited to: {} (any) for AllGroups and no
  // `requested` group (0); {requested} if reached; the granted ones for a
  // scoped caller that names none. PermissionDenied for a group it does not
  // reach, or when it is granted no group at all.
  absl::StatusOr<std::vector<int64_t>> ListScope(int64_t requested) const;
};

// PermissionDenied unless `access`'s role allows `permission` ("role viewer
// may not call CreateJob").
absl::Status CheckPermission(const Access& access, Permission permission, std::string_view method);

// OK if `access` reaches the job's group (without reading the store when it
// reaches every group); PermissionDenied otherwise, also for a job that does
// not exist; store failures as they are.
absl::Status CheckJobAccess(store::JobStore* jobs, const Access& access, int64_t job_id);
// The same for a run.
absl::Status CheckRunAccess(store::RunStore* runs, const Access& access, int64_t run_id);
// Likewise for a workflow, and a workflow run (of the group of the workflow
// it started from).
absl::Status CheckWorkflowAccess(store::WorkflowStore* workflows, const Access& access,
                                 int64_t workflow_id);
absl::Status CheckWorkflowRunAccess(store::WorkflowStore* workflows, const Access& access,
                                    int64_t workflow_run_id);

// "admin", "operator", "viewer" (and "unspecified").
std::string_view RoleName(v1::Role role);

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_ACCESS_H_

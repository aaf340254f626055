#include "services/scheduler/job_names.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"

namespace gnomon::scheduler {
namespace {

using checks::Charset;
using checks::CheckString;

absl::StatusOr<int64_t> JobIdInGroup(store::JobStore* store, int64_t group_id,
                                     const std::string& name) {
  ASSIGN_OR_RETURN(std::vector<v1::Job> jobs, store->GetJobsNamed(name, {group_id}));
  if (jobs.empty()) {
    return absl::NotFoundError(
        absl::StrCat("job_name: group ", group_id, " has no job named ", checks::Prefix(name)));
  }
  return jobs.front().id();
}

// The id of the one job called name.name() that `access` reaches.
absl::StatusOr<int64_t> Lookup(store::JobStore* store, const Access& access,
                               const v1::JobName& name) {
  if (!name.group().empty()) {
    absl::StatusOr<v1::Group> g = store->GetGroupByApp(name.group());
    if (absl::IsNotFound(g.status()) || (g.ok() && !access.Reaches(g->id()))) {
      if (!access.AllGroups()) {
        return absl::PermissionDeniedError(
            absl::StrCat("job_name.group: group ", checks::Prefix(name.group()),
                         ": not in a group this credential is granted"));
      }
      return absl::NotFoundError(
          absl::StrCat("job_name.group: no group has app name ", checks::Prefix(name.group())));
    }
    RETURN_IF_ERROR(g);
    return JobIdInGroup(store, g->id(), name.name());
  }
  ASSIGN_OR_RETURN(std::vector<int64_t> scope, access.ListScope(0));
  ASSIGN_OR_RETURN(std::vector<v1::Job> jobs, store->GetJobsNamed(name.name(), scope));
  if (jobs.empty())
    return absl::NotFoundError(
        absl::StrCat("job_name: no job is named ", checks::Prefix(name.name())));
  if (jobs.size() > 1) {
    std::vector<std::string> apps;
    for (const v1::Job& j : jobs) {
      absl::StatusOr<v1::Group> g = store->GetGroup(j.group_id());
      apps.push_back(g.ok() ? g->app_name() : absl::StrCat(j.group_id()));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("job_name: jobs named ", checks::Prefix(name.name()), " are in groups ",
                     absl::StrJoin(apps, ", "), "; set job_name.group"));
  }
  return jobs.front().id();
}

}  // namespace

absl::Status ResolveJob(store::JobStore* store, const Access& access, JobRef& job) {
  if (job.name != nullptr) {
    RETURN_IF_ERROR(checks::FirstError(
        {CheckString("job_name.group", job.name->group(), 64, Charset::kName),
         CheckString("job_name.name", job.name->name(), 128, Charset::kName, 1)}));
    if (job.id != 0)
      return absl::InvalidArgumentError("job_name: give job_id or job_name, not both");
    absl::StatusOr<int64_t> id;
    if (job.group_id != 0) {
      RETURN_IF_ERROR(access.CheckGroup(job.group_id));
      id = JobIdInGroup(store, job.group_id, job.name->name());
    } else {
      id = Lookup(store, access, *job.name);
    }
    RETURN_IF_ERROR(id);
    job.id = *id;
  }
  if (job.id <= 0) return absl::OkStatus();  // The call's own validation names job_id.
  return CheckJobAccess(store, access, job.id);
}

}  // namespace gnomon::scheduler

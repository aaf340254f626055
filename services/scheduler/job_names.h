// Jobs named instead of numbered: every JobAdmin call that names a job takes
// its id or a JobName (the job's name, with its group's app name unless the
// name alone is unambiguous among the groups the caller reaches).
//
//   JobRef job{r->job_id(), &r->job_name()};
//   if (absl::Status s = ResolveJob(store, caller.access, job); !s.ok()) return s;
//   core->StartJob(job.id);
//
// A caller learns nothing of groups it does not reach: their jobs are never
// candidates, and naming such a group is PermissionDenied whether or not it
// exists.
//
// Thread safety: as thread-safe as the store.
#ifndef GNOMON_SERVICES_SCHEDULER_JOB_NAMES_H_
#define GNOMON_SERVICES_SCHEDULER_JOB_NAMES_H_

#include <cstdint>

#include "absl/status/status.h"
#include "gnomon/v1/common.pb.h"
#include "services/common/server/access.h"
#include "services/common/store/job_store.h"

namespace gnomon::scheduler {

struct JobRef {
  int64_t id = 0;                     // Set by ResolveJob when a name is given.
  const v1::JobName* name = nullptr;  // Null when the request has none.
  int64_t group_id = 0;  // If set, name->name() is looked up in this group (not name->group()).
};

// Sets job.id from job.name when id is 0 and a name is given (InvalidArgument
// when both are, NotFound naming it when no reachable job has it,
// InvalidArgument listing the groups when several do), then checks the caller
// reaches the job (CheckJobAccess). An id of 0 without a name is left for the
// call's own validation.
absl::Status ResolveJob(store::JobStore* store, const Access& access, JobRef& job);

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_JOB_NAMES_H_

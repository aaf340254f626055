#include "services/scheduler/workflow_validation.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/workflow/dag.h"
#include "services/scheduler/workflow/workflow_proto.h"

namespace gnomon::scheduler {

using checks::Charset;
using checks::CheckRange;
using checks::CheckString;
using checks::CheckText;
using checks::FirstError;
using checks::Invalid;

absl::Status ValidateWorkflow(const v1::Workflow& w, const JobLimits& limits,
                              store::JobStore* jobs) {
  RETURN_IF_ERROR(FirstError({
      CheckRange("workflow.id", w.id(), 0, INT64_MAX),
      CheckRange("workflow.group_id", w.group_id(), 1, INT64_MAX),
      CheckString("workflow.name", w.name(), 128, Charset::kName, 1),
      CheckText("workflow.description", w.description(), 1024),
      CheckString("workflow.params", w.params(), limits.max_params_bytes, Charset::kBytes),
      ValidateScheduleFields("workflow.schedule", w.schedule()),
      v1::MisfirePolicy_IsValid(w.misfire_policy())
          ? absl::OkStatus()
          : Invalid("workflow.misfire_policy", "unknown value"),
      v1::WorkflowState_IsValid(w.state()) ? absl::OkStatus()
                                           : Invalid("workflow.state", "unknown value"),
      checks::CheckCount("workflow.nodes", w.nodes_size(), workflow::kMaxNodes, 1),
      checks::CheckCount("workflow.edges", w.edges_size(), workflow::kMaxEdges),
  }));
  ASSIGN_OR_RETURN(workflow::Dag dag, workflow::DagOf(w));
  // The groups of the jobs it names, in one read.
  std::vector<int64_t> ids;
  for (const workflow::Node& n : dag.nodes) {
    if (n.job_id > 0) ids.push_back(n.job_id);
  }
  ASSIGN_OR_RETURN(std::vector<v1::Job> read, jobs->GetJobs(ids));
  absl::flat_hash_map<int64_t, int64_t> group_of;
  for (const v1::Job& j : read) group_of[j.id()] = j.group_id();
  const absl::Status s =
      workflow::Validate(dag, w.group_id(), [&](int64_t job) -> std::optional<int64_t> {
        auto it = group_of.find(job);
        if (it == group_of.end()) return std::nullopt;
        return it->second;
      });
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat("workflow.", s.message()));
}

}  // namespace gnomon::scheduler

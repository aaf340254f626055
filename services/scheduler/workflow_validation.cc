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

namespace {

// The own fields of `w`; its group only if `group_required`.
absl::Status CheckOwnFields(const v1::Workflow& w, const JobLimits& limits, bool group_required) {
  RETURN_IF_ERROR(FirstError({
      CheckRange("workflow.id", w.id(), 0, INT64_MAX),
      CheckRange("workflow.group_id", w.group_id(), group_required ? 1 : 0, INT64_MAX),
      CheckString("workflow.name", w.name(), 128, Charset::kName, 1),
      CheckText("workflow.description", w.description(), 1024),
      CheckParams("workflow.params", w.params(), limits),
      ValidateScheduleFields("workflow.schedule", w.schedule()),
      w.schedule().has_fix_delay() ? Invalid("workflow.schedule.fix_delay",
                                             "not supported for workflows (use cron or fix_rate)")
                                   : absl::OkStatus(),
      w.schedule().has_jitter() ? Invalid("workflow.schedule.jitter", "not supported for workflows")
                                : absl::OkStatus(),
      v1::MisfirePolicy_IsValid(w.misfire_policy())
          ? absl::OkStatus()
          : Invalid("workflow.misfire_policy", "unknown value"),
      v1::WorkflowState_IsValid(w.state()) ? absl::OkStatus()
                                           : Invalid("workflow.state", "unknown value"),
      checks::CheckOutputTimestamp("workflow.create_time", w.has_create_time(), w.create_time()),
      checks::CheckOutputTimestamp("workflow.update_time", w.has_update_time(), w.update_time()),
      checks::CheckCount("workflow.nodes", w.nodes_size(), workflow::kMaxNodes, 1),
      checks::CheckCount("workflow.edges", w.edges_size(), workflow::kMaxEdges),
  }));
  for (int i = 0; i < w.nodes_size(); ++i) {
    RETURN_IF_ERROR(CheckString(absl::StrCat(checks::Indexed("workflow.nodes", i), ".job_name"),
                                w.nodes(i).job_name(), 128, Charset::kName));
  }
  for (int i = 0; i < w.edges_size(); ++i) {
    const std::string field = checks::Indexed("workflow.edges", i);
    RETURN_IF_ERROR(FirstError({CheckString(absl::StrCat(field, ".from"), w.edges(i).from(),
                                            workflow::kMaxNodeNameBytes, Charset::kName, 1),
                                CheckString(absl::StrCat(field, ".to"), w.edges(i).to(),
                                            workflow::kMaxNodeNameBytes, Charset::kName, 1)}));
  }
  return absl::OkStatus();
}

// The graph's own errors, prefixed with "workflow.".
absl::Status GraphError(const absl::Status& s) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat("workflow.", s.message()));
}

}  // namespace

absl::Status ValidateWorkflowFields(const v1::Workflow& w, const JobLimits& limits) {
  RETURN_IF_ERROR(CheckOwnFields(w, limits, /*group_required=*/false));
  // Its shape without the store: a node named by job_name stands for some
  // job of the workflow's group, as does every job id.
  v1::Workflow shape = w;
  for (v1::WorkflowNode& n : *shape.mutable_nodes()) {
    if (n.kind_case() == v1::WorkflowNode::KIND_NOT_SET && !n.job_name().empty()) {
      n.set_job_id(INT64_MAX);
    }
  }
  absl::StatusOr<workflow::Dag> dag = workflow::DagOf(shape);  // Its errors name workflow.*.
  if (!dag.ok()) return dag.status();
  return GraphError(workflow::Validate(
      *dag, shape.group_id(), [&](int64_t) -> std::optional<int64_t> { return shape.group_id(); }));
}

absl::Status ValidateWorkflow(const v1::Workflow& w, const JobLimits& limits,
                              store::JobStore* jobs) {
  RETURN_IF_ERROR(CheckOwnFields(w, limits, /*group_required=*/true));
  ASSIGN_OR_RETURN(workflow::Dag dag, workflow::DagOf(w));
  // The groups of the jobs it names, in one read.
  std::vector<int64_t> ids;
  for (const workflow::Node& n : dag.nodes) {
    if (n.job_id > 0) ids.push_back(n.job_id);
  }
  ASSIGN_OR_RETURN(std::vector<v1::Job> read, jobs->GetJobs(ids));
  absl::flat_hash_map<int64_t, int64_t> group_of;
  for (const v1::Job& j : read) group_of[j.id()] = j.group_id();
  return GraphError(
      workflow::Validate(dag, w.group_id(), [&](int64_t job) -> std::optional<int64_t> {
        auto it = group_of.find(job);
        if (it == group_of.end()) return std::nullopt;
        return it->second;
      }));
}

}  // namespace gnomon::scheduler

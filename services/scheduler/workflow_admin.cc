#include "services/scheduler/workflow_admin.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "services/common/client/log.h"
#include "services/common/client/report_limits.h"
#include "services/common/server/field_checks.h"
#include "services/common/server/run_queries.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/calendar_admin.h"
#include "services/scheduler/next_fire.h"
#include "services/scheduler/workflow_validation.h"

namespace gnomon::scheduler {
namespace {

using checks::CheckRange;

}  // namespace

absl::StatusOr<v1::Workflow> WorkflowAdmin::Read(int64_t workflow_id, const char* field) {
  RETURN_IF_ERROR(CheckRange(field, workflow_id, 1, INT64_MAX));
  absl::StatusOr<v1::Workflow> w = stores_.workflows->GetWorkflow(workflow_id);
  if (absl::IsNotFound(w.status())) {
    return absl::NotFoundError(absl::StrCat(field, ": no workflow ", workflow_id));
  }
  return w;
}

absl::StatusOr<v1::WorkflowRun> WorkflowAdmin::ReadRun(int64_t workflow_run_id, const char* field) {
  RETURN_IF_ERROR(CheckRange(field, workflow_run_id, 1, INT64_MAX));
  absl::StatusOr<v1::WorkflowRun> run = stores_.workflows->GetWorkflowRun(workflow_run_id);
  if (absl::IsNotFound(run.status())) {
    return absl::NotFoundError(absl::StrCat(field, ": no workflow run ", workflow_run_id));
  }
  return run;
}

absl::Status WorkflowAdmin::ResolveJobNames(v1::Workflow& w) {
  for (int i = 0; i < w.nodes_size(); ++i) {
    v1::WorkflowNode& n = *w.mutable_nodes(i);
    if (n.kind_case() != v1::WorkflowNode::KIND_NOT_SET || n.job_name().empty()) continue;
    const std::string field = absl::StrCat(checks::Indexed("workflow.nodes", i), ".job_name");
    RETURN_IF_ERROR(checks::CheckString(field, n.job_name(), 128, checks::Charset::kName, 1));
    ASSIGN_OR_RETURN(std::vector<v1::Job> named,
                     stores_.jobs->GetJobsNamed(n.job_name(), {w.group_id()}));
    if (named.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          field, ": no job ", checks::Prefix(n.job_name()), " in group ", w.group_id()));
    }
    n.set_job_id(named.front().id());
  }
  return absl::OkStatus();
}

absl::Status WorkflowAdmin::NameJobs(const std::vector<v1::Workflow*>& workflows) {
  std::vector<int64_t> ids;
  for (const v1::Workflow* w : workflows) {
    for (const v1::WorkflowNode& n : w->nodes()) {
      if (n.job_id() > 0) ids.push_back(n.job_id());
    }
  }
  ASSIGN_OR_RETURN(std::vector<v1::Job> jobs, stores_.jobs->GetJobs(ids));  // One read for all.
  absl::flat_hash_map<int64_t, std::string> names;
  for (const v1::Job& j : jobs) names[j.id()] = j.name();
  for (v1::Workflow* w : workflows) {
    for (v1::WorkflowNode& n : *w->mutable_nodes()) {
      n.clear_job_name();
      if (auto it = names.find(n.job_id()); n.job_id() > 0 && it != names.end()) {
        n.set_job_name(it->second);
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::WorkflowRun> WorkflowAdmin::Named(absl::StatusOr<v1::WorkflowRun> run) {
  if (run.ok()) RETURN_IF_ERROR(NameJobs({run->mutable_workflow()}));
  return run;
}

absl::StatusOr<int64_t> WorkflowAdmin::FirstFire(const v1::Workflow& w, int64_t now_ms) const {
  ASSIGN_OR_RETURN(std::shared_ptr<const schedule::Calendar> calendar,
                   CalendarOf(stores_.calendars, w.schedule(), "workflow.schedule.calendar"));
  if (w.state() != v1::WORKFLOW_STATE_RUNNING) return store::kNever;
  return FirstSlot(WorkflowSlots(w), now_ms, {nullptr, calendar.get()});
}

absl::StatusOr<v1::Workflow> WorkflowAdmin::Create(const v1::Workflow& in) {
  v1::Workflow w = in;
  w.clear_id();
  w.clear_create_time();
  w.clear_update_time();
  if (w.state() == v1::WORKFLOW_STATE_UNSPECIFIED) w.set_state(v1::WORKFLOW_STATE_STOPPED);
  RETURN_IF_ERROR(CheckRange("workflow.group_id", w.group_id(), 1, INT64_MAX));
  RETURN_IF_ERROR(ResolveJobNames(w));
  RETURN_IF_ERROR(ValidateWorkflow(w, limits_, stores_.jobs));
  const int64_t now = clock_->NowMillis();
  ASSIGN_OR_RETURN(const int64_t first, FirstFire(w, now));
  ASSIGN_OR_RETURN(v1::Workflow created, stores_.workflows->CreateWorkflow(w, first, now));
  RETURN_IF_ERROR(NameJobs({&created}));
  return created;
}

absl::StatusOr<v1::Workflow> WorkflowAdmin::Get(int64_t workflow_id) {
  ASSIGN_OR_RETURN(v1::Workflow w, Read(workflow_id, "workflow_id"));
  RETURN_IF_ERROR(NameJobs({&w}));
  return w;
}

absl::StatusOr<v1::ListWorkflowsResponse> WorkflowAdmin::List(const std::vector<int64_t>& groups) {
  v1::ListWorkflowsResponse resp;
  std::vector<v1::Workflow> all;
  if (groups.empty()) {
    ASSIGN_OR_RETURN(all, stores_.workflows->ListWorkflows(0));
  } else {
    for (int64_t g : groups) {
      ASSIGN_OR_RETURN(std::vector<v1::Workflow> some, stores_.workflows->ListWorkflows(g));
      all.insert(all.end(), some.begin(), some.end());
    }
  }
  for (v1::Workflow& w : all) *resp.add_workflows() = std::move(w);
  std::vector<v1::Workflow*> named;
  for (v1::Workflow& w : *resp.mutable_workflows()) named.push_back(&w);
  RETURN_IF_ERROR(NameJobs(named));
  return resp;
}

absl::StatusOr<v1::Workflow> WorkflowAdmin::Update(const v1::Workflow& in) {
  ASSIGN_OR_RETURN(v1::Workflow stored, Read(in.id(), "workflow.id"));
  v1::Workflow w = in;
  w.set_group_id(stored.group_id());  // A workflow stays in its group.
  if (w.state() == v1::WORKFLOW_STATE_UNSPECIFIED) w.set_state(stored.state());
  RETURN_IF_ERROR(ResolveJobNames(w));
  RETURN_IF_ERROR(ValidateWorkflow(w, limits_, stores_.jobs));
  // A new schedule, or one started or stopped, starts from now; otherwise
  // the next slot stays where the schedule loop left it.
  const int64_t now = clock_->NowMillis();
  ASSIGN_OR_RETURN(const int64_t first, FirstFire(w, now));  // Checks its calendar, too.
  std::optional<int64_t> next;
  if (w.state() != stored.state() ||
      w.schedule().SerializeAsString() != stored.schedule().SerializeAsString()) {
    next = first;
  }
  ASSIGN_OR_RETURN(v1::Workflow updated, stores_.workflows->UpdateWorkflow(w, next, now));
  RETURN_IF_ERROR(NameJobs({&updated}));
  return updated;
}

absl::Status WorkflowAdmin::Delete(int64_t workflow_id) {
  RETURN_IF_ERROR(Read(workflow_id, "workflow_id").status());
  return stores_.workflows->DeleteWorkflow(workflow_id);
}

absl::Status WorkflowAdmin::Validate(const v1::Workflow& workflow) const {
  return ValidateWorkflowFields(workflow, limits_);
}

absl::Status WorkflowAdmin::Validate(const v1::TriggerWorkflowRequest& req) const {
  RETURN_IF_ERROR(checks::FirstError(
      {CheckRange("workflow_id", req.workflow_id(), 1, INT64_MAX),
       req.has_params() ? CheckParams("params", req.params(), limits_) : absl::OkStatus()}));
  const v1::TriggerType type = req.trigger_type();
  if (type != v1::TRIGGER_TYPE_UNSPECIFIED && type != v1::TRIGGER_TYPE_API &&
      type != v1::TRIGGER_TYPE_MANUAL) {
    return checks::Invalid("trigger_type", "must be MANUAL or API");
  }
  return absl::OkStatus();
}

absl::Status WorkflowAdmin::Validate(const v1::ListWorkflowRunsRequest& req) const {
  return checks::FirstError({CheckRange("workflow_id", req.workflow_id(), 1, INT64_MAX),
                             CheckRange("page_size", req.page_size(), 0, 1000)});
}

absl::StatusOr<v1::WorkflowRun> WorkflowAdmin::Trigger(const v1::TriggerWorkflowRequest& req) {
  RETURN_IF_ERROR(Validate(req));
  v1::TriggerType type = req.trigger_type();
  if (type == v1::TRIGGER_TYPE_UNSPECIFIED) type = v1::TRIGGER_TYPE_API;
  RETURN_IF_ERROR(Read(req.workflow_id(), "workflow_id").status());
  std::optional<std::string> params;
  if (req.has_params()) params = req.params();
  return Named(driver_->Start(req.workflow_id(), type, 0, params));
}

absl::StatusOr<v1::WorkflowRun> WorkflowAdmin::GetRun(int64_t workflow_run_id) {
  return Named(ReadRun(workflow_run_id, "workflow_run_id"));
}

absl::StatusOr<v1::ListWorkflowRunsResponse> WorkflowAdmin::ListRuns(
    const v1::ListWorkflowRunsRequest& req) {
  RETURN_IF_ERROR(Validate(req));
  RETURN_IF_ERROR(Read(req.workflow_id(), "workflow_id").status());
  ASSIGN_OR_RETURN(std::vector<v1::WorkflowRun> runs,
                   stores_.workflows->ListWorkflowRuns(
                       req.workflow_id(), req.page_size() == 0 ? 100 : req.page_size()));
  v1::ListWorkflowRunsResponse resp;
  std::vector<v1::Workflow*> graphs;
  for (v1::WorkflowRun& r : runs) *resp.add_runs() = std::move(r);
  for (v1::WorkflowRun& r : *resp.mutable_runs()) graphs.push_back(r.mutable_workflow());
  RETURN_IF_ERROR(NameJobs(graphs));
  return resp;
}

absl::StatusOr<v1::WorkflowRun> WorkflowAdmin::Cancel(int64_t workflow_run_id) {
  RETURN_IF_ERROR(ReadRun(workflow_run_id, "workflow_run_id").status());
  std::vector<std::string> running;
  ASSIGN_OR_RETURN(v1::WorkflowRun run, Named(driver_->Cancel(workflow_run_id, &running)));
  if (running.empty()) return run;
  store::RunFilter filter;
  filter.workflow_run_id = workflow_run_id;
  filter.statuses = {v1::RUN_STATUS_PENDING, v1::RUN_STATUS_RUNNING};
  filter.limit = 10000;
  ASSIGN_OR_RETURN(std::vector<v1::Run> runs, stores_.runs->ListRuns(filter));
  for (const v1::Run& r : runs) {
    if (r.executor_address().empty()) continue;  // Not sent yet: nothing to kill.
    if (absl::StatusOr<v1::KillRunResponse> k = core_->KillRun(r.id()); !k.ok()) {
      // Cancelled stands; the run ends on its own (its result changes nothing).
      GNOMON_LOG(WARNING) << "scheduler: cancelling workflow run " << workflow_run_id
                          << ": killing run " << r.id() << ": " << k.status();
    }
  }
  return run;
}

absl::Status WorkflowAdmin::Validate(const v1::WorkflowNodeRequest& req) const {
  return checks::FirstError(
      {CheckRange("workflow_run_id", req.workflow_run_id(), 1, INT64_MAX),
       checks::CheckString("node", req.node(), 64, checks::Charset::kName, 1),
       checks::CheckString("output", req.output(), kMaxOutputBytes, checks::Charset::kBytes)});
}

absl::StatusOr<v1::WorkflowRun> WorkflowAdmin::Rerun(const v1::WorkflowNodeRequest& req) {
  RETURN_IF_ERROR(Validate(req));
  RETURN_IF_ERROR(ReadRun(req.workflow_run_id(), "workflow_run_id").status());
  return Named(driver_->RerunFrom(req.workflow_run_id(), req.node()));
}

absl::StatusOr<v1::WorkflowRun> WorkflowAdmin::Skip(const v1::WorkflowNodeRequest& req) {
  RETURN_IF_ERROR(Validate(req));
  RETURN_IF_ERROR(ReadRun(req.workflow_run_id(), "workflow_run_id").status());
  return Named(driver_->Skip(req.workflow_run_id(), req.node()));
}

absl::StatusOr<v1::WorkflowRun> WorkflowAdmin::MarkSucceeded(const v1::WorkflowNodeRequest& req) {
  RETURN_IF_ERROR(Validate(req));
  RETURN_IF_ERROR(ReadRun(req.workflow_run_id(), "workflow_run_id").status());
  return Named(driver_->MarkSucceeded(req.workflow_run_id(), req.node(), req.output()));
}

}  // namespace gnomon::scheduler

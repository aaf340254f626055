#include "cli/workflow_manifest.h"

#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "cli/manifests.h"
#include "cli/workflow_lookup.h"
#include "google/protobuf/util/message_differencer.h"

namespace gnomon::cli {
namespace {

// `w` with the defaults the API documents spelt out, and without its state
// (applied on its own): equal declarations compare equal however written.
v1::Workflow Comparable(v1::Workflow w) {
  w.clear_state();
  if (w.misfire_policy() == v1::MISFIRE_POLICY_UNSPECIFIED) {
    w.set_misfire_policy(v1::MISFIRE_POLICY_DO_NOTHING);  // A workflow's default.
  }
  for (v1::WorkflowEdge& e : *w.mutable_edges()) {
    if (e.when() == v1::WORKFLOW_EDGE_WHEN_UNSPECIFIED) e.set_when(v1::WORKFLOW_EDGE_WHEN_SUCCESS);
  }
  for (v1::WorkflowNode& n : *w.mutable_nodes()) {
    if (!n.has_condition()) continue;
    v1::WorkflowCondition& c = *n.mutable_condition();
    if (c.subject() == v1::WORKFLOW_CONDITION_SUBJECT_UNSPECIFIED) {
      c.set_subject(v1::WORKFLOW_CONDITION_SUBJECT_OUTPUT);
    }
    if (c.op() == v1::WORKFLOW_CONDITION_OP_UNSPECIFIED)
      c.set_op(v1::WORKFLOW_CONDITION_OP_NON_EMPTY);
  }
  return w;
}

std::string StateChange(v1::WorkflowState state) {
  return state == v1::WORKFLOW_STATE_RUNNING ? ", started" : ", stopped";
}

grpc::Status ToGrpc(const absl::Status& s) {
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

// The manifest of a stored workflow of group app `app`: jobs by name.
grpc::Status Manifest(CommandContext& c, v1::Workflow workflow, const std::string& app,
                      v1::Manifest* m) {
  for (v1::WorkflowNode& node : *workflow.mutable_nodes()) {
    // Answers name every node's job; ask when one does not.
    if (node.kind_case() != v1::WorkflowNode::kJobId || !node.job_name().empty()) continue;
    v1::GetJobRequest req;
    req.set_job_id(node.job_id());
    v1::Job job;
    auto rpc = c.NewRpcContext();
    if (grpc::Status s = c.admin().GetJob(rpc.get(), req, &job); !s.ok()) {
      return grpc::Status(s.error_code(), absl::StrCat("workflow ", workflow.name(), " node ",
                                                       node.name(), ": ", s.error_message()));
    }
    node.set_job_name(job.name());
  }
  m->set_kind("Workflow");
  m->set_app(app);
  *m->mutable_workflow() = DeclaredWorkflow(std::move(workflow));
  return grpc::Status::OK;
}

// Prints `workflows` as YAML documents, "---" between them.
int PrintWorkflowManifests(CommandContext& c, const std::vector<v1::Workflow>& workflows) {
  std::map<int64_t, v1::Group> groups;
  if (grpc::Status s = GroupsById(c, &groups); !s.ok()) return c.RpcError(s);
  std::vector<v1::Manifest> docs;
  for (const v1::Workflow& workflow : workflows) {
    auto group = groups.find(workflow.group_id());
    const std::string app =
        group == groups.end() ? absl::StrCat(workflow.group_id()) : group->second.app_name();
    if (grpc::Status s = Manifest(c, workflow, app, &docs.emplace_back()); !s.ok()) {
      return c.RpcError(s);
    }
  }
  return PrintManifests(c, docs);
}

int GetWorkflow(CommandContext& c) {
  absl::StatusOr<WorkflowArg> which = PositionalWorkflow(c.args());
  if (!which.ok()) return c.UsageError(which.status());
  v1::Workflow workflow;
  if (grpc::Status s = FindWorkflow(c, *which, &workflow); !s.ok()) return c.RpcError(s);
  return PrintWorkflowManifests(c, {workflow});
}

int GetWorkflows(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  int64_t group_id = 0;
  if (std::optional<std::string> group = c.args().Get("group")) {
    if (grpc::Status s = ResolveGroup(c, *group, &group_id); !s.ok()) return c.RpcError(s);
  }
  std::vector<v1::Workflow> workflows;
  if (grpc::Status s = ListWorkflowsOf(c, group_id, &workflows); !s.ok()) return c.RpcError(s);
  return PrintWorkflowManifests(c, workflows);
}

}  // namespace

absl::Status CheckWorkflowManifest(const v1::Manifest& m) {
  if (m.app().empty()) return absl::InvalidArgumentError("app (the workflow's group) is required");
  const v1::Workflow& w = m.workflow();
  if (w.name().empty()) return absl::InvalidArgumentError("workflow.name is required");
  for (int i = 0; i < w.nodes_size(); ++i) {
    const v1::WorkflowNode& n = w.nodes(i);
    if (!n.has_condition() && n.job_name().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "workflow.nodes[", i, "] (", n.name(), "): name its job with jobName (a job ",
          "of group ", m.app(), "; ids are not read from documents) or give a ", "condition"));
    }
  }
  return absl::OkStatus();
}

v1::Workflow DeclaredWorkflow(v1::Workflow w) {
  w.clear_id();
  w.clear_group_id();
  w.clear_create_time();
  w.clear_update_time();
  for (v1::WorkflowNode& n : *w.mutable_nodes()) {
    if (n.kind_case() == v1::WorkflowNode::kJobId) n.clear_kind();
  }
  return w;
}

grpc::Status ApplyWorkflow(CommandContext& c, const v1::Manifest& manifest, int64_t group_id,
                           bool dry_run, std::string* outcome) {
  if (absl::Status s = CheckWorkflowManifest(manifest); !s.ok()) return ToGrpc(s);
  v1::Workflow want = DeclaredWorkflow(manifest.workflow());
  std::optional<v1::Workflow> current;
  if (group_id > 0) {
    std::vector<v1::Workflow> all;
    if (grpc::Status s = ListWorkflowsOf(c, group_id, &all); !s.ok()) return s;
    for (v1::Workflow& w : all) {
      if (w.name() == want.name()) current = std::move(w);
    }
  }
  if (!current.has_value()) {
    *outcome = "created";
    if (want.state() == v1::WORKFLOW_STATE_RUNNING)
      absl::StrAppend(outcome, StateChange(want.state()));
    if (want.state() == v1::WORKFLOW_STATE_UNSPECIFIED) want.set_state(v1::WORKFLOW_STATE_STOPPED);
    if (dry_run) return grpc::Status::OK;
    v1::CreateWorkflowRequest req;
    *req.mutable_workflow() = std::move(want);
    req.mutable_workflow()->set_group_id(group_id);
    v1::Workflow created;
    auto rpc = c.NewRpcContext();
    return c.admin().CreateWorkflow(rpc.get(), req, &created);
  }
  v1::Manifest stored;
  if (grpc::Status s = Manifest(c, *current, manifest.app(), &stored); !s.ok()) return s;
  const v1::Workflow& have = stored.workflow();
  if (want.state() == v1::WORKFLOW_STATE_UNSPECIFIED) want.set_state(have.state());
  const bool changed =
      !google::protobuf::util::MessageDifferencer::Equivalent(Comparable(have), Comparable(want));
  const bool state_changed = want.state() != have.state();
  *outcome = changed ? "configured" : "unchanged";
  if (state_changed) absl::StrAppend(outcome, StateChange(want.state()));
  if (dry_run || !(changed || state_changed)) return grpc::Status::OK;
  v1::UpdateWorkflowRequest req;
  *req.mutable_workflow() = std::move(want);
  req.mutable_workflow()->set_id(current->id());
  req.mutable_workflow()->set_group_id(current->group_id());
  v1::Workflow updated;
  auto rpc = c.NewRpcContext();
  return c.admin().UpdateWorkflow(rpc.get(), req, &updated);
}

std::vector<Command> WorkflowGetCommands() {
  return {
      {"get",
       "workflow",
       "WORKFLOW [--group APP]",
       "Print a workflow as an apply document (YAML), its nodes' jobs by name.",
       {WorkflowGroupFlag()},
       "gnomonctl get workflow etl/nightly > nightly.yaml",
       GetWorkflow},
      {"get",
       "workflows",
       "[--group APP]",
       "Print workflows as apply documents (YAML).",
       {{"group", "", true, "APP", "Only the workflows of this group (app name or id)."}},
       "gnomonctl get workflows --group etl > etl-workflows.yaml",
       GetWorkflows},
  };
}

}  // namespace gnomon::cli

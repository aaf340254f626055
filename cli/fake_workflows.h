// The workflow calls of the fake JobAdmin (fake_servers.h; test only):
// workflows and their runs kept in memory and answered as admin.proto and
// workflow.proto describe the server's: ids assigned, job nodes answered
// with both job_id and job_name, runs newest first, node operations moving
// the node's state. Tests seed `job_ids` with the jobs nodes may name, or
// `workflows`/`runs` directly.
//
//   FakeWorkflows w;
//   w.job_ids = {{"extract", 12}};
//   v1::Workflow created;
//   w.CreateWorkflow(request, &created);   // created.nodes(0).job_id() == 12
//
// Thread safety: none; FakeState calls it under its mutex.
#ifndef GNOMON_CLI_FAKE_WORKFLOWS_H_
#define GNOMON_CLI_FAKE_WORKFLOWS_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/workflow.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli::testing {

struct FakeWorkflows {
  // Stored workflows, by id.
  std::vector<v1::Workflow> workflows;
  // Workflow runs, oldest first.
  std::vector<v1::WorkflowRun> runs;
  // The jobs a node may name, by name (one group's, as the tests need).
  std::map<std::string, int64_t> job_ids;
  int64_t next_workflow_id = 1;
  int64_t next_run_id = 100;
  // Creation and update times of what it stores: 2024-05-01T12:00:00Z.
  int64_t now_seconds = 1714564800;

  grpc::Status CreateWorkflow(const v1::CreateWorkflowRequest& req, v1::Workflow* resp) {
    v1::Workflow w = req.workflow();
    if (w.group_id() == 0) return Invalid("workflow.group_id is required");
    for (const v1::Workflow& other : workflows) {
      if (other.group_id() == w.group_id() && other.name() == w.name()) {
        return grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                            absl::StrCat("workflow.name: ", w.name(), " exists"));
      }
    }
    if (grpc::Status s = ResolveJobs(&w); !s.ok()) return s;
    w.set_id(next_workflow_id++);
    w.mutable_create_time()->set_seconds(now_seconds);
    w.mutable_update_time()->set_seconds(now_seconds);
    workflows.push_back(w);
    *resp = w;
    return grpc::Status::OK;
  }

  grpc::Status GetWorkflow(const v1::GetWorkflowRequest& req, v1::Workflow* resp) {
    v1::Workflow* w = Find(req.workflow_id());
    if (w == nullptr) return NotFound(absl::StrCat("workflow ", req.workflow_id()));
    *resp = *w;
    return grpc::Status::OK;
  }

  grpc::Status ListWorkflows(const v1::ListWorkflowsRequest& req, v1::ListWorkflowsResponse* resp) {
    for (const v1::Workflow& w : workflows) {
      if (req.group_id() == 0 || w.group_id() == req.group_id()) *resp->add_workflows() = w;
    }
    return grpc::Status::OK;
  }

  grpc::Status UpdateWorkflow(const v1::UpdateWorkflowRequest& req, v1::Workflow* resp) {
    v1::Workflow* stored = Find(req.workflow().id());
    if (stored == nullptr) return NotFound(absl::StrCat("workflow ", req.workflow().id()));
    v1::Workflow w = req.workflow();
    if (grpc::Status s = ResolveJobs(&w); !s.ok()) return s;
    w.set_group_id(stored->group_id());  // Its group stays.
    *w.mutable_create_time() = stored->create_time();
    w.mutable_update_time()->set_seconds(++now_seconds);
    *stored = w;
    *resp = w;
    return grpc::Status::OK;
  }

  grpc::Status DeleteWorkflow(const v1::DeleteWorkflowRequest& req, v1::DeleteWorkflowResponse*) {
    auto it = std::find_if(workflows.begin(), workflows.end(),
                           [&](const v1::Workflow& w) { return w.id() == req.workflow_id(); });
    if (it == workflows.end()) return NotFound(absl::StrCat("workflow ", req.workflow_id()));
    workflows.erase(it);
    return grpc::Status::OK;
  }

  grpc::Status TriggerWorkflow(const v1::TriggerWorkflowRequest& req, v1::WorkflowRun* resp) {
    v1::Workflow* w = Find(req.workflow_id());
    if (w == nullptr) return NotFound(absl::StrCat("workflow ", req.workflow_id()));
    v1::WorkflowRun run;
    run.set_id(next_run_id++);
    run.set_workflow_id(w->id());
    run.set_status(v1::WORKFLOW_RUN_STATUS_RUNNING);
    run.set_params(req.has_params() ? req.params() : w->params());
    run.set_trigger_type(req.trigger_type() == v1::TRIGGER_TYPE_UNSPECIFIED ? v1::TRIGGER_TYPE_API
                                                                            : req.trigger_type());
    run.mutable_create_time()->set_seconds(now_seconds);
    for (const v1::WorkflowNode& n : w->nodes()) {
      v1::WorkflowNodeRun* node = run.add_nodes();
      node->set_node(n.name());
      node->set_state(v1::WORKFLOW_NODE_STATE_PENDING);
    }
    *run.mutable_workflow() = *w;
    runs.push_back(run);
    *resp = run;
    return grpc::Status::OK;
  }

  grpc::Status GetWorkflowRun(const v1::GetWorkflowRunRequest& req, v1::WorkflowRun* resp) {
    v1::WorkflowRun* run = FindRun(req.workflow_run_id());
    if (run == nullptr) return NotFound(absl::StrCat("workflow run ", req.workflow_run_id()));
    *resp = *run;
    return grpc::Status::OK;
  }

  grpc::Status ListWorkflowRuns(const v1::ListWorkflowRunsRequest& req,
                                v1::ListWorkflowRunsResponse* resp) {
    const int limit = req.page_size() == 0 ? 100 : std::min(req.page_size(), 1000);
    for (auto it = runs.rbegin(); it != runs.rend() && resp->runs_size() < limit; ++it) {
      if (it->workflow_id() == req.workflow_id()) *resp->add_runs() = *it;
    }
    return grpc::Status::OK;
  }

  grpc::Status CancelWorkflowRun(const v1::CancelWorkflowRunRequest& req, v1::WorkflowRun* resp) {
    v1::WorkflowRun* run = FindRun(req.workflow_run_id());
    if (run == nullptr) return NotFound(absl::StrCat("workflow run ", req.workflow_run_id()));
    if (run->status() != v1::WORKFLOW_RUN_STATUS_RUNNING) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          absl::StrCat("workflow run ", run->id(), " has ended"));
    }
    run->set_status(v1::WORKFLOW_RUN_STATUS_CANCELLED);
    run->set_cancelled(true);
    run->mutable_end_time()->set_seconds(now_seconds);
    for (v1::WorkflowNodeRun& n : *run->mutable_nodes()) {
      if (n.state() == v1::WORKFLOW_NODE_STATE_PENDING ||
          n.state() == v1::WORKFLOW_NODE_STATE_RUNNING) {
        n.set_state(v1::WORKFLOW_NODE_STATE_CANCELLED);
      }
    }
    *resp = *run;
    return grpc::Status::OK;
  }

  grpc::Status RerunWorkflowNode(const v1::WorkflowNodeRequest& req, v1::WorkflowRun* resp) {
    return OnNode(req, resp, [](v1::WorkflowRun& run, v1::WorkflowNodeRun& n) {
      n.set_state(v1::WORKFLOW_NODE_STATE_RUNNING);
      n.set_attempt(n.attempt() + 1);
      n.clear_handle_code();
      n.clear_output();
      run.set_status(v1::WORKFLOW_RUN_STATUS_RUNNING);
      run.clear_end_time();
    });
  }

  grpc::Status SkipWorkflowNode(const v1::WorkflowNodeRequest& req, v1::WorkflowRun* resp) {
    return OnNode(req, resp, [](v1::WorkflowRun&, v1::WorkflowNodeRun& n) {
      n.set_state(v1::WORKFLOW_NODE_STATE_SKIPPED);
    });
  }

  grpc::Status MarkWorkflowNodeSucceeded(const v1::WorkflowNodeRequest& req,
                                         v1::WorkflowRun* resp) {
    return OnNode(req, resp, [&](v1::WorkflowRun&, v1::WorkflowNodeRun& n) {
      n.set_state(v1::WORKFLOW_NODE_STATE_SUCCEEDED);
      n.set_handle_code(v1::HANDLE_CODE_SUCCESS);
      n.set_output(req.output());
    });
  }

 private:
  static grpc::Status NotFound(const std::string& what) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, what + " not found");
  }
  static grpc::Status Invalid(const std::string& message) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, message);
  }

  v1::Workflow* Find(int64_t id) {
    for (v1::Workflow& w : workflows) {
      if (w.id() == id) return &w;
    }
    return nullptr;
  }
  v1::WorkflowRun* FindRun(int64_t id) {
    for (v1::WorkflowRun& r : runs) {
      if (r.id() == id) return &r;
    }
    return nullptr;
  }

  // Job nodes by job_name get their job_id, by job_id their job_name.
  grpc::Status ResolveJobs(v1::Workflow* w) {
    for (int i = 0; i < w->nodes_size(); ++i) {
      v1::WorkflowNode& n = *w->mutable_nodes(i);
      if (n.has_condition()) continue;
      if (!n.job_name().empty()) {
        auto it = job_ids.find(n.job_name());
        if (it == job_ids.end()) {
          return Invalid(
              absl::StrCat("workflow.nodes[", i, "].job_name: no job named ", n.job_name()));
        }
        n.set_job_id(it->second);
        continue;
      }
      for (const auto& [name, id] : job_ids) {
        if (id == n.job_id()) n.set_job_name(name);
      }
      if (n.job_id() == 0 || n.job_name().empty()) {
        return Invalid(absl::StrCat("workflow.nodes[", i, "]: no job"));
      }
    }
    return grpc::Status::OK;
  }

  template <typename Change>
  grpc::Status OnNode(const v1::WorkflowNodeRequest& req, v1::WorkflowRun* resp, Change change) {
    v1::WorkflowRun* run = FindRun(req.workflow_run_id());
    if (run == nullptr) return NotFound(absl::StrCat("workflow run ", req.workflow_run_id()));
    for (v1::WorkflowNodeRun& n : *run->mutable_nodes()) {
      if (n.node() != req.node()) continue;
      change(*run, n);
      run->set_version(run->version() + 1);
      *resp = *run;
      return grpc::Status::OK;
    }
    return NotFound(absl::StrCat("node ", req.node(), " of workflow run ", run->id()));
  }
};

}  // namespace gnomon::cli::testing

#endif  // GNOMON_CLI_FAKE_WORKFLOWS_H_

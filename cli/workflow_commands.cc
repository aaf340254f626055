// gnomonctl workflow list|get|delete|run|runs|get-run|cancel|rerun|skip|succeed.
// Workflows are created and changed with `apply -f` (kind: Workflow).
#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/format.h"
#include "cli/names.h"
#include "cli/printers.h"
#include "cli/workflow_lookup.h"

namespace gnomon::cli {
namespace {

// ListWorkflowRuns answers at most this many.
constexpr int kMaxRunsPage = 1000;

int PrintRun(CommandContext& c, const v1::WorkflowRun& run) {
  if (c.structured()) return c.PrintMessage(run);
  // The run carries the workflow it started with: its schedule's zone.
  PrintWorkflowRunDetails(run, ScheduleZone(run.workflow().schedule()), c.wide(), c.out());
  return kExitOk;
}

int List(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  int64_t group_id = 0;
  if (std::optional<std::string> group = c.args().Get("group")) {
    if (grpc::Status s = ResolveGroup(c, *group, &group_id); !s.ok()) return c.RpcError(s);
  }
  v1::ListWorkflowsResponse resp;
  std::vector<v1::Workflow> workflows;
  if (grpc::Status s = ListWorkflowsOf(c, group_id, &workflows); !s.ok()) return c.RpcError(s);
  for (v1::Workflow& w : workflows) *resp.add_workflows() = std::move(w);
  if (c.structured()) return c.PrintMessage(resp);
  PrintWorkflowTable(resp.workflows(), c.out());
  return kExitOk;
}

int Get(CommandContext& c) {
  absl::StatusOr<WorkflowArg> which = PositionalWorkflow(c.args());
  if (!which.ok()) return c.UsageError(which.status());
  v1::Workflow workflow;
  if (grpc::Status s = FindWorkflow(c, *which, &workflow); !s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(workflow);
  PrintWorkflowDetails(workflow, c.out());
  return kExitOk;
}

int Delete(CommandContext& c) {
  absl::StatusOr<WorkflowArg> which = PositionalWorkflow(c.args());
  if (!which.ok()) return c.UsageError(which.status());
  v1::DeleteWorkflowRequest req;
  int64_t id = 0;
  if (grpc::Status s = WorkflowId(c, *which, &id); !s.ok()) return c.RpcError(s);
  req.set_workflow_id(id);
  v1::DeleteWorkflowResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().DeleteWorkflow(rpc.get(), req, &resp); !s.ok()) {
    return c.RpcError(s);
  }
  if (c.structured()) return c.PrintMessage(resp);
  c.out() << "deleted workflow " << which->ToString() << " and its runs\n";
  return kExitOk;
}

int Trigger(CommandContext& c) {
  absl::StatusOr<WorkflowArg> which = PositionalWorkflow(c.args());
  if (!which.ok()) return c.UsageError(which.status());
  v1::TriggerWorkflowRequest req;
  // A person at a terminal: manual, as `job trigger`.
  req.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
  if (std::optional<std::string> params = c.args().Get("params")) req.set_params(*params);
  int64_t id = 0;
  if (grpc::Status s = WorkflowId(c, *which, &id); !s.ok()) return c.RpcError(s);
  req.set_workflow_id(id);
  v1::WorkflowRun run;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().TriggerWorkflow(rpc.get(), req, &run); !s.ok()) {
    return c.RpcError(s);
  }
  if (c.structured()) return c.PrintMessage(run);
  c.out() << "triggered workflow " << which->ToString() << ": run " << run.id() << " "
          << WorkflowRunStatusName(run.status()) << "\n";
  return kExitOk;
}

absl::StatusOr<int> RunsLimit(const ParsedArgs& args) {
  std::optional<std::string> text = args.Get("limit");
  if (!text) return 50;
  absl::StatusOr<int64_t> n = ParseId("--limit", *text);
  if (!n.ok()) return n.status();
  if (*n > kMaxRunsPage) {
    return absl::InvalidArgumentError(absl::StrCat("--limit is at most ", kMaxRunsPage));
  }
  return static_cast<int>(*n);
}

int Runs(CommandContext& c) {
  absl::StatusOr<WorkflowArg> which = PositionalWorkflow(c.args());
  if (!which.ok()) return c.UsageError(which.status());
  absl::StatusOr<int> limit = RunsLimit(c.args());
  if (!limit.ok()) return c.UsageError(limit.status());
  v1::Workflow workflow;
  if (grpc::Status s = FindWorkflow(c, *which, &workflow); !s.ok()) return c.RpcError(s);
  v1::ListWorkflowRunsRequest req;
  req.set_workflow_id(workflow.id());
  req.set_page_size(*limit);
  v1::ListWorkflowRunsResponse resp;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().ListWorkflowRuns(rpc.get(), req, &resp); !s.ok()) {
    return c.RpcError(s);
  }
  // The server caps pages itself; show no more than asked for either way.
  while (resp.runs_size() > *limit) resp.mutable_runs()->RemoveLast();
  if (c.structured()) return c.PrintMessage(resp);
  PrintWorkflowRunTable(resp.runs(), ScheduleZone(workflow.schedule()), c.out());
  return kExitOk;
}

int GetRun(CommandContext& c) {
  absl::StatusOr<int64_t> id = PositionalId(c.args(), "RUN_ID");
  if (!id.ok()) return c.UsageError(id.status());
  v1::GetWorkflowRunRequest req;
  req.set_workflow_run_id(*id);
  v1::WorkflowRun run;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().GetWorkflowRun(rpc.get(), req, &run); !s.ok()) {
    return c.RpcError(s);
  }
  return PrintRun(c, run);
}

int Cancel(CommandContext& c) {
  absl::StatusOr<int64_t> id = PositionalId(c.args(), "RUN_ID");
  if (!id.ok()) return c.UsageError(id.status());
  v1::CancelWorkflowRunRequest req;
  req.set_workflow_run_id(*id);
  v1::WorkflowRun run;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().CancelWorkflowRun(rpc.get(), req, &run); !s.ok()) {
    return c.RpcError(s);
  }
  return PrintRun(c, run);
}

// RUN_ID NODE (and --node-output for succeed) as a WorkflowNodeRequest.
absl::StatusOr<v1::WorkflowNodeRequest> NodeRequest(const ParsedArgs& args) {
  if (absl::Status s = ExpectPositionals(args, {"RUN_ID", "NODE"}); !s.ok()) return s;
  absl::StatusOr<int64_t> id = ParseId("RUN_ID", args.positionals()[0]);
  if (!id.ok()) return id.status();
  if (args.positionals()[1].empty()) return absl::InvalidArgumentError("NODE must not be empty");
  v1::WorkflowNodeRequest req;
  req.set_workflow_run_id(*id);
  req.set_node(args.positionals()[1]);
  if (std::optional<std::string> output = args.Get("node-output")) req.set_output(*output);
  return req;
}

// rerun, skip and succeed: a node request answered with the run.
template <typename Method>
int NodeAction(CommandContext& c, Method method) {
  absl::StatusOr<v1::WorkflowNodeRequest> req = NodeRequest(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  v1::WorkflowRun run;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = (c.admin().*method)(rpc.get(), *req, &run); !s.ok()) return c.RpcError(s);
  return PrintRun(c, run);
}

int Rerun(CommandContext& c) {
  return NodeAction(c, &v1::JobAdmin::StubInterface::RerunWorkflowNode);
}

int Skip(CommandContext& c) {
  return NodeAction(c, &v1::JobAdmin::StubInterface::SkipWorkflowNode);
}

int Succeed(CommandContext& c) {
  return NodeAction(c, &v1::JobAdmin::StubInterface::MarkWorkflowNodeSucceeded);
}

}  // namespace

std::vector<Command> WorkflowCommands() {
  return {
      {"workflow",
       "list",
       "[--group APP]",
       "List workflows (create and change them with apply -f).",
       {{"group", "", true, "APP", "Only the workflows of this group (app name or id)."}},
       "gnomonctl workflow list --group etl",
       List},
      {"workflow",
       "get",
       "WORKFLOW [--group APP]",
       "Show a workflow and its graph (WORKFLOW: id, NAME or APP/NAME).",
       {WorkflowGroupFlag()},
       "gnomonctl workflow get etl/nightly\ngnomonctl workflow get nightly --group etl -o yaml",
       Get},
      {"workflow",
       "delete",
       "WORKFLOW [--group APP]",
       "Delete a workflow and its runs (refused while one is running).",
       {WorkflowGroupFlag()},
       "gnomonctl workflow delete etl/nightly",
       Delete},
      {"workflow",
       "run",
       "WORKFLOW [--params P] [--group APP]",
       "Start a run of a workflow now (trigger type manual); prints the run's id.",
       {{"params", "", true, "P", "Parameters for this run instead of the workflow's."},
        WorkflowGroupFlag()},
       "gnomonctl workflow run etl/nightly --params 'date=2024-05-01'",
       Trigger},
      {"workflow",
       "runs",
       "WORKFLOW [--limit N] [--group APP]",
       "List a workflow's runs, newest first.",
       {{"limit", "", true, "N", "Show at most N runs (default 50, at most 1000)."},
        WorkflowGroupFlag()},
       "gnomonctl workflow runs etl/nightly --limit 10",
       Runs},
      {"workflow",
       "get-run",
       "RUN_ID",
       "Show a workflow run and each node's state, attempt, handle code and output.",
       {},
       "gnomonctl workflow get-run 15\ngnomonctl run list --workflow-run 15   # its nodes' runs",
       GetRun},
      {"workflow",
       "cancel",
       "RUN_ID",
       "Cancel a workflow run: nothing more starts and its nodes' running runs are killed.",
       {},
       "gnomonctl workflow cancel 15",
       Cancel},
      {"workflow",
       "rerun",
       "RUN_ID NODE",
       "Run a failed or cancelled node of a workflow run again, and what follows it.",
       {},
       "gnomonctl workflow rerun 15 merge",
       Rerun},
      {"workflow",
       "skip",
       "RUN_ID NODE",
       "Skip a node of a workflow run: its children see it as succeeded.",
       {},
       "gnomonctl workflow skip 15 extract-eu",
       Skip},
      {"workflow",
       "succeed",
       "RUN_ID NODE [--node-output V]",
       "Mark a node of a workflow run succeeded, with the output its children see.",
       // Not --output: that is -o, the output format, in every command.
       {{"node-output", "", true, "V", "The node's output (at most 4 KiB; default empty)."}},
       "gnomonctl workflow succeed 15 extract-eu --node-output 'rows=0'",
       Succeed},
  };
}

}  // namespace gnomon::cli

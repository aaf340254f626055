// gnomonctl workflow ..., apply of Workflow documents and get workflow(s),
// against the fake JobAdmin's in-memory workflows (fake_workflows.h).
#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/cli_test_fixture.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace gnomon::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;
using Result = testing::CliResult;

constexpr char kEtlWorkflow[] = R"(kind: Workflow
app: etl
workflow:
  name: nightly
  schedule: {cron: {expression: "0 0 2 * * ?"}}
  nodes:
    - {name: extract-eu, jobName: extract-eu}
    - {name: merge, jobName: merge}
  edges:
    - {from: extract-eu, to: merge}
)";

class WorkflowCliTest : public testing::CliTest {
 protected:
  WorkflowCliTest() {
    servers_.state.Set([](testing::AdminState& s) {
      for (auto [id, app] : {std::pair{3, "billing"}, std::pair{4, "etl"}}) {
        v1::Group* g = s.groups.add_groups();
        g->set_id(id);
        g->set_app_name(app);
        g->mutable_auto_registration();
      }
      s.workflows.job_ids = {{"extract-eu", 12}, {"merge", 13}, {"report", 14}};
    });
  }

  // Stores a workflow of `group_id` with job nodes `jobs`, each after the
  // previous; returns its id.
  int64_t Seed(int64_t group_id, const std::string& name, std::vector<std::string> jobs) {
    int64_t id = 0;
    servers_.state.Set([&](testing::AdminState& s) {
      v1::CreateWorkflowRequest req;
      v1::Workflow* w = req.mutable_workflow();
      w->set_group_id(group_id);
      w->set_name(name);
      for (size_t i = 0; i < jobs.size(); ++i) {
        v1::WorkflowNode* n = w->add_nodes();
        n->set_name(jobs[i]);
        n->set_job_name(jobs[i]);
        if (i > 0) {
          v1::WorkflowEdge* e = w->add_edges();
          e->set_from(jobs[i - 1]);
          e->set_to(jobs[i]);
        }
      }
      v1::Workflow created;
      EXPECT_TRUE(s.workflows.CreateWorkflow(req, &created).ok());
      id = created.id();
    });
    return id;
  }

  void ClearCalls() {
    servers_.state.Set([](testing::AdminState& s) { s.calls.clear(); });
  }
  std::vector<std::string> Methods() { return servers_.state.Methods(); }
  testing::FakeWorkflows Stored() { return servers_.state.Snapshot().workflows; }
};

TEST_F(WorkflowCliTest, UsageErrorsExitTwoWithoutCallingTheServer) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"workflow"},
           {"workflow", "get"},
           {"workflow", "get", "etl/"},
           {"workflow", "get", "/nightly"},
           {"workflow", "get", "a", "b"},
           {"workflow", "get", "3", "--group", "etl"},
           {"workflow", "get", "etl/nightly", "--group", "etl"},
           {"workflow", "run", "nightly", "--shard", "0"},
           {"workflow", "runs", "nightly", "--limit", "0"},
           {"workflow", "runs", "nightly", "--limit", "1001"},
           {"workflow", "get-run"},
           {"workflow", "get-run", "run-15"},
           {"workflow", "cancel", "0"},
           {"workflow", "rerun", "15"},
           {"workflow", "rerun", "x", "merge"},
           {"workflow", "skip", "15", ""},
           {"workflow", "succeed", "15", "merge", "extra"},
           {"workflow", "list", "etl"},
           {"get", "workflow"},
           {"get", "workflows", "etl"},
       }) {
    Result r = Run(args);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args) << r.err;
    EXPECT_THAT(r.err, HasSubstr("--help")) << r.err;
    EXPECT_THAT(r.out, IsEmpty());
  }
  EXPECT_THAT(Methods(), IsEmpty());
}

TEST_F(WorkflowCliTest, HelpListsTheVerbs) {
  Result r = Run({"workflow", "--help"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* verb :
       {"list", "get", "delete", "run", "runs", "get-run", "cancel", "rerun", "skip", "succeed"}) {
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("workflow ", verb, " "))) << verb;
  }
  r = Run({"workflow", "succeed", "--help"});
  EXPECT_THAT(r.out, HasSubstr("--node-output V"));
}

TEST_F(WorkflowCliTest, ListFiltersByGroupGivenByAppNameOrId) {
  Seed(4, "nightly", {"extract-eu", "merge"});
  Seed(3, "invoices", {"report"});
  Result r = Run({"workflow", "list", "--group", "etl"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("ID  NAME     GROUP  STATE  SCHEDULE  NODES  DESCRIPTION\n"));
  EXPECT_THAT(r.out, HasSubstr("1   nightly  4      -      manual    2"));
  EXPECT_THAT(r.out, Not(HasSubstr("invoices")));
  EXPECT_THAT(Methods(), ElementsAre("ListGroups", "ListWorkflows"));
  EXPECT_EQ(servers_.state.Last<v1::ListWorkflowsRequest>("ListWorkflows").group_id(), 4);

  ClearCalls();
  r = Run({"workflow", "list", "--group", "3", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("ListWorkflows"));  // An id needs no lookup.
  v1::ListWorkflowsResponse listed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &listed).ok()) << r.out;
  ASSERT_EQ(listed.workflows_size(), 1);
  EXPECT_EQ(listed.workflows(0).name(), "invoices");

  r = Run({"workflow", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("nightly"));
  EXPECT_THAT(r.out, HasSubstr("invoices"));

  r = Run({"workflow", "list", "--group", "payroll"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "gnomonctl: NOT_FOUND: no group has app name \"payroll\"\n");
}

TEST_F(WorkflowCliTest, NamesResolveClientSideAndAmbiguityListsTheGroups) {
  const int64_t etl = Seed(4, "nightly", {"extract-eu", "merge"});
  Seed(3, "nightly", {"report"});
  Result r = Run({"workflow", "get", "nightly"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "gnomonctl: INVALID_ARGUMENT: workflows named \"nightly\" are in groups billing, etl; "
            "give APP/NAME or --group APP\n");
  EXPECT_THAT(r.out, IsEmpty());

  for (const auto& args : std::vector<std::vector<std::string>>{
           {"workflow", "get", "etl/nightly", "-o", "json"},
           {"workflow", "get", "nightly", "--group", "etl", "-o", "json"},
           {"workflow", "get", "nightly", "--group", "4", "-o", "json"},
           {"workflow", "get", absl::StrCat(etl), "-o", "json"}}) {
    r = Run(args);
    ASSERT_EQ(r.code, 0) << ::testing::PrintToString(args) << r.err;
    v1::Workflow got;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &got).ok()) << r.out;
    EXPECT_EQ(got.id(), etl) << ::testing::PrintToString(args);
    EXPECT_EQ(got.group_id(), 4);
  }
  ClearCalls();
  ASSERT_EQ(Run({"workflow", "get", absl::StrCat(etl)}).code, 0);
  EXPECT_THAT(Methods(), ElementsAre("GetWorkflow"));
  EXPECT_EQ(servers_.state.Last<v1::GetWorkflowRequest>("GetWorkflow").workflow_id(), etl);

  r = Run({"workflow", "get", "weekly"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "gnomonctl: NOT_FOUND: no workflow is named \"weekly\"\n");
  r = Run({"workflow", "runs", "etl/weekly"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "gnomonctl: NOT_FOUND: group etl has no workflow named \"weekly\"\n");
  r = Run({"workflow", "get", "99"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "gnomonctl: NOT_FOUND: workflow 99 not found\n");
}

TEST_F(WorkflowCliTest, GetShowsTheGraphWithEachNodesParents) {
  servers_.state.Set([](testing::AdminState& s) {
    v1::CreateWorkflowRequest req;
    v1::Workflow* w = req.mutable_workflow();
    w->set_group_id(4);
    w->set_name("nightly");
    w->set_description("EU load");
    w->set_state(v1::WORKFLOW_STATE_RUNNING);
    w->mutable_schedule()->mutable_cron()->set_expression("0 0 2 * * ?");
    w->mutable_schedule()->mutable_cron()->set_time_zone("Asia/Shanghai");
    v1::WorkflowNode* n = w->add_nodes();
    n->set_name("extract-eu");
    n->set_job_name("extract-eu");
    n = w->add_nodes();
    n->set_name("any-rows");
    n->mutable_condition()->set_op(v1::WORKFLOW_CONDITION_OP_GT);
    n->mutable_condition()->set_value("0");
    n = w->add_nodes();
    n->set_name("merge");
    n->set_job_name("merge");
    for (auto [from, to, when] :
         {std::tuple{"extract-eu", "any-rows", v1::WORKFLOW_EDGE_WHEN_UNSPECIFIED},
          std::tuple{"any-rows", "merge", v1::WORKFLOW_EDGE_WHEN_TRUE}}) {
      v1::WorkflowEdge* e = w->add_edges();
      e->set_from(from);
      e->set_to(to);
      e->set_when(when);
    }
    v1::Workflow created;
    ASSERT_TRUE(s.workflows.CreateWorkflow(req, &created).ok());
  });
  Result r = Run({"workflow", "get", "etl/nightly"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("description:  EU load\n"));
  EXPECT_THAT(r.out, HasSubstr("state:        running\n"));
  EXPECT_THAT(r.out, HasSubstr("schedule:     cron '0 0 2 * * ?' Asia/Shanghai\n"));
  EXPECT_THAT(r.out, HasSubstr("misfire:      do-nothing\n"));  // A workflow's default.
  // Its times are in its schedule's zone.
  EXPECT_THAT(r.out, HasSubstr("created:      2024-05-01 20:00:00 +08:00\n"));
  EXPECT_THAT(r.out, HasSubstr("NODE        RUNS                 AFTER\n"
                               "extract-eu  job extract-eu (12)  -\n"
                               "any-rows    if output gt '0'     extract-eu\n"
                               "merge       job merge (13)       any-rows (true)\n"));
  r = Run({"workflow", "get", "etl/nightly", "-o", "yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("job_name: merge\n"));
}

TEST_F(WorkflowCliTest, RunTriggersAManualRunAndPrintsItsIdAndState) {
  const int64_t id = Seed(4, "nightly", {"extract-eu", "merge"});
  Result r = Run({"workflow", "run", "etl/nightly", "--params", "date=2024-05-01"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "triggered workflow etl/nightly: run 100 running\n");
  auto req = servers_.state.Last<v1::TriggerWorkflowRequest>("TriggerWorkflow");
  EXPECT_EQ(req.workflow_id(), id);
  EXPECT_EQ(req.trigger_type(), v1::TRIGGER_TYPE_MANUAL);
  ASSERT_TRUE(req.has_params());
  EXPECT_EQ(req.params(), "date=2024-05-01");

  // By id, without --params: the workflow's own params (unset in the request).
  ClearCalls();
  r = Run({"workflow", "run", absl::StrCat(id), "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("TriggerWorkflow"));
  EXPECT_FALSE(servers_.state.Last<v1::TriggerWorkflowRequest>("TriggerWorkflow").has_params());
  v1::WorkflowRun run;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &run).ok()) << r.out;
  EXPECT_EQ(run.id(), 101);
  EXPECT_EQ(run.status(), v1::WORKFLOW_RUN_STATUS_RUNNING);
}

TEST_F(WorkflowCliTest, RunsListsNewestFirstWithNodesDoneInTheWorkflowsZone) {
  servers_.state.Set([](testing::AdminState& s) { s.workflows.job_ids = {{"a", 1}, {"b", 2}}; });
  const int64_t id = Seed(4, "nightly", {"a", "b"});
  servers_.state.Set([&](testing::AdminState& s) {
    s.workflows.workflows[0].mutable_schedule()->mutable_cron()->set_expression("0 0 2 * * ?");
    s.workflows.workflows[0].mutable_schedule()->mutable_cron()->set_time_zone("Asia/Shanghai");
  });
  ASSERT_EQ(Run({"workflow", "run", "etl/nightly"}).code, 0);
  ASSERT_EQ(Run({"workflow", "run", "etl/nightly"}).code, 0);
  servers_.state.Set([](testing::AdminState& s) {
    v1::WorkflowRun& first = s.workflows.runs[0];
    first.set_status(v1::WORKFLOW_RUN_STATUS_FAILED);
    first.mutable_nodes(0)->set_state(v1::WORKFLOW_NODE_STATE_FAILED);
    first.mutable_nodes(1)->set_state(v1::WORKFLOW_NODE_STATE_BYPASSED);
    first.mutable_end_time()->set_seconds(1714564800 + 90);
    s.workflows.runs[1].mutable_nodes(0)->set_state(v1::WORKFLOW_NODE_STATE_SUCCEEDED);
  });
  Result r = Run({"workflow", "runs", "etl/nightly"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "ID   STATUS   TRIGGER  STARTED                        ENDED                          "
            "NODES DONE\n"
            "101  running  manual   2024-05-01T20:00:00.000+08:00  -                              "
            "1/2\n"
            "100  failed   manual   2024-05-01T20:00:00.000+08:00  2024-05-01T20:01:30.000+08:00  "
            "2/2\n");
  auto req = servers_.state.Last<v1::ListWorkflowRunsRequest>("ListWorkflowRuns");
  EXPECT_EQ(req.workflow_id(), id);
  EXPECT_EQ(req.page_size(), 50);

  r = Run({"workflow", "runs", "etl/nightly", "--limit", "1", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::ListWorkflowRunsResponse listed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &listed).ok()) << r.out;
  ASSERT_EQ(listed.runs_size(), 1);
  EXPECT_EQ(listed.runs(0).id(), 101);
  EXPECT_EQ(servers_.state.Last<v1::ListWorkflowRunsRequest>("ListWorkflowRuns").page_size(), 1);
}

TEST_F(WorkflowCliTest, GetRunShowsEachNodeWithItsOutputCutUnlessWide) {
  servers_.state.Set([](testing::AdminState& s) {
    v1::WorkflowRun run;
    run.set_id(15);
    run.set_workflow_id(1);
    run.mutable_workflow()->set_name("nightly");
    run.set_status(v1::WORKFLOW_RUN_STATUS_RUNNING);
    run.set_trigger_type(v1::TRIGGER_TYPE_CRON);
    run.mutable_create_time()->set_seconds(1714564800);
    v1::WorkflowNodeRun* n = run.add_nodes();
    n->set_node("extract-eu");
    n->set_state(v1::WORKFLOW_NODE_STATE_SUCCEEDED);
    n->set_attempt(2);
    n->set_handle_code(200);
    n->set_output(std::string(30, 'x') + "\n" + std::string(30, 'y'));
    n->set_shard_total(2);
    n->add_shards()->set_shard(0);
    n->add_shards()->set_shard(1);
    n = run.add_nodes();
    n->set_node("merge");
    n->set_state(v1::WORKFLOW_NODE_STATE_RUNNING);
    n->set_attempt(1);
    s.workflows.runs.push_back(run);
  });
  Result r = Run({"workflow", "get-run", "15"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("workflow:    1 (nightly)\n"));
  EXPECT_THAT(r.out, HasSubstr("status:      running\n"));
  EXPECT_THAT(r.out, HasSubstr("trigger:     cron\n"));
  EXPECT_THAT(r.out, HasSubstr("started:     2024-05-01T12:00:00.000+00:00\n"));
  EXPECT_THAT(r.out, HasSubstr("nodes done:  1/2\n"));
  EXPECT_THAT(r.out, HasSubstr("NODE        STATE      ATTEMPT  CODE         OUTPUT\n"
                               "extract-eu  succeeded  2        200 success  " +
                               std::string(30, 'x') + "\\n" + std::string(5, 'y') + "...\n" +
                               "merge       running    1        -            -\n"));
  EXPECT_EQ(servers_.state.Last<v1::GetWorkflowRunRequest>("GetWorkflowRun").workflow_run_id(), 15);
  r = Run({"workflow", "get-run", "15", "-o", "wide"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(std::string(30, 'x') + "\\n" + std::string(30, 'y') + "  2/2\n"));
  r = Run({"workflow", "get-run", "16"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "gnomonctl: NOT_FOUND: workflow run 16 not found\n");
}

TEST_F(WorkflowCliTest, NodeOperationsSendTheRunAndNodeAndPrintTheRun) {
  Seed(4, "nightly", {"extract-eu", "merge"});
  ASSERT_EQ(Run({"workflow", "run", "etl/nightly"}).code, 0);

  Result r = Run({"workflow", "skip", "100", "extract-eu"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto skip = servers_.state.Last<v1::WorkflowNodeRequest>("SkipWorkflowNode");
  EXPECT_EQ(skip.workflow_run_id(), 100);
  EXPECT_EQ(skip.node(), "extract-eu");
  EXPECT_THAT(r.out, HasSubstr("extract-eu  skipped"));

  r = Run({"workflow", "succeed", "100", "merge", "--node-output", "rows=3", "-o", "yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto succeed = servers_.state.Last<v1::WorkflowNodeRequest>("MarkWorkflowNodeSucceeded");
  EXPECT_EQ(succeed.node(), "merge");
  EXPECT_EQ(succeed.output(), "rows=3");
  EXPECT_THAT(r.out, HasSubstr("output: rows=3\n"));

  r = Run({"workflow", "rerun", "100", "extract-eu"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(servers_.state.Last<v1::WorkflowNodeRequest>("RerunWorkflowNode").node(), "extract-eu");
  EXPECT_THAT(r.out, HasSubstr("extract-eu  running    1"));

  r = Run({"workflow", "cancel", "100"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(
      servers_.state.Last<v1::CancelWorkflowRunRequest>("CancelWorkflowRun").workflow_run_id(),
      100);
  EXPECT_THAT(r.out, HasSubstr("status:      cancelled\n"));
  EXPECT_THAT(r.out, HasSubstr("extract-eu  cancelled"));
  EXPECT_THAT(r.out, HasSubstr("merge       succeeded"));

  r = Run({"workflow", "skip", "100", "load"});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "gnomonctl: NOT_FOUND: node load of workflow run 100 not found\n");
}

TEST_F(WorkflowCliTest, DeleteByName) {
  const int64_t id = Seed(4, "nightly", {"extract-eu"});
  Result r = Run({"workflow", "delete", "nightly", "--group", "etl"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "deleted workflow etl/nightly and its runs\n");
  EXPECT_EQ(servers_.state.Last<v1::DeleteWorkflowRequest>("DeleteWorkflow").workflow_id(), id);
  EXPECT_THAT(Stored().workflows, IsEmpty());
}

TEST_F(WorkflowCliTest, RunListFiltersByWorkflowRun) {
  ASSERT_EQ(Run({"run", "list", "--workflow-run", "15"}).code, 0);
  EXPECT_EQ(servers_.state.Last<v1::ListRunsRequest>("ListRuns").workflow_run_id(), 15);
  EXPECT_EQ(Run({"run", "list", "--workflow-run", "x"}).code, 2);
}

// ---- apply and get ----------------------------------------------------------

TEST_F(WorkflowCliTest, ApplyCreatesAfterGroupsAndJobsThenUpdatesInPlace) {
  // The workflow comes first in the file; it is applied last.
  files_["etl.yaml"] = absl::StrCat(kEtlWorkflow, R"(---
kind: Job
app: etl
job: {name: merge, bean: {handler: merge}}
---
kind: Group
group: {appName: etl}
)");
  Result r = Run({"apply", "-f", "etl.yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("group/etl unchanged\n"));
  EXPECT_THAT(r.out, ::testing::EndsWith("workflow/etl/nightly created\n"));
  const std::vector<std::string> methods = Methods();
  auto first_workflow_call = std::find(methods.begin(), methods.end(), "ListWorkflows");
  ASSERT_NE(first_workflow_call, methods.end());
  EXPECT_THAT(std::vector<std::string>(first_workflow_call, methods.end()),
              ElementsAre("ListWorkflows", "CreateWorkflow"));
  EXPECT_NE(std::find(methods.begin(), first_workflow_call, "GetJob"), first_workflow_call);

  auto created = servers_.state.Last<v1::CreateWorkflowRequest>("CreateWorkflow").workflow();
  EXPECT_EQ(created.group_id(), 4);
  EXPECT_EQ(created.name(), "nightly");
  EXPECT_EQ(created.state(), v1::WORKFLOW_STATE_STOPPED);  // Unspecified creates it stopped.
  EXPECT_EQ(created.schedule().cron().expression(), "0 0 2 * * ?");
  ASSERT_EQ(created.nodes_size(), 2);
  EXPECT_EQ(created.nodes(0).job_name(), "extract-eu");
  EXPECT_EQ(created.nodes(0).kind_case(), v1::WorkflowNode::KIND_NOT_SET);  // Names, not ids.
  ASSERT_EQ(created.edges_size(), 1);
  EXPECT_EQ(created.edges(0).from(), "extract-eu");
  EXPECT_EQ(created.edges(0).to(), "merge");

  // Again: nothing to do (the stored copy has ids, job ids and times).
  ClearCalls();
  r = Run({"apply", "-f", "etl.yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("workflow/etl/nightly unchanged\n"));
  EXPECT_THAT(Methods(), Not(::testing::Contains("UpdateWorkflow")));
  EXPECT_THAT(Methods(), Not(::testing::Contains("CreateWorkflow")));

  // Changed and started: one update of the same workflow.
  files_["etl.yaml"] = std::string(kEtlWorkflow) +
                       "    - {from: merge, to: report}\n"
                       "  state: WORKFLOW_STATE_RUNNING\n";
  // The node the new edge names.
  size_t nodes_end = files_["etl.yaml"].find("  edges:");
  files_["etl.yaml"].insert(nodes_end, "    - {name: report, jobName: report}\n");
  r = Run({"apply", "-f", "etl.yaml", "--dry-run"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "workflow/etl/nightly configured, started (dry run)\n");
  EXPECT_THAT(Methods(), Not(::testing::Contains("UpdateWorkflow")));
  r = Run({"apply", "-f", "etl.yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "workflow/etl/nightly configured, started\n");
  auto updated = servers_.state.Last<v1::UpdateWorkflowRequest>("UpdateWorkflow").workflow();
  EXPECT_EQ(updated.id(), 1);
  EXPECT_EQ(updated.state(), v1::WORKFLOW_STATE_RUNNING);
  EXPECT_EQ(updated.nodes_size(), 3);
  ASSERT_EQ(Stored().workflows.size(), 1u);
  EXPECT_EQ(Stored().workflows[0].nodes(2).job_id(), 14);

  // A document without a state leaves the running workflow running.
  files_["etl.yaml"] = kEtlWorkflow;
  r = Run({"apply", "-f", "etl.yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "workflow/etl/nightly configured\n");
  EXPECT_EQ(Stored().workflows[0].state(), v1::WORKFLOW_STATE_RUNNING);
}

TEST_F(WorkflowCliTest, ApplyDryRunOfANewGroupsWorkflowCallsNothingForIt) {
  files_["new.yaml"] = R"(kind: Group
group: {appName: reports}
---
kind: Workflow
app: reports
workflow: {name: weekly, nodes: [{name: a, jobName: a}]}
)";
  Result r = Run({"apply", "-f", "new.yaml", "--dry-run"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "group/reports created (dry run)\n"
            "workflow/reports/weekly created (dry run)\n");
  EXPECT_THAT(Methods(), ElementsAre("ListGroups"));
}

TEST_F(WorkflowCliTest, ApplyChecksWorkflowDocumentsBeforeSendingAnything) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"kind: Workflow\nworkflow: {name: a}\n", "app (the workflow's group) is required"},
      {"kind: Workflow\napp: etl\nworkflow: {description: x}\n", "workflow.name is required"},
      {"kind: Workflow\napp: etl\nworkflow: {name: a, nodes: [{name: x, jobId: 12}]}\n",
       "workflow.nodes[0] (x): name its job with jobName"},
      {std::string(kEtlWorkflow) + "---\n" + kEtlWorkflow,
       "workflow etl/nightly is declared twice"},
      {"kind: Cron\n", "kind must be Group, Job, Workflow, Calendar, AlarmChannel or Pool"},
  };
  for (const auto& [text, message] : cases) {
    files_["bad.yaml"] = text;
    Result r = Run({"apply", "-f", "bad.yaml"});
    EXPECT_EQ(r.code, 2) << text;
    EXPECT_THAT(r.err, HasSubstr(message)) << text;
  }
  EXPECT_THAT(Methods(), IsEmpty());

  // An app no group has and no document declares.
  files_["bad.yaml"] = "kind: Workflow\napp: payroll\nworkflow: {name: a}\n";
  Result r = Run({"apply", "-f", "bad.yaml"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("app: no group payroll (declare it)"));
  EXPECT_THAT(Methods(), ElementsAre("ListGroups"));
}

TEST_F(WorkflowCliTest, ApplyReportsTheServersRefusalWithTheDocument) {
  files_["etl.yaml"] =
      "kind: Workflow\napp: etl\nworkflow: {name: a, nodes: [{name: x, jobName: nope}]}\n";
  Result r = Run({"apply", "-f", "etl.yaml"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "etl.yaml document 1 (line 1): gnomonctl: INVALID_ARGUMENT: "
            "workflow.nodes[0].job_name: no job named nope\n");
}

TEST_F(WorkflowCliTest, GetPrintsManifestsThatApplyBackUnchanged) {
  files_["etl.yaml"] = kEtlWorkflow;
  ASSERT_EQ(Run({"apply", "-f", "etl.yaml"}).code, 0);
  Seed(3, "invoices", {"report"});
  // Stored with ids, job ids (and names) and times.
  ASSERT_EQ(Stored().workflows[0].nodes(0).job_id(), 12);

  Result r = Run({"get", "workflow", "etl/nightly"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("kind: Workflow\n"));
  EXPECT_THAT(r.out, HasSubstr("app: etl\n"));
  EXPECT_THAT(r.out, HasSubstr("job_name: extract-eu\n"));
  EXPECT_THAT(r.out, HasSubstr("state: WORKFLOW_STATE_STOPPED\n"));
  EXPECT_THAT(r.out, HasSubstr("  id: \"0\"\n"));
  EXPECT_THAT(r.out, HasSubstr("  group_id: \"0\"\n"));
  EXPECT_THAT(r.out, Not(HasSubstr("job_id")));
  EXPECT_THAT(r.out, Not(HasSubstr("create_time")));
  EXPECT_THAT(r.out, Not(HasSubstr("update_time")));

  files_["got.yaml"] = r.out;
  ClearCalls();
  r = Run({"apply", "-f", "got.yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "workflow/etl/nightly unchanged\n");
  EXPECT_THAT(Methods(), ElementsAre("ListGroups", "ListWorkflows"));

  r = Run({"get", "workflows"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("app: etl\n"));
  EXPECT_THAT(r.out, HasSubstr("\n---\nkind: Workflow\napp: billing\n"));
  r = Run({"get", "workflows", "--group", "billing"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr("nightly")));
  EXPECT_THAT(r.out, HasSubstr("name: invoices\n"));
}

TEST_F(WorkflowCliTest, GetAsksForTheNameOfAJobTheAnswerDoesNotName) {
  servers_.state.Set([](testing::AdminState& s) {
    v1::Workflow w;
    w.set_id(9);
    w.set_group_id(4);
    w.set_name("nightly");
    v1::WorkflowNode* n = w.add_nodes();
    n->set_name("load");
    n->set_job_id(77);
    s.workflows.workflows.push_back(w);
    s.job.set_id(77);
    s.job.set_name("load-job");
  });
  Result r = Run({"get", "workflow", "9"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("job_name: load-job\n"));
  EXPECT_EQ(servers_.state.Last<v1::GetJobRequest>("GetJob").job_id(), 77);
}

}  // namespace
}  // namespace gnomon::cli

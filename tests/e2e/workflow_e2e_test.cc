// Workflows as a user drives them, on one gnomond (SQLite, or MariaDB under
// scripts/test) and the sample executor: a handler's output reaching its
// child and deciding a condition; a branch not taken bypassed; a cancel
// killing the running node's run; a failed node marked succeeded by hand,
// and rerun; each operation in the audit log.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

class WorkflowE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> flags;
    if (auto url = testing::FreshMysqlUrl()) flags.push_back("--store=" + *url);
    cluster_ = std::make_unique<testing::GnomonCluster>(flags);
    ASSERT_TRUE(cluster_->Start()) << cluster_->Output();
    admin_ = v1::JobAdmin::NewStub(
        grpc::CreateChannel(cluster_->address(), grpc::InsecureChannelCredentials()));
    ASSERT_TRUE(cluster_->CtlJson({"group", "create", "flows"}, &group_));
    executor_ = cluster_->StartExecutor("flows", group_.access_token());
    ASSERT_TRUE(cluster_->AwaitOnline(group_.id(), 1)) << executor_->Output();
  }

  std::unique_ptr<grpc::ClientContext> Ctx() const {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(20)));
    ctx->AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_->admin_token()));
    return ctx;
  }
  // A manual job of the sample executor's `handler`, named `name`.
  void Job(const std::string& name, const std::string& handler) {
    v1::Job job;
    ASSERT_TRUE(cluster_->CtlJson({"job", "create", "--group", absl::StrCat(group_.id()), "--name",
                                   name, "--handler", handler, "--manual"},
                                  &job));
  }
  static void Node(v1::Workflow& w, const std::string& name, const std::string& job) {
    v1::WorkflowNode* n = w.add_nodes();
    n->set_name(name);
    n->set_job_name(job);
  }
  static void Edge(v1::Workflow& w, const std::string& from, const std::string& to,
                   v1::WorkflowEdgeWhen when = v1::WORKFLOW_EDGE_WHEN_SUCCESS) {
    v1::WorkflowEdge* e = w.add_edges();
    e->set_from(from);
    e->set_to(to);
    e->set_when(when);
  }
  int64_t Create(v1::Workflow w) {
    w.set_group_id(group_.id());
    v1::CreateWorkflowRequest req;
    *req.mutable_workflow() = std::move(w);
    v1::Workflow out;
    grpc::Status s = admin_->CreateWorkflow(Ctx().get(), req, &out);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return out.id();
  }
  v1::WorkflowRun Trigger(int64_t workflow_id, const std::string& params = "") {
    v1::TriggerWorkflowRequest t;
    t.set_workflow_id(workflow_id);
    if (!params.empty()) t.set_params(params);
    t.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
    v1::WorkflowRun run;
    grpc::Status s = admin_->TriggerWorkflow(Ctx().get(), t, &run);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return run;
  }
  v1::WorkflowRun Get(int64_t run_id) {
    v1::GetWorkflowRunRequest g;
    g.set_workflow_run_id(run_id);
    v1::WorkflowRun run;
    EXPECT_TRUE(admin_->GetWorkflowRun(Ctx().get(), g, &run).ok());
    return run;
  }
  // Polls until `done(run)` holds (false after 60 s).
  template <typename Pred>
  bool AwaitRun(int64_t run_id, Pred done, v1::WorkflowRun* out) {
    const absl::Time deadline = absl::Now() + absl::Seconds(60);
    while (absl::Now() < deadline) {
      *out = Get(run_id);
      if (done(*out)) return true;
      cluster_->PollInterval(absl::Milliseconds(100));
    }
    return false;
  }
  bool AwaitEnd(int64_t run_id, v1::WorkflowRun* out) {
    return AwaitRun(
        run_id,
        [](const v1::WorkflowRun& r) { return r.status() != v1::WORKFLOW_RUN_STATUS_RUNNING; },
        out);
  }
  static const v1::WorkflowNodeRun& NodeOf(const v1::WorkflowRun& run, const std::string& node) {
    for (const v1::WorkflowNodeRun& n : run.nodes()) {
      if (n.node() == node) return n;
    }
    static const v1::WorkflowNodeRun* none = new v1::WorkflowNodeRun();
    return *none;
  }
  // The node runs of a workflow run, by node, oldest first.
  std::map<std::string, std::vector<v1::Run>> NodeRuns(int64_t run_id) {
    v1::ListRunsRequest list;
    list.set_workflow_run_id(run_id);
    list.set_page_size(100);
    v1::ListRunsResponse out;
    EXPECT_TRUE(admin_->ListRuns(Ctx().get(), list, &out).ok());
    std::map<std::string, std::vector<v1::Run>> of;
    for (int i = out.runs_size() - 1; i >= 0; --i)
      of[out.runs(i).workflow_node()].push_back(out.runs(i));
    return of;
  }
  v1::WorkflowNodeRequest NodeRequest(int64_t run_id, const std::string& node,
                                      const std::string& output = "") {
    v1::WorkflowNodeRequest r;
    r.set_workflow_run_id(run_id);
    r.set_node(node);
    r.set_output(output);
    return r;
  }

  std::unique_ptr<testing::GnomonCluster> cluster_;
  std::unique_ptr<v1::JobAdmin::Stub> admin_;
  v1::Group group_;
  std::unique_ptr<testing::Subprocess> executor_;
};

TEST_F(WorkflowE2E, AnOutputReachesTheChildAndDecidesTheConditionAndTheOtherBranchIsBypassed) {
  Job("extract", "echo");
  Job("publish", "echo");
  Job("skip", "echo");
  Job("page", "echo");
  v1::Workflow w;
  w.set_name("publish-if-rows");
  Node(w, "extract", "extract");
  v1::WorkflowNode* check = w.add_nodes();
  check->set_name("has_rows");
  check->mutable_condition()->set_subject(v1::WORKFLOW_CONDITION_SUBJECT_OUTPUT);
  check->mutable_condition()->set_op(v1::WORKFLOW_CONDITION_OP_CONTAINS);
  check->mutable_condition()->set_value("rows=");
  Node(w, "publish", "publish");
  Node(w, "skip", "skip");
  Node(w, "page", "page");
  Edge(w, "extract", "has_rows");
  Edge(w, "has_rows", "publish", v1::WORKFLOW_EDGE_WHEN_TRUE);
  Edge(w, "has_rows", "skip", v1::WORKFLOW_EDGE_WHEN_FALSE);
  Edge(w, "extract", "page", v1::WORKFLOW_EDGE_WHEN_FAILURE);
  const int64_t id = Create(w);

  // Every node runs with the run's params: the echo handler returns them.
  v1::WorkflowRun run = Trigger(id, "output=rows=42");
  ASSERT_TRUE(AwaitEnd(run.id(), &run)) << run.ShortDebugString() << cluster_->Output();
  EXPECT_EQ(run.status(), v1::WORKFLOW_RUN_STATUS_SUCCEEDED) << run.ShortDebugString();
  EXPECT_EQ(NodeOf(run, "extract").output(), "rows=42");
  EXPECT_EQ(NodeOf(run, "has_rows").state(), v1::WORKFLOW_NODE_STATE_SUCCEEDED);
  EXPECT_TRUE(NodeOf(run, "has_rows").holds());
  EXPECT_EQ(NodeOf(run, "publish").state(), v1::WORKFLOW_NODE_STATE_SUCCEEDED);
  EXPECT_EQ(NodeOf(run, "skip").state(), v1::WORKFLOW_NODE_STATE_BYPASSED);
  EXPECT_EQ(NodeOf(run, "page").state(), v1::WORKFLOW_NODE_STATE_BYPASSED);

  std::map<std::string, std::vector<v1::Run>> runs = NodeRuns(run.id());
  ASSERT_EQ(runs["extract"].size(), 1u);
  EXPECT_EQ(runs["extract"][0].output(), "rows=42");  // As the executor reported it.
  ASSERT_EQ(runs["publish"].size(), 1u);
  ASSERT_EQ(runs["publish"][0].inputs_size(), 1);
  EXPECT_EQ(runs["publish"][0].inputs(0).node(), "has_rows");
  EXPECT_TRUE(runs["skip"].empty());
  EXPECT_TRUE(runs["page"].empty());

  // No rows: the other branch.
  run = Trigger(id, "output=empty");
  ASSERT_TRUE(AwaitEnd(run.id(), &run)) << run.ShortDebugString();
  EXPECT_EQ(run.status(), v1::WORKFLOW_RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(NodeOf(run, "publish").state(), v1::WORKFLOW_NODE_STATE_BYPASSED);
  EXPECT_EQ(NodeOf(run, "skip").state(), v1::WORKFLOW_NODE_STATE_SUCCEEDED);
}

TEST_F(WorkflowE2E, CancelKillsTheRunningNodeAndNothingAfterItStarts) {
  Job("long", "slow");
  Job("after", "echo");
  v1::Workflow w;
  w.set_name("long-then-after");
  w.set_params("60000");  // The slow handler sleeps a minute unless cancelled.
  Node(w, "long", "long");
  Node(w, "after", "after");
  Edge(w, "long", "after", v1::WORKFLOW_EDGE_WHEN_COMPLETION);
  const int64_t id = Create(w);
  v1::WorkflowRun run = Trigger(id);
  // Wait until the node's run is on the executor.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  std::vector<v1::Run> long_runs;
  while (absl::Now() < deadline) {
    long_runs = NodeRuns(run.id())["long"];
    if (!long_runs.empty() && long_runs[0].status() == v1::RUN_STATUS_RUNNING) break;
    cluster_->PollInterval(absl::Milliseconds(100));
  }
  ASSERT_EQ(long_runs.size(), 1u);
  ASSERT_EQ(long_runs[0].status(), v1::RUN_STATUS_RUNNING);

  v1::CancelWorkflowRunRequest cancel;
  cancel.set_workflow_run_id(run.id());
  v1::WorkflowRun cancelled;
  grpc::Status s = admin_->CancelWorkflowRun(Ctx().get(), cancel, &cancelled);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(cancelled.status(), v1::WORKFLOW_RUN_STATUS_CANCELLED);
  // The node's run is killed on its executor, long before its minute.
  const absl::Time killed_by = absl::Now() + absl::Seconds(30);
  while (absl::Now() < killed_by) {
    long_runs = NodeRuns(run.id())["long"];
    if (long_runs[0].status() != v1::RUN_STATUS_RUNNING) break;
    cluster_->PollInterval(absl::Milliseconds(100));
  }
  EXPECT_EQ(long_runs[0].status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(long_runs[0].handle_code(), v1::HANDLE_CODE_KILLED);
  cluster_->PollInterval(
      absl::Seconds(1));  // Its end has been handled (follow-ups poll at 100 ms).
  run = Get(run.id());
  EXPECT_EQ(run.status(), v1::WORKFLOW_RUN_STATUS_CANCELLED);
  EXPECT_TRUE(NodeRuns(run.id())["after"].empty()) << "a node ran after the cancel";

  v1::ListAuditRequest audit;
  audit.set_object(absl::StrCat("workflow_run/", run.id()));
  v1::ListAuditResponse entries;
  ASSERT_TRUE(admin_->ListAudit(Ctx().get(), audit, &entries).ok());
  ASSERT_EQ(entries.entries_size(), 2);  // Newest first.
  EXPECT_EQ(entries.entries(0).method(), "CancelWorkflowRun");
  EXPECT_EQ(entries.entries(1).method(), "TriggerWorkflow");
}

TEST_F(WorkflowE2E, AFailedNodeMarkedSucceededLetsTheRunGoOnAndARerunRunsItAgain) {
  Job("flaky", "fail");
  Job("load", "echo");
  v1::Workflow w;
  w.set_name("flaky-then-load");
  Node(w, "flaky", "flaky");
  Node(w, "load", "load");
  Edge(w, "flaky", "load");
  const int64_t id = Create(w);

  v1::WorkflowRun run = Trigger(id);
  ASSERT_TRUE(AwaitEnd(run.id(), &run)) << run.ShortDebugString();
  EXPECT_EQ(run.status(), v1::WORKFLOW_RUN_STATUS_FAILED);
  EXPECT_EQ(NodeOf(run, "flaky").state(), v1::WORKFLOW_NODE_STATE_FAILED);
  EXPECT_EQ(NodeOf(run, "load").state(), v1::WORKFLOW_NODE_STATE_BYPASSED);

  // Rerun from the failed node: its next attempt runs (and fails again).
  v1::WorkflowRun rerun;
  grpc::Status s = admin_->RerunWorkflowNode(Ctx().get(), NodeRequest(run.id(), "flaky"), &rerun);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(rerun.status(), v1::WORKFLOW_RUN_STATUS_RUNNING);
  ASSERT_TRUE(AwaitEnd(run.id(), &run)) << run.ShortDebugString();
  EXPECT_EQ(run.status(), v1::WORKFLOW_RUN_STATUS_FAILED);
  EXPECT_EQ(NodeOf(run, "flaky").attempt(), 2);
  EXPECT_EQ(NodeRuns(run.id())["flaky"].size(), 2u);

  // Marked succeeded by hand with an output: load runs with it as input.
  v1::WorkflowRun marked;
  s = admin_->MarkWorkflowNodeSucceeded(Ctx().get(),
                                        NodeRequest(run.id(), "flaky", "fixed by hand"), &marked);
  ASSERT_TRUE(s.ok()) << s.error_message();
  ASSERT_TRUE(AwaitEnd(run.id(), &run)) << run.ShortDebugString();
  EXPECT_EQ(run.status(), v1::WORKFLOW_RUN_STATUS_SUCCEEDED) << run.ShortDebugString();
  std::vector<v1::Run> load = NodeRuns(run.id())["load"];
  ASSERT_EQ(load.size(), 1u);
  ASSERT_EQ(load[0].inputs_size(), 1);
  EXPECT_EQ(load[0].inputs(0).output(), "fixed by hand");

  // Both operations are in the audit log, after the trigger.
  v1::ListAuditRequest audit;
  audit.set_object(absl::StrCat("workflow_run/", run.id()));
  v1::ListAuditResponse entries;
  ASSERT_TRUE(admin_->ListAudit(Ctx().get(), audit, &entries).ok());
  ASSERT_EQ(entries.entries_size(), 3);
  EXPECT_EQ(entries.entries(0).method(), "MarkWorkflowNodeSucceeded");  // Newest first.
  EXPECT_EQ(entries.entries(1).method(), "RerunWorkflowNode");
  EXPECT_EQ(entries.entries(2).method(), "TriggerWorkflow");
}

}  // namespace
}  // namespace gnomon

// StoreTest cases for workflows: a workflow's definition round-trips, its
// name is unique in its group, its group cannot go while it stands; a run
// is created once per slot, and a change made from a stale copy of a run is
// refused, so two replicas cannot both move a node on.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

v1::Workflow Regional(int64_t group_id, int64_t job_id) {
  v1::Workflow w;
  w.set_group_id(group_id);
  w.set_name("regional");
  w.set_description("extracts, merge, publish");
  w.set_params("date=today");
  w.set_state(v1::WORKFLOW_STATE_RUNNING);
  w.mutable_schedule()->mutable_cron()->set_expression("0 0 2 * * ?");
  for (const char* n : {"extract_eu", "merge"}) {
    v1::WorkflowNode* node = w.add_nodes();
    node->set_name(n);
    node->set_job_id(job_id);
  }
  v1::WorkflowNode* cond = w.add_nodes();
  cond->set_name("has_rows");
  cond->mutable_condition()->set_op(v1::WORKFLOW_CONDITION_OP_GT);
  cond->mutable_condition()->set_value("0");
  v1::WorkflowEdge* e = w.add_edges();
  e->set_from("extract_eu");
  e->set_to("merge");
  e = w.add_edges();
  e->set_from("merge");
  e->set_to("has_rows");
  return w;
}

v1::WorkflowRun NewRun(int64_t workflow_id, int64_t slot_ms) {
  v1::WorkflowRun run;
  run.set_workflow_id(workflow_id);
  run.set_status(v1::WORKFLOW_RUN_STATUS_RUNNING);
  run.set_trigger_type(v1::TRIGGER_TYPE_CRON);
  if (slot_ms > 0) run.mutable_scheduled_time()->set_seconds(slot_ms / 1000);
  for (const char* n : {"extract_eu", "merge", "has_rows"}) {
    v1::WorkflowNodeRun* node = run.add_nodes();
    node->set_node(n);
    node->set_state(v1::WORKFLOW_NODE_STATE_PENDING);
  }
  return run;
}

class StoreWorkflowTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    absl::StatusOr<v1::Group> g = store().CreateGroup(MakeGroup("flows"), 1);
    ASSERT_TRUE(g.ok()) << g.status();
    group_ = *g;
    v1::Job j;
    j.set_group_id(group_.id());
    j.mutable_bean()->set_handler("extract");
    absl::StatusOr<v1::Job> job = store().CreateJob(j, v1::JOB_STATE_STOPPED, kNever, 1);
    ASSERT_TRUE(job.ok()) << job.status();
    job_ = *job;
  }
  v1::Group group_;
  v1::Job job_;
};

TEST_P(StoreWorkflowTest, AWorkflowRoundTripsAndItsNameIsUniqueInItsGroup) {
  ASSERT_OK_AND_ASSIGN(w, store().CreateWorkflow(Regional(group_.id(), job_.id()), 5000, 100));
  EXPECT_GT(w.id(), 0);
  EXPECT_EQ(w.create_time().seconds(), 0);
  EXPECT_EQ(w.create_time().nanos(), 100'000'000);
  ASSERT_OK_AND_ASSIGN(read, store().GetWorkflow(w.id()));
  EXPECT_EQ(read.SerializeAsString(), w.SerializeAsString());
  EXPECT_EQ(read.nodes_size(), 3);
  EXPECT_EQ(read.nodes(2).condition().value(), "0");
  EXPECT_EQ(read.schedule().cron().expression(), "0 0 2 * * ?");
  EXPECT_EQ(read.state(), v1::WORKFLOW_STATE_RUNNING);

  absl::StatusOr<v1::Workflow> again =
      store().CreateWorkflow(Regional(group_.id(), job_.id()), 5000, 100);
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(again.status().message(), HasSubstr("workflow.name"));

  v1::Workflow other = Regional(group_.id(), job_.id());
  other.set_name("nightly");
  ASSERT_OK_AND_ASSIGN(n, store().CreateWorkflow(other, 0, 100));
  ASSERT_OK_AND_ASSIGN(listed, store().ListWorkflows(group_.id()));
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[1].name(), "nightly");
  // Renamed onto the other's name: refused, and nothing changes.
  n.set_name("regional");
  EXPECT_EQ(store().UpdateWorkflow(n, std::nullopt, 200).status().code(),
            absl::StatusCode::kAlreadyExists);
  n.set_name("nightly-2");
  n.clear_edges();
  ASSERT_OK_AND_ASSIGN(updated, store().UpdateWorkflow(n, std::nullopt, 200));
  EXPECT_EQ(updated.name(), "nightly-2");
  EXPECT_EQ(updated.edges_size(), 0);
  EXPECT_EQ(updated.group_id(), group_.id());
}

TEST_P(StoreWorkflowTest, AMissingGroupOrWorkflowIsNamed) {
  v1::Workflow w = Regional(group_.id() + 100, job_.id());
  absl::StatusOr<v1::Workflow> created = store().CreateWorkflow(w, 0, 1);
  EXPECT_EQ(created.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(created.status().message(), HasSubstr("workflow.group_id"));
  EXPECT_EQ(store().GetWorkflow(999).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store().DeleteWorkflow(999).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store().CreateWorkflowRun(NewRun(999, 0), 1).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_P(StoreWorkflowTest, ASlotStartsOneRunAndRunsStartedByHandAreMany) {
  ASSERT_OK_AND_ASSIGN(w, store().CreateWorkflow(Regional(group_.id(), job_.id()), 0, 1));
  ASSERT_OK_AND_ASSIGN(first, store().CreateWorkflowRun(NewRun(w.id(), 7'000), 10));
  EXPECT_EQ(first.version(), 1);
  EXPECT_EQ(first.nodes_size(), 3);
  EXPECT_EQ(store().CreateWorkflowRun(NewRun(w.id(), 7'000), 11).status().code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_OK_AND_ASSIGN(manual1, store().CreateWorkflowRun(NewRun(w.id(), 0), 12));
  ASSERT_OK_AND_ASSIGN(manual2, store().CreateWorkflowRun(NewRun(w.id(), 0), 13));
  ASSERT_OK_AND_ASSIGN(runs, store().ListWorkflowRuns(w.id(), 2));
  ASSERT_EQ(runs.size(), 2u);  // Newest first.
  EXPECT_EQ(runs[0].id(), manual2.id());
  EXPECT_EQ(runs[1].id(), manual1.id());
}

TEST_P(StoreWorkflowTest, AChangeFromAStaleCopyOfARunIsRefused) {
  ASSERT_OK_AND_ASSIGN(w, store().CreateWorkflow(Regional(group_.id(), job_.id()), 0, 1));
  ASSERT_OK_AND_ASSIGN(run, store().CreateWorkflowRun(NewRun(w.id(), 0), 10));
  // Two replicas read version 1; the first moves extract_eu on.
  v1::WorkflowRun a = run;
  v1::WorkflowRun b = run;
  a.mutable_nodes(0)->set_state(v1::WORKFLOW_NODE_STATE_RUNNING);
  a.mutable_nodes(0)->set_attempt(1);
  ASSERT_OK_AND_ASSIGN(moved, store().UpdateWorkflowRun(a, 20));
  EXPECT_EQ(moved.version(), 2);
  EXPECT_EQ(moved.nodes(0).state(), v1::WORKFLOW_NODE_STATE_RUNNING);
  EXPECT_FALSE(moved.has_end_time());
  // The second's change, from version 1, is refused: it reads again.
  b.mutable_nodes(0)->set_state(v1::WORKFLOW_NODE_STATE_RUNNING);
  b.mutable_nodes(0)->set_attempt(1);
  EXPECT_EQ(store().UpdateWorkflowRun(b, 21).status().code(), absl::StatusCode::kAborted);
  ASSERT_OK_AND_ASSIGN(read, store().GetWorkflowRun(run.id()));
  EXPECT_EQ(read.version(), 2);
  // Ending the run stamps its end.
  read.set_status(v1::WORKFLOW_RUN_STATUS_SUCCEEDED);
  ASSERT_OK_AND_ASSIGN(ended, store().UpdateWorkflowRun(read, 30));
  EXPECT_EQ(ended.status(), v1::WORKFLOW_RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(ended.end_time().nanos(), 30'000'000);
  v1::WorkflowRun gone = ended;
  gone.set_id(run.id() + 1000);
  EXPECT_EQ(store().UpdateWorkflowRun(gone, 31).status().code(), absl::StatusCode::kNotFound);
}

TEST_P(StoreWorkflowTest, AWorkflowWithARunningRunOrAGroupWithAWorkflowStays) {
  ASSERT_OK_AND_ASSIGN(w, store().CreateWorkflow(Regional(group_.id(), job_.id()), 0, 1));
  ASSERT_OK_AND_ASSIGN(run, store().CreateWorkflowRun(NewRun(w.id(), 0), 10));
  EXPECT_EQ(store().DeleteWorkflow(w.id()).code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_OK(store().DeleteJob(job_.id(), /*purge_runs=*/true));
  const absl::Status group = store().DeleteGroup(group_.id());
  EXPECT_EQ(group.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(group.message(), HasSubstr("1 workflow"));
  run.set_status(v1::WORKFLOW_RUN_STATUS_CANCELLED);
  ASSERT_OK(store().UpdateWorkflowRun(run, 20).status());
  ASSERT_OK(store().DeleteWorkflow(w.id()));
  EXPECT_EQ(store().GetWorkflowRun(run.id()).status().code(), absl::StatusCode::kNotFound);
  ASSERT_OK_AND_ASSIGN(left, store().ListWorkflows(0));
  EXPECT_THAT(left, ElementsAre());
  ASSERT_OK(store().DeleteGroup(group_.id()));
}

// A node's run is recorded once per (workflow run, node, node attempt,
// shard, retry attempt): a fire repeated after a crash finds the first.
TEST_P(StoreWorkflowTest, ANodesRunIsRecordedOncePerShardAndAttemptWithItsNode) {
  auto node_run = [&](const std::string& node, int32_t node_attempt, uint32_t shard,
                      uint32_t attempt) {
    v1::Run r;
    r.set_job_id(job_.id());
    r.set_group_id(group_.id());
    r.set_trigger_type(v1::TRIGGER_TYPE_PARENT);
    r.mutable_trigger_time()->set_seconds(10);
    r.set_shard_index(shard);
    r.set_shard_total(2);
    r.set_attempt(attempt);
    r.set_status(v1::RUN_STATUS_PENDING);
    r.set_workflow_run_id(77);
    r.set_workflow_node(node);
    r.set_workflow_attempt(node_attempt);
    return r;
  };
  std::vector<v1::Run> batch = {node_run("merge", 1, 0, 0), node_run("merge", 1, 1, 0),
                                node_run("merge", 2, 0, 0), node_run("publish", 1, 0, 0),
                                node_run("merge", 1, 0, 1), node_run("merge", 1, 0, 0)};
  ASSERT_OK_AND_ASSIGN(out, store().InsertRuns(batch));
  ASSERT_EQ(out.size(), 6u);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(out[i].inserted) << i;
  EXPECT_FALSE(out[5].inserted);
  EXPECT_EQ(out[5].run_id, out[0].run_id);
  std::vector<v1::Run> replay = {node_run("merge", 1, 1, 0)};
  ASSERT_OK_AND_ASSIGN(again, store().InsertRuns(replay));
  EXPECT_FALSE(again[0].inserted);
  EXPECT_EQ(again[0].run_id, out[1].run_id);
  ASSERT_OK_AND_ASSIGN(stored, store().GetRun(out[2].run_id));
  EXPECT_EQ(stored.workflow_run_id(), 77);
  EXPECT_EQ(stored.workflow_node(), "merge");
  EXPECT_EQ(stored.workflow_attempt(), 2);
  // Runs of no workflow never clash on it.
  v1::Run plain = node_run("", 0, 0, 0);
  plain.clear_workflow_run_id();
  std::vector<v1::Run> plains = {plain, plain};
  ASSERT_OK_AND_ASSIGN(both, store().InsertRuns(plains));
  EXPECT_TRUE(both[0].inserted);
  EXPECT_TRUE(both[1].inserted);
  ASSERT_OK_AND_ASSIGN(read, store().GetRun(both[0].run_id));
  EXPECT_EQ(read.workflow_run_id(), 0);
  EXPECT_EQ(read.workflow_node(), "");
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreWorkflowTest, ::testing::Values("sqlite", "mysql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gnomon::store::testing

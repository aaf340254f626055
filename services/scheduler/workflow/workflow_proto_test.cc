#include "services/scheduler/workflow/workflow_proto.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gnomon::scheduler::workflow {
namespace {

using ::testing::ElementsAre;

// The API's spelling of "extract, then merge if it succeeded, then publish
// if the merge's output is a positive number; page on a failed merge".
v1::Workflow Flow() {
  v1::Workflow w;
  for (const auto& [name, job] : std::vector<std::pair<std::string, int64_t>>{
           {"extract", 1}, {"merge", 2}, {"publish", 3}, {"page", 4}}) {
    v1::WorkflowNode* n = w.add_nodes();
    n->set_name(name);
    n->set_job_id(job);
  }
  v1::WorkflowNode* c = w.add_nodes();
  c->set_name("has_rows");
  c->mutable_condition()->set_op(v1::WORKFLOW_CONDITION_OP_GT);
  c->mutable_condition()->set_value("0");
  auto edge = [&](const char* from, const char* to, v1::WorkflowEdgeWhen when) {
    v1::WorkflowEdge* e = w.add_edges();
    e->set_from(from);
    e->set_to(to);
    e->set_when(when);
  };
  edge("extract", "merge", v1::WORKFLOW_EDGE_WHEN_UNSPECIFIED);
  edge("merge", "has_rows", v1::WORKFLOW_EDGE_WHEN_SUCCESS);
  edge("has_rows", "publish", v1::WORKFLOW_EDGE_WHEN_TRUE);
  edge("merge", "page", v1::WORKFLOW_EDGE_WHEN_FAILURE);
  return w;
}

TEST(WorkflowProtoTest, TheApisGraphIsTheEnginesWithDefaultsSpelledOut) {
  absl::StatusOr<Dag> dag = DagOf(Flow());
  ASSERT_TRUE(dag.ok()) << dag.status();
  ASSERT_EQ(dag->nodes.size(), 5u);
  EXPECT_EQ(dag->nodes[1].job_id, 2);
  ASSERT_TRUE(dag->nodes[4].condition.has_value());
  EXPECT_EQ(dag->nodes[4].condition->subject, Subject::kOutput);  // UNSPECIFIED: OUTPUT.
  EXPECT_EQ(dag->nodes[4].condition->op, Op::kGt);
  EXPECT_EQ(dag->edges[0].when, When::kSuccess);  // UNSPECIFIED: SUCCESS.
  EXPECT_EQ(dag->edges[3].when, When::kFailure);
  EXPECT_TRUE(Validate(*dag, 0, [](int64_t) { return std::optional<int64_t>(0); }).ok());
}

TEST(WorkflowProtoTest, AnEnumValueThisServerDoesNotKnowIsRefusedByField) {
  v1::Workflow w = Flow();
  w.mutable_edges(2)->set_when(static_cast<v1::WorkflowEdgeWhen>(42));
  EXPECT_EQ(DagOf(w).status().message(), "workflow.edges[2].when: unknown value 42");
  w = Flow();
  w.mutable_nodes(4)->mutable_condition()->set_op(static_cast<v1::WorkflowConditionOp>(9));
  EXPECT_EQ(DagOf(w).status().message(), "workflow.nodes[4].condition.op: unknown value 9");
}

TEST(WorkflowProtoTest, ARunSavedAndReadBackGoesOnWhereItWas) {
  auto dag = std::make_shared<const Dag>(*DagOf(Flow()));
  WorkflowRun engine(dag);
  engine.Start();
  engine.ShardEnded("extract", 1, 1, 2, NodeResult{200, "b"});
  v1::WorkflowRun stored;
  SaveTo(engine, &stored);
  EXPECT_EQ(stored.status(), v1::WORKFLOW_RUN_STATUS_RUNNING);
  ASSERT_EQ(stored.nodes_size(), 5);
  EXPECT_EQ(stored.nodes(0).state(), v1::WORKFLOW_NODE_STATE_RUNNING);
  EXPECT_EQ(stored.nodes(0).shards_size(), 1);

  // Another replica reads it back and the other shard ends there.
  WorkflowRun again(dag, RecordsOf(stored, *dag), stored.cancelled());
  std::vector<NodeFire> next = again.ShardEnded("extract", 1, 0, 2, NodeResult{200, "a"});
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].node, "merge");
  EXPECT_THAT(again.Inputs("merge"),
              ElementsAre(std::make_pair(std::string("extract"), std::string("a\nb"))));
  again.ShardEnded("merge", 1, 0, 1, NodeResult{500, ""});
  again.ShardEnded("page", 1, 0, 1, NodeResult{200, ""});
  SaveTo(again, &stored);
  EXPECT_EQ(stored.status(), v1::WORKFLOW_RUN_STATUS_SUCCEEDED);  // The failure was handled.
  EXPECT_EQ(stored.nodes(4).state(), v1::WORKFLOW_NODE_STATE_BYPASSED);
  EXPECT_EQ(stored.nodes(3).state(), v1::WORKFLOW_NODE_STATE_SUCCEEDED);
}

}  // namespace
}  // namespace gnomon::scheduler::workflow

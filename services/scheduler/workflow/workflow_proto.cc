#include "services/scheduler/workflow/workflow_proto.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "services/common/server/field_checks.h"

namespace gnomon::scheduler::workflow {
namespace {

using checks::Indexed;
using checks::Invalid;

absl::StatusOr<When> WhenOf(v1::WorkflowEdgeWhen w, int edge) {
  switch (w) {
    case v1::WORKFLOW_EDGE_WHEN_UNSPECIFIED:
    case v1::WORKFLOW_EDGE_WHEN_SUCCESS:
      return When::kSuccess;
    case v1::WORKFLOW_EDGE_WHEN_FAILURE:
      return When::kFailure;
    case v1::WORKFLOW_EDGE_WHEN_COMPLETION:
      return When::kCompletion;
    case v1::WORKFLOW_EDGE_WHEN_TRUE:
      return When::kTrue;
    case v1::WORKFLOW_EDGE_WHEN_FALSE:
      return When::kFalse;
    default:
      return Invalid(absl::StrCat("workflow.", Indexed("edges", edge), ".when"),
                     absl::StrCat("unknown value ", static_cast<int>(w)));
  }
}

absl::StatusOr<Condition> ConditionOf(const v1::WorkflowCondition& c, int node) {
  const std::string field = absl::StrCat("workflow.", Indexed("nodes", node), ".condition");
  Condition out;
  out.value = c.value();
  switch (c.subject()) {
    case v1::WORKFLOW_CONDITION_SUBJECT_UNSPECIFIED:
    case v1::WORKFLOW_CONDITION_SUBJECT_OUTPUT:
      out.subject = Subject::kOutput;
      break;
    case v1::WORKFLOW_CONDITION_SUBJECT_HANDLE_CODE:
      out.subject = Subject::kHandleCode;
      break;
    default:
      return Invalid(absl::StrCat(field, ".subject"),
                     absl::StrCat("unknown value ", static_cast<int>(c.subject())));
  }
  switch (c.op()) {
    case v1::WORKFLOW_CONDITION_OP_UNSPECIFIED:
    case v1::WORKFLOW_CONDITION_OP_NON_EMPTY:
      out.op = Op::kNonEmpty;
      break;
    case v1::WORKFLOW_CONDITION_OP_EQ:
      out.op = Op::kEq;
      break;
    case v1::WORKFLOW_CONDITION_OP_NE:
      out.op = Op::kNe;
      break;
    case v1::WORKFLOW_CONDITION_OP_GT:
      out.op = Op::kGt;
      break;
    case v1::WORKFLOW_CONDITION_OP_LT:
      out.op = Op::kLt;
      break;
    case v1::WORKFLOW_CONDITION_OP_CONTAINS:
      out.op = Op::kContains;
      break;
    default:
      return Invalid(absl::StrCat(field, ".op"),
                     absl::StrCat("unknown value ", static_cast<int>(c.op())));
  }
  return out;
}

// The engine's states and the API's, in the same order.
constexpr v1::WorkflowNodeState kStates[] = {
    v1::WORKFLOW_NODE_STATE_PENDING,   v1::WORKFLOW_NODE_STATE_RUNNING,
    v1::WORKFLOW_NODE_STATE_SUCCEEDED, v1::WORKFLOW_NODE_STATE_FAILED,
    v1::WORKFLOW_NODE_STATE_SKIPPED,   v1::WORKFLOW_NODE_STATE_BYPASSED,
    v1::WORKFLOW_NODE_STATE_CANCELLED};

NodeState StateOf(v1::WorkflowNodeState s) {
  for (size_t i = 0; i < std::size(kStates); ++i) {
    if (kStates[i] == s) return static_cast<NodeState>(i);
  }
  return NodeState::kPending;
}

v1::WorkflowRunStatus StatusOf(Outcome o) {
  switch (o) {
    case Outcome::kRunning:
      return v1::WORKFLOW_RUN_STATUS_RUNNING;
    case Outcome::kSucceeded:
      return v1::WORKFLOW_RUN_STATUS_SUCCEEDED;
    case Outcome::kFailed:
      return v1::WORKFLOW_RUN_STATUS_FAILED;
    case Outcome::kCancelled:
      return v1::WORKFLOW_RUN_STATUS_CANCELLED;
  }
  return v1::WORKFLOW_RUN_STATUS_UNSPECIFIED;
}

}  // namespace

absl::StatusOr<Dag> DagOf(const v1::Workflow& workflow) {
  Dag dag;
  dag.nodes.reserve(workflow.nodes_size());
  for (int i = 0; i < workflow.nodes_size(); ++i) {
    const v1::WorkflowNode& n = workflow.nodes(i);
    Node node{.name = n.name(), .job_id = n.job_id()};
    if (n.has_condition()) {
      absl::StatusOr<Condition> c = ConditionOf(n.condition(), i);
      if (!c.ok()) return c.status();
      node.condition = *std::move(c);
    }
    dag.nodes.push_back(std::move(node));
  }
  dag.edges.reserve(workflow.edges_size());
  for (int i = 0; i < workflow.edges_size(); ++i) {
    const v1::WorkflowEdge& e = workflow.edges(i);
    absl::StatusOr<When> when = WhenOf(e.when(), i);
    if (!when.ok()) return when.status();
    dag.edges.push_back({e.from(), e.to(), *when});
  }
  return dag;
}

std::vector<NodeRecord> RecordsOf(const v1::WorkflowRun& run, const Dag& dag) {
  absl::flat_hash_map<std::string, const v1::WorkflowNodeRun*> stored;
  for (const v1::WorkflowNodeRun& n : run.nodes()) stored[n.node()] = &n;
  std::vector<NodeRecord> records(dag.nodes.size());
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    auto it = stored.find(dag.nodes[i].name);
    if (it == stored.end()) continue;
    const v1::WorkflowNodeRun& n = *it->second;
    NodeRecord& r = records[i];
    r.state = StateOf(n.state());
    r.attempt = n.attempt();
    r.handle_code = n.handle_code();
    r.output = n.output();
    r.holds = n.holds();
    r.shard_total = n.shard_total();
    for (const v1::WorkflowShardResult& s : n.shards()) {
      r.shards[s.shard()] = NodeResult{s.handle_code(), s.output()};
    }
  }
  return records;
}

void SaveTo(const WorkflowRun& engine, v1::WorkflowRun* run) {
  run->clear_nodes();
  const std::vector<NodeRecord>& records = engine.records();
  for (size_t i = 0; i < records.size(); ++i) {
    const NodeRecord& r = records[i];
    v1::WorkflowNodeRun* n = run->add_nodes();
    n->set_node(engine.dag().nodes[i].name);
    n->set_state(kStates[static_cast<size_t>(r.state)]);
    n->set_attempt(r.attempt);
    n->set_handle_code(r.handle_code);
    n->set_output(r.output);
    n->set_holds(r.holds);
    n->set_shard_total(r.shard_total);
    for (const auto& [shard, result] : r.shards) {
      v1::WorkflowShardResult* s = n->add_shards();
      s->set_shard(shard);
      s->set_handle_code(result.handle_code);
      s->set_output(result.output);
    }
  }
  run->set_cancelled(engine.cancelled());
  run->set_status(StatusOf(engine.outcome()));
}

}  // namespace gnomon::scheduler::workflow

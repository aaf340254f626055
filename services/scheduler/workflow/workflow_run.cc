#include "services/scheduler/workflow/workflow_run.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/server/field_checks.h"
#include "services/common/status/status_macros.h"

namespace gnomon::scheduler::workflow {
namespace {

bool HasEnded(NodeState s) { return s != NodeState::kPending && s != NodeState::kRunning; }

}  // namespace

const char* NodeStateName(NodeState s) {
  switch (s) {
    case NodeState::kPending:
      return "PENDING";
    case NodeState::kRunning:
      return "RUNNING";
    case NodeState::kSucceeded:
      return "SUCCEEDED";
    case NodeState::kFailed:
      return "FAILED";
    case NodeState::kSkipped:
      return "SKIPPED";
    case NodeState::kBypassed:
      return "BYPASSED";
    case NodeState::kCancelled:
      return "CANCELLED";
  }
  return "?";
}

WorkflowRun::WorkflowRun(std::shared_ptr<const Dag> dag)
    : dag_(std::move(dag)), records_(dag_->nodes.size()) {
  Index();
}

WorkflowRun::WorkflowRun(std::shared_ptr<const Dag> dag, std::vector<NodeRecord> records,
                         bool cancelled)
    : dag_(std::move(dag)), records_(std::move(records)), cancelled_(cancelled) {
  records_.resize(dag_->nodes.size());
  Index();
}

void WorkflowRun::Index() {
  in_.assign(dag_->nodes.size(), {});
  out_.assign(dag_->nodes.size(), {});
  for (size_t i = 0; i < dag_->nodes.size(); ++i) index_[dag_->nodes[i].name] = static_cast<int>(i);
  for (size_t e = 0; e < dag_->edges.size(); ++e) {
    out_[index_.at(dag_->edges[e].from)].push_back(static_cast<int>(e));
    in_[index_.at(dag_->edges[e].to)].push_back(static_cast<int>(e));
  }
}

absl::StatusOr<int> WorkflowRun::IndexOf(const std::string& node) const {
  auto it = index_.find(node);
  if (it == index_.end()) {
    return absl::NotFoundError(absl::StrCat("node: no node ", checks::Prefix(node)));
  }
  return it->second;
}

const NodeRecord* WorkflowRun::Find(const std::string& node) const {
  auto it = index_.find(node);
  return it == index_.end() ? nullptr : &records_[it->second];
}

std::vector<NodeFire> WorkflowRun::Start() {
  std::vector<NodeFire> fires;
  for (size_t i = 0; i < records_.size(); ++i) {
    if (in_[i].empty()) Consider(static_cast<int>(i), fires);
  }
  return fires;
}

bool WorkflowRun::EdgeHolds(const Edge& e, int parent) const {
  const NodeRecord& p = records_[parent];
  const bool success = p.state == NodeState::kSucceeded || p.state == NodeState::kSkipped;
  switch (e.when) {
    case When::kSuccess:
      return success;
    case When::kFailure:
      return p.state == NodeState::kFailed;
    case When::kCompletion:
      return success || p.state == NodeState::kFailed;
    case When::kTrue:
      return p.state == NodeState::kSucceeded && p.holds;
    case When::kFalse:
      return p.state == NodeState::kSucceeded && !p.holds;
  }
  return false;
}

void WorkflowRun::Consider(int i, std::vector<NodeFire>& fires) {
  NodeRecord& r = records_[i];
  if (r.state != NodeState::kPending || cancelled_) return;
  bool holds = true;
  for (int e : in_[i]) {
    const Edge& edge = dag_->edges[e];
    const int parent = index_.at(edge.from);
    if (!HasEnded(records_[parent].state)) return;  // Fan-in: waits for every parent.
    holds = holds && EdgeHolds(edge, parent);
  }
  if (!holds) {
    Ended(i, NodeState::kBypassed, 0, "", fires);
    return;
  }
  const Node& n = dag_->nodes[i];
  if (n.condition) {
    const NodeRecord& parent = records_[index_.at(dag_->edges[in_[i].front()].from)];
    r.holds = Holds(*n.condition, parent.handle_code, parent.output);
    Ended(i, NodeState::kSucceeded, 200, r.holds ? "true" : "false", fires);
    return;
  }
  r.state = NodeState::kRunning;
  ++r.attempt;
  r.shards.clear();
  r.shard_total = 0;
  fires.push_back({n.name, n.job_id, r.attempt});
}

void WorkflowRun::Ended(int i, NodeState state, int32_t handle_code, std::string output,
                        std::vector<NodeFire>& fires) {
  NodeRecord& r = records_[i];
  r.state = state;
  r.handle_code = handle_code;
  r.output = std::move(output);
  Settle(i, fires);
}

void WorkflowRun::Settle(int i, std::vector<NodeFire>& fires) {
  for (int e : out_[i]) Consider(index_.at(dag_->edges[e].to), fires);
}

std::vector<NodeFire> WorkflowRun::ShardEnded(const std::string& node, int attempt, int shard,
                                              int shard_total, const NodeResult& result) {
  std::vector<NodeFire> fires;
  auto it = index_.find(node);
  if (it == index_.end()) return fires;
  const int i = it->second;
  NodeRecord& r = records_[i];
  if (r.state != NodeState::kRunning || r.attempt != attempt || shard < 0 || shard_total < 1 ||
      shard >= shard_total) {
    return fires;
  }
  r.shard_total = shard_total;
  r.shards.emplace(shard, result);  // A shard reported twice keeps its first result.
  if (static_cast<int>(r.shards.size()) < shard_total) return fires;
  int32_t code = 200;
  std::string output;
  for (const auto& [index, s] : r.shards) {
    if (code == 200 && s.handle_code != 200) code = s.handle_code;
    if (index > 0) output += '\n';
    output += s.output;
  }
  Ended(i, code == 200 ? NodeState::kSucceeded : NodeState::kFailed, code, std::move(output),
        fires);
  return fires;
}

absl::StatusOr<std::vector<std::string>> WorkflowRun::Cancel() {
  if (outcome() != Outcome::kRunning) {
    return absl::FailedPreconditionError("the workflow run has ended");
  }
  cancelled_ = true;
  std::vector<std::string> running;
  for (size_t i = 0; i < records_.size(); ++i) {
    NodeRecord& r = records_[i];
    if (r.state == NodeState::kRunning) running.push_back(dag_->nodes[i].name);
    if (!HasEnded(r.state)) r.state = NodeState::kCancelled;
  }
  return running;
}

absl::StatusOr<std::vector<NodeFire>> WorkflowRun::RerunFrom(const std::string& node) {
  ASSIGN_OR_RETURN(const int start, IndexOf(node));
  if (cancelled_) return absl::FailedPreconditionError("the workflow run was cancelled");
  if (!HasEnded(records_[start].state)) {
    return absl::FailedPreconditionError(
        absl::StrCat("node ", checks::Prefix(node), " is ", NodeStateName(records_[start].state)));
  }
  // `node` and everything reachable from it.
  std::vector<bool> reset(records_.size(), false);
  std::vector<int> todo = {start};
  reset[start] = true;
  while (!todo.empty()) {
    const int i = todo.back();
    todo.pop_back();
    if (records_[i].state == NodeState::kRunning) {
      return absl::FailedPreconditionError(
          absl::StrCat("node ", checks::Prefix(dag_->nodes[i].name), " after ",
                       checks::Prefix(node), " is still running"));
    }
    for (int e : out_[i]) {
      const int child = index_.at(dag_->edges[e].to);
      if (!reset[child]) {
        reset[child] = true;
        todo.push_back(child);
      }
    }
  }
  for (size_t i = 0; i < records_.size(); ++i) {
    if (!reset[i]) continue;
    NodeRecord& r = records_[i];
    r.state = NodeState::kPending;
    r.handle_code = 0;
    r.output.clear();
    r.holds = false;
    r.shards.clear();
    r.shard_total = 0;
  }
  std::vector<NodeFire> fires;
  Consider(start, fires);
  return fires;
}

absl::StatusOr<std::vector<NodeFire>> WorkflowRun::Skip(const std::string& node) {
  return EndByHand(node, std::nullopt);
}

absl::StatusOr<std::vector<NodeFire>> WorkflowRun::MarkSucceeded(const std::string& node,
                                                                 const std::string& output) {
  return EndByHand(node, output);
}

absl::StatusOr<std::vector<NodeFire>> WorkflowRun::EndByHand(
    const std::string& node, const std::optional<std::string>& output) {
  ASSIGN_OR_RETURN(const int i, IndexOf(node));
  if (cancelled_) return absl::FailedPreconditionError("the workflow run was cancelled");
  const NodeState s = records_[i].state;
  if (s != NodeState::kPending && s != NodeState::kFailed) {
    return absl::FailedPreconditionError(absl::StrCat(
        "node ", checks::Prefix(node), " is ", NodeStateName(s), "; only a PENDING or FAILED node",
        output ? " can be marked succeeded" : " can be skipped"));
  }
  // What its failure bypassed is considered again: the branch it now takes
  // may run.
  std::vector<int> todo = {i};
  while (!todo.empty()) {
    const int n = todo.back();
    todo.pop_back();
    for (int e : out_[n]) {
      const int child = index_.at(dag_->edges[e].to);
      if (records_[child].state != NodeState::kBypassed) continue;
      records_[child].state = NodeState::kPending;
      todo.push_back(child);
    }
  }
  std::vector<NodeFire> fires;
  Ended(i, output ? NodeState::kSucceeded : NodeState::kSkipped, 200, output.value_or(""), fires);
  return fires;
}

Outcome WorkflowRun::outcome() const {
  if (cancelled_) return Outcome::kCancelled;
  bool failed = false;
  for (size_t i = 0; i < records_.size(); ++i) {
    const NodeState s = records_[i].state;
    if (!HasEnded(s)) return Outcome::kRunning;
    if (s != NodeState::kFailed) continue;
    bool handled = false;
    for (int e : out_[i]) {
      const When w = dag_->edges[e].when;
      handled = handled || w == When::kFailure || w == When::kCompletion;
    }
    failed = failed || !handled;
  }
  return failed ? Outcome::kFailed : Outcome::kSucceeded;
}

std::vector<std::pair<std::string, std::string>> WorkflowRun::Inputs(
    const std::string& node) const {
  std::vector<std::pair<std::string, std::string>> inputs;
  auto it = index_.find(node);
  if (it == index_.end()) return inputs;
  for (int e : in_[it->second]) {
    const std::string& parent = dag_->edges[e].from;
    inputs.emplace_back(parent, records_[index_.at(parent)].output);
  }
  return inputs;
}

}  // namespace gnomon::scheduler::workflow

// WorkflowRun: the state of one run of a workflow's DAG, and what to fire
// next. It does no I/O: the caller fires the nodes it returns (each once per
// attempt: the store's unique key is workflow run, node, attempt), tells it
// each run's final result (after the job's retries), and stores the node
// records it keeps, from which a replica taking over rebuilds it.
//
//   WorkflowRun run(dag);                        // a validated Dag
//   for (const NodeFire& f : run.Start()) ... fire job f.job_id for node f.node ...
//   std::vector<NodeFire> next = run.ShardEnded("extract_eu", 1, 0, 1, {.handle_code = 200});
//   run.outcome();  // kRunning until no node is pending or running
//
// The rules. A node runs once all of its parents have ended and every edge
// into it holds: "success" if the parent succeeded (or was skipped by hand),
// "failure" if it failed, "completion" either way, "true"/"false" if the
// condition parent held or not. If its parents have all ended and some edge
// does not hold, the node is bypassed (it does not run), and so, in turn,
// may its children: a branch not taken is bypassed to its end. A sharded
// node ends when all of its shards have: it succeeded if every shard did;
// its handle code is its first failed shard's (else 200) and its output its
// shards' outputs in shard order, one per line. A condition node is decided
// at once on its one parent's handle code or output (Holds). The run
// succeeds when nothing is left to run and every failed node had an edge
// taken on its failure (it was handled); it fails otherwise.
//
// Thread safety: none; one owner.
#ifndef GNOMON_SERVICES_SCHEDULER_WORKFLOW_WORKFLOW_RUN_H_
#define GNOMON_SERVICES_SCHEDULER_WORKFLOW_WORKFLOW_RUN_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "services/scheduler/workflow/dag.h"

namespace gnomon::scheduler::workflow {

enum class NodeState {
  kPending,    // Waiting for its parents.
  kRunning,    // Fired; its result awaited.
  kSucceeded,  // Ran and succeeded, or marked succeeded by hand.
  kFailed,     // Ran and failed (after its job's retries).
  kSkipped,    // Skipped by hand: its children see it as succeeded, with no output.
  kBypassed,   // Not run: an edge into it did not hold.
  kCancelled,  // The run was cancelled before it ended.
};
const char* NodeStateName(NodeState s);

enum class Outcome { kRunning, kSucceeded, kFailed, kCancelled };

// A run's (or shard's) final result.
struct NodeResult {
  int32_t handle_code = 200;  // 200: success.
  std::string output;
};

// What a node is, as stored: enough to rebuild the run after a takeover.
struct NodeRecord {
  NodeState state = NodeState::kPending;
  int attempt = 0;  // Times fired (a rerun fires it again as attempt + 1).
  int32_t handle_code = 0;
  std::string output;
  bool holds = false;                // A condition node's verdict.
  int shard_total = 0;               // Known once a shard ended.
  std::map<int, NodeResult> shards;  // Ended shards of the current attempt.
};

// A node to fire: its job, as attempt `attempt` of the node.
struct NodeFire {
  std::string node;
  int64_t job_id = 0;
  int attempt = 1;
};

class WorkflowRun {
 public:
  // A new run of `dag` (validated).
  explicit WorkflowRun(std::shared_ptr<const Dag> dag);
  // A run rebuilt from its stored records (one per node, in the dag's order).
  WorkflowRun(std::shared_ptr<const Dag> dag, std::vector<NodeRecord> records, bool cancelled);

  // The nodes without parents.
  std::vector<NodeFire> Start();
  // Shard `shard` of `shard_total` of node `node`'s attempt `attempt` ended
  // with `result` (its final attempt: the job's retries are done). The nodes
  // that can run now. A result for another attempt, for a node not running,
  // or for a shard already ended changes nothing.
  std::vector<NodeFire> ShardEnded(const std::string& node, int attempt, int shard, int shard_total,
                                   const NodeResult& result);

  // Cancels the run: nodes not yet run are cancelled, and the running ones,
  // returned (for the caller to kill), end cancelled (their results are
  // then ignored). FailedPrecondition if the run has ended.
  absl::StatusOr<std::vector<std::string>> Cancel();
  // Runs `node` again, and everything after it: they are pending again
  // (their next fire is a new attempt). FailedPrecondition if `node` has
  // not ended or one of those is running; NotFound for no such node.
  absl::StatusOr<std::vector<NodeFire>> RerunFrom(const std::string& node);
  // Skips a pending or failed node by hand: it will not run (again), and
  // its children see it as succeeded.
  absl::StatusOr<std::vector<NodeFire>> Skip(const std::string& node);
  // Marks a pending or failed node succeeded by hand, with `output`.
  absl::StatusOr<std::vector<NodeFire>> MarkSucceeded(const std::string& node,
                                                      const std::string& output);

  Outcome outcome() const;
  bool cancelled() const { return cancelled_; }
  const Dag& dag() const { return *dag_; }
  // In the dag's order.
  const std::vector<NodeRecord>& records() const { return records_; }
  const NodeRecord* Find(const std::string& node) const;
  // What `node` gets as input: each parent's name and output, in edge order.
  std::vector<std::pair<std::string, std::string>> Inputs(const std::string& node) const;

 private:
  void Index();
  absl::StatusOr<int> IndexOf(const std::string& node) const;
  // Node `i` has ended: settles its children (and theirs), collecting fires.
  void Settle(int i, std::vector<NodeFire>& fires);
  // Node `i` is pending and its parents may all have ended: runs it,
  // bypasses it, or leaves it.
  void Consider(int i, std::vector<NodeFire>& fires);
  bool EdgeHolds(const Edge& e, int parent) const;
  // Skip (no output) or MarkSucceeded.
  absl::StatusOr<std::vector<NodeFire>> EndByHand(const std::string& node,
                                                  const std::optional<std::string>& output);
  // Node `i` ended (from running, or by hand): its children are considered.
  void Ended(int i, NodeState state, int32_t handle_code, std::string output,
             std::vector<NodeFire>& fires);

  std::shared_ptr<const Dag> dag_;
  std::vector<NodeRecord> records_;
  bool cancelled_ = false;
  absl::flat_hash_map<std::string, int> index_;
  std::vector<std::vector<int>> in_;   // Edge indices into each node.
  std::vector<std::vector<int>> out_;  // Edge indices out of each node.
};

}  // namespace gnomon::scheduler::workflow

#endif  // GNOMON_SERVICES_SCHEDULER_WORKFLOW_WORKFLOW_RUN_H_

// A workflow's graph: named nodes (each a job of the workflow's group, or a
// condition on its one parent's result) and edges meaning "after success",
// "after failure", "after completion" or, from a condition, "if true" /
// "if false". Validate refuses what cannot run, naming the field.
//
//   Dag dag;
//   dag.nodes = {{.name = "extract_eu", .job_id = 11}, {.name = "merge", .job_id = 14},
//                {.name = "has_rows", .condition = Condition{Subject::kOutput, Op::kGt, "0"}}};
//   dag.edges = {{"extract_eu", "merge"}, {"merge", "has_rows"},
//                {"has_rows", "publish", When::kTrue}};
//   absl::Status ok = Validate(dag, group_id, [&](int64_t job) { return GroupOfJob(job); });
//
// Thread safety: plain values.
#ifndef GNOMON_SERVICES_SCHEDULER_WORKFLOW_DAG_H_
#define GNOMON_SERVICES_SCHEDULER_WORKFLOW_DAG_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace gnomon::scheduler::workflow {

// What an edge waits for in its parent.
enum class When {
  kSuccess,     // The parent succeeded (or was skipped by hand).
  kFailure,     // The parent failed (after its retries).
  kCompletion,  // The parent ended either way.
  kTrue,        // From a condition node: it held.
  kFalse,       // From a condition node: it did not.
};

// A test of a condition node's parent's result.
enum class Subject {
  kHandleCode,  // The run's handle code (200 on success), as a number.
  kOutput,      // The value the handler returned (ctx.SetOutput), as text or a number.
};
enum class Op {
  kEq,        // Equal (as numbers if both are numbers, else as text).
  kNe,        // Not equal.
  kGt,        // Greater than (numbers only; false if either is not a number).
  kLt,        // Less than (numbers only).
  kContains,  // The subject contains the value as text.
  kNonEmpty,  // The subject is not empty (the value is ignored).
};
struct Condition {
  Subject subject = Subject::kOutput;
  Op op = Op::kNonEmpty;
  std::string value;
};

struct Node {
  // Unique within the workflow: 1 to 64 of letters, digits, '_', '-', '.'.
  std::string name;
  // A job node: the job fired when the node runs (of the workflow's group).
  int64_t job_id = 0;
  // A condition node (job_id 0): evaluated at once on its one parent's result.
  std::optional<Condition> condition;
};

struct Edge {
  std::string from;
  std::string to;
  When when = When::kSuccess;
};

struct Dag {
  std::vector<Node> nodes;
  std::vector<Edge> edges;
};

inline constexpr int kMaxNodes = 1000;
inline constexpr int kMaxEdges = 5000;
inline constexpr size_t kMaxNodeNameBytes = 64;
inline constexpr size_t kMaxConditionValueBytes = 256;

// The group of job `job_id`; nullopt if there is no such job.
using JobGroup = std::function<std::optional<int64_t>(int64_t job_id)>;

// OK if `dag` can run in group `group_id`; else InvalidArgument naming the
// field: "nodes[2].name: ...", "nodes[1].job_id: no job 17", "nodes[1].job_id:
// job 17 is in group 3, not the workflow's group 2", "edges[4].to: no node
// \"x\"", "edges: cycle a -> b -> a", ...
absl::Status Validate(const Dag& dag, int64_t group_id, const JobGroup& job_group);

// Whether `c` holds for a result with `handle_code` and `output`.
bool Holds(const Condition& c, int32_t handle_code, const std::string& output);

}  // namespace gnomon::scheduler::workflow

#endif  // GNOMON_SERVICES_SCHEDULER_WORKFLOW_DAG_H_

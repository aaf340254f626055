#include "services/scheduler/workflow/dag.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/server/field_checks.h"

namespace gnomon::scheduler::workflow {
namespace {

using checks::Indexed;
using checks::Invalid;
using checks::Prefix;

absl::Status CheckNode(const Node& n, int i, int64_t group_id, const JobGroup& job_group) {
  const std::string field = Indexed("nodes", i);
  if (absl::Status s = checks::CheckString(absl::StrCat(field, ".name"), n.name, kMaxNodeNameBytes,
                                           checks::Charset::kName, 1);
      !s.ok()) {
    return s;
  }
  if ((n.job_id != 0) == n.condition.has_value()) {
    return Invalid(field, "a node is either a job (job_id) or a condition, exactly one");
  }
  if (n.condition) {
    return checks::CheckText(absl::StrCat(field, ".condition.value"), n.condition->value,
                             kMaxConditionValueBytes);
  }
  const std::string job_field = absl::StrCat(field, ".job_id");
  if (n.job_id < 0) return Invalid(job_field, "must be positive");
  const std::optional<int64_t> group = job_group(n.job_id);
  if (!group) return Invalid(job_field, absl::StrCat("no job ", n.job_id));
  if (*group != group_id) {
    return Invalid(job_field, absl::StrCat("job ", n.job_id, " is in group ", *group,
                                           ", not the workflow's group ", group_id));
  }
  return absl::OkStatus();
}

// A cycle through the edges as "a -> b -> a", or "" if there is none.
std::string CycleOf(const std::vector<std::string>& names,
                    const std::vector<std::vector<int>>& children) {
  enum Mark { kNew, kOnPath, kDone };
  std::vector<Mark> mark(names.size(), kNew);
  std::vector<int> path;
  // Iterative depth-first search: (node, next child index).
  for (size_t root = 0; root < names.size(); ++root) {
    if (mark[root] != kNew) continue;
    std::vector<std::pair<int, size_t>> stack = {{static_cast<int>(root), 0}};
    mark[root] = kOnPath;
    path = {static_cast<int>(root)};
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next == children[node].size()) {
        mark[node] = kDone;
        stack.pop_back();
        path.pop_back();
        continue;
      }
      const int child = children[node][next++];
      if (mark[child] == kOnPath) {
        std::vector<std::string> cycle;
        size_t start = 0;
        while (path[start] != child) ++start;
        for (size_t k = start; k < path.size(); ++k) cycle.push_back(names[path[k]]);
        cycle.push_back(names[child]);
        return absl::StrJoin(cycle, " -> ");
      }
      if (mark[child] == kNew) {
        mark[child] = kOnPath;
        path.push_back(child);
        stack.push_back({child, 0});
      }
    }
  }
  return "";
}

// A number, if `s` is one.
std::optional<double> Number(const std::string& s) {
  double d = 0;
  if (!absl::SimpleAtod(s, &d)) return std::nullopt;
  return d;
}

}  // namespace

absl::Status Validate(const Dag& dag, int64_t group_id, const JobGroup& job_group) {
  if (absl::Status s =
          checks::CheckCount("nodes", static_cast<int>(dag.nodes.size()), kMaxNodes, 1);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = checks::CheckCount("edges", static_cast<int>(dag.edges.size()), kMaxEdges);
      !s.ok()) {
    return s;
  }
  absl::flat_hash_map<std::string, int> index;
  std::vector<std::string> names;
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    const Node& n = dag.nodes[i];
    if (absl::Status s = CheckNode(n, static_cast<int>(i), group_id, job_group); !s.ok()) return s;
    if (!index.emplace(n.name, static_cast<int>(i)).second) {
      return Invalid(absl::StrCat(Indexed("nodes", static_cast<int>(i)), ".name"),
                     absl::StrCat(Prefix(n.name), " names two nodes"));
    }
    names.push_back(n.name);
  }
  std::vector<std::vector<int>> children(dag.nodes.size());
  std::vector<int> parents(dag.nodes.size(), 0);
  absl::flat_hash_set<std::pair<int, int>> seen;
  for (size_t i = 0; i < dag.edges.size(); ++i) {
    const Edge& e = dag.edges[i];
    const std::string field = Indexed("edges", static_cast<int>(i));
    auto from = index.find(e.from);
    if (from == index.end()) {
      return Invalid(absl::StrCat(field, ".from"), absl::StrCat("no node ", Prefix(e.from)));
    }
    auto to = index.find(e.to);
    if (to == index.end()) {
      return Invalid(absl::StrCat(field, ".to"), absl::StrCat("no node ", Prefix(e.to)));
    }
    if (from->second == to->second) {
      return Invalid(field, absl::StrCat(Prefix(e.from), " cannot wait for itself"));
    }
    if (!seen.insert({from->second, to->second}).second) {
      return Invalid(field,
                     absl::StrCat("a second edge from ", Prefix(e.from), " to ", Prefix(e.to)));
    }
    const bool branch = e.when == When::kTrue || e.when == When::kFalse;
    const bool from_condition = dag.nodes[from->second].condition.has_value();
    if (branch != from_condition) {
      return Invalid(absl::StrCat(field, ".when"),
                     from_condition ? "an edge from a condition is taken if it is true or false"
                                    : "only an edge from a condition is taken if true or false");
    }
    children[from->second].push_back(to->second);
    ++parents[to->second];
  }
  for (size_t i = 0; i < dag.nodes.size(); ++i) {
    if (dag.nodes[i].condition && parents[i] != 1) {
      return Invalid(
          Indexed("nodes", static_cast<int>(i)),
          absl::StrCat("condition ", Prefix(dag.nodes[i].name),
                       " needs exactly one parent, whose result it tests; it has ", parents[i]));
    }
  }
  if (const std::string cycle = CycleOf(names, children); !cycle.empty()) {
    return Invalid("edges", absl::StrCat("cycle ", cycle));
  }
  return absl::OkStatus();
}

bool Holds(const Condition& c, int32_t handle_code, const std::string& output) {
  const std::string subject =
      c.subject == Subject::kHandleCode ? std::to_string(handle_code) : output;
  const std::optional<double> a = Number(subject);
  const std::optional<double> b = Number(c.value);
  switch (c.op) {
    case Op::kEq:
      return a && b ? *a == *b : subject == c.value;
    case Op::kNe:
      return a && b ? *a != *b : subject != c.value;
    case Op::kGt:
      return a && b && *a > *b;
    case Op::kLt:
      return a && b && *a < *b;
    case Op::kContains:
      return subject.find(c.value) != std::string::npos;
    case Op::kNonEmpty:
      return !subject.empty();
  }
  return false;
}

}  // namespace gnomon::scheduler::workflow

// The workflow of the issue that asked for workflows, for tests: "load the
// three regional extracts in parallel, then merge them once all three
// succeeded, then publish, but only if the merge produced rows; on failure
// page someone". Jobs 1 to 6.
#ifndef GNOMON_SERVICES_SCHEDULER_WORKFLOW_TESTING_REGIONAL_H_
#define GNOMON_SERVICES_SCHEDULER_WORKFLOW_TESTING_REGIONAL_H_

#include <string>
#include <utility>

#include "services/scheduler/workflow/dag.h"

namespace gnomon::scheduler::workflow::testing {

inline Node JobNode(std::string name, int64_t job) {
  return {.name = std::move(name), .job_id = job};
}

inline Dag Regional() {
  Dag d;
  d.nodes = {JobNode("extract_eu", 1),
             JobNode("extract_us", 2),
             JobNode("extract_apac", 3),
             JobNode("merge", 4),
             {.name = "has_rows", .condition = Condition{Subject::kOutput, Op::kGt, "0"}},
             JobNode("publish", 5),
             JobNode("page", 6)};
  d.edges = {{"extract_eu", "merge"},
             {"extract_us", "merge"},
             {"extract_apac", "merge"},
             {"merge", "has_rows"},
             {"has_rows", "publish", When::kTrue},
             {"merge", "page", When::kFailure}};
  return d;
}

}  // namespace gnomon::scheduler::workflow::testing

#endif  // GNOMON_SERVICES_SCHEDULER_WORKFLOW_TESTING_REGIONAL_H_

// The engine's view of the API's workflow messages (gnomon/v1/workflow.proto)
// and back: a Workflow's graph as a Dag, a WorkflowRun's nodes as the
// engine's records.
//
//   absl::StatusOr<Dag> dag = DagOf(workflow);   // InvalidArgument for an unknown enum value
//   WorkflowRun engine(std::make_shared<const Dag>(*dag), RecordsOf(stored), stored.cancelled());
//   ... engine.ShardEnded(...) ...
//   SaveTo(engine, &stored);                       // nodes, cancelled and status
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_SCHEDULER_WORKFLOW_WORKFLOW_PROTO_H_
#define GNOMON_SERVICES_SCHEDULER_WORKFLOW_WORKFLOW_PROTO_H_

#include <vector>

#include "absl/status/statusor.h"
#include "gnomon/v1/workflow.pb.h"
#include "services/scheduler/workflow/dag.h"
#include "services/scheduler/workflow/workflow_run.h"

namespace gnomon::scheduler::workflow {

// The workflow's graph; InvalidArgument naming the field
// ("workflow.edges[3].when") for an enum value this server does not know.
absl::StatusOr<Dag> DagOf(const v1::Workflow& workflow);
// A run's nodes as records, in `dag`'s order (a node the run lacks is pending).
std::vector<NodeRecord> RecordsOf(const v1::WorkflowRun& run, const Dag& dag);
// Writes the engine's nodes (in the dag's order), whether it was cancelled
// and the status its outcome gives into `run`.
void SaveTo(const WorkflowRun& engine, v1::WorkflowRun* run);

}  // namespace gnomon::scheduler::workflow

#endif  // GNOMON_SERVICES_SCHEDULER_WORKFLOW_WORKFLOW_PROTO_H_

// Workflows and groups as typed on the gnomonctl command line, and finding
// them. A workflow is named as a job is: its id ("3"), "APP/NAME", or a NAME
// unique among the groups the caller can see (--group APP narrows it). The
// server takes workflow ids only, so names are looked up here with
// ListWorkflows.
//
//   absl::StatusOr<WorkflowArg> which = PositionalWorkflow(c.args());
//   v1::Workflow workflow;
//   grpc::Status s = FindWorkflow(c, *which, &workflow);
//   // NOT_FOUND naming it, or INVALID_ARGUMENT listing the groups of an
//   // ambiguous name.
//
// Thread safety: functions of one CommandContext, on its thread.
#ifndef GNOMON_CLI_WORKFLOW_LOOKUP_H_
#define GNOMON_CLI_WORKFLOW_LOOKUP_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/command.h"
#include "cli/flags.h"
#include "gnomon/v1/workflow.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli {

// A workflow as typed.
struct WorkflowArg {
  // Or, when 0, `name` in group `group` (an app name or a group id; empty:
  // any group the caller sees).
  int64_t id = 0;
  std::string group;
  std::string name;

  // "3", "etl/nightly" or "nightly", as typed.
  std::string ToString() const;
};
absl::StatusOr<WorkflowArg> ParseWorkflowArg(std::string_view text);
// The one positional argument, a workflow, with --group APP when given.
absl::StatusOr<WorkflowArg> PositionalWorkflow(const ParsedArgs& args);
// The --group flag of the commands that name a workflow.
FlagSpec WorkflowGroupFlag();

// Every group the caller can see, by id.
grpc::Status GroupsById(CommandContext& c, std::map<int64_t, v1::Group>* groups);
// The id of the group `text` names: a number is an id, anything else an app
// name looked up with ListGroups (NOT_FOUND if no group has it).
grpc::Status ResolveGroup(CommandContext& c, std::string_view text, int64_t* group_id);
// The workflows of `group_id`; 0: of every group the caller can see.
grpc::Status ListWorkflowsOf(CommandContext& c, int64_t group_id,
                             std::vector<v1::Workflow>* workflows);
// The workflow `which` names.
grpc::Status FindWorkflow(CommandContext& c, const WorkflowArg& which, v1::Workflow* workflow);
// Its id, without a call when it was given as an id.
grpc::Status WorkflowId(CommandContext& c, const WorkflowArg& which, int64_t* id);

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_WORKFLOW_LOOKUP_H_

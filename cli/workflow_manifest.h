// Workflows as apply documents: `kind: Workflow` v1.Manifests, keyed by
// (app, workflow.name), whose nodes name their jobs by job_name (jobs of the
// same group), so the same files apply to any cluster. apply
// (apply_commands.cc) checks them with CheckWorkflowManifest and applies them
// with ApplyWorkflow after every group and job; `get workflow|workflows`
// prints them, so its output applies back unchanged.
//
//   std::string outcome;
//   grpc::Status s = ApplyWorkflow(c, manifest, group_id, /*dry_run=*/false, &outcome);
//   // outcome: "created", "configured" or "unchanged", then ", started" or
//   // ", stopped" when the document's state changed the workflow's.
//
// Thread safety: functions of one CommandContext, on its thread.
#ifndef GNOMON_CLI_WORKFLOW_MANIFEST_H_
#define GNOMON_CLI_WORKFLOW_MANIFEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cli/command.h"
#include "gnomon/v1/manifest.pb.h"
#include "gnomon/v1/workflow.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli {

// What the server cannot check in a Workflow document: app and
// workflow.name given, and every node a condition or naming its job by
// job_name (ids are ignored in documents). InvalidArgument naming the field.
absl::Status CheckWorkflowManifest(const v1::Manifest& manifest);

// A workflow's declaration: no id, group or times, job nodes by job_name
// only (job_id cleared).
v1::Workflow DeclaredWorkflow(v1::Workflow workflow);

// Creates the declared workflow in `group_id`, or updates the one of that
// name there (a `group_id` of 0 is a group a dry run would create: nothing
// is read). An unspecified state creates it stopped and leaves an existing
// one's as it is.
grpc::Status ApplyWorkflow(CommandContext& c, const v1::Manifest& manifest, int64_t group_id,
                           bool dry_run, std::string* outcome);

// get workflow WORKFLOW and get workflows [--group APP]; part of the `get`
// noun's table (ApplyCommands).
std::vector<Command> WorkflowGetCommands();

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_WORKFLOW_MANIFEST_H_

// Pools as apply documents: `kind: Pool` v1.Manifests keyed by pool.name.
// apply (apply_commands.cc) applies them with ApplyPool before every group,
// job and workflow (after the calendars and alarm channels), so a job may
// name a pool its file declares; `get pool|pools` prints them, so its
// output applies back unchanged.
//
//   std::string outcome;
//   grpc::Status s = ApplyPool(c, manifest, /*dry_run=*/false, &outcome);
//   // outcome: "created", "configured" or "unchanged"
//
// Thread safety: functions of one CommandContext, on its thread.
#ifndef GNOMON_CLI_POOL_MANIFEST_H_
#define GNOMON_CLI_POOL_MANIFEST_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cli/command.h"
#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/manifest.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli {

// What the server cannot check in a Pool document: pool.name given, and no
// app (pools belong to no group). InvalidArgument naming the field.
absl::Status CheckPoolManifest(const v1::Manifest& manifest);

// A pool's declaration: no id, times or counts (running, queued).
v1::Pool DeclaredPool(v1::Pool pool);

// Creates the declared pool, or replaces the description and slots of the
// one of that name when they differ from the declaration. A dry run reads
// but changes nothing.
grpc::Status ApplyPool(CommandContext& c, const v1::Manifest& manifest, bool dry_run,
                       std::string* outcome);

// get pool NAME and get pools; part of the `get` noun's table
// (ApplyCommands).
std::vector<Command> PoolGetCommands();

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_POOL_MANIFEST_H_

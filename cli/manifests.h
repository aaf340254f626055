// What the apply documents of every kind share (apply_commands.cc,
// calendar_manifest.h, alarm_channel_manifest.h, workflow_manifest.h):
// printing v1.Manifests as `get` does, and the read-compare-write pass apply
// makes for an object kept by name.
//
//   v1::Calendar current;
//   ByNameCalls calls;
//   calls.get = [&] { return Get(name, &current); };
//   calls.unchanged = [&] { return Same(current, want); };
//   calls.create = [&] { return Create(want); };
//   calls.replace = [&] { return Update(want); };
//   std::string outcome;  // "created", "configured" or "unchanged"
//   grpc::Status s = ApplyByName(calls, dry_run, &outcome);
//
// Thread safety: functions of one CommandContext, on its thread.
#ifndef GNOMON_CLI_MANIFESTS_H_
#define GNOMON_CLI_MANIFESTS_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "cli/command.h"
#include "gnomon/v1/manifest.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli {

// Prints `docs` as YAML documents, "---" between them; kExitOk, or
// kExitError (printed) when one cannot be converted.
int PrintManifests(CommandContext& c, const std::vector<v1::Manifest>& docs);

// What the server cannot check in a document of an object that belongs to
// no group (a calendar, an alarm channel): its name given, and no app.
// InvalidArgument naming the field: "calendar.name is required", "app:
// calendars belong to no group; remove app" (`plural`: "calendars").
absl::Status CheckUngroupedManifest(const v1::Manifest& manifest, std::string_view field,
                                    std::string_view name, std::string_view plural);

// The calls apply makes for one document of an object kept by name.
struct ByNameCalls {
  // Reads the stored object (into the caller's state); NOT_FOUND when there
  // is none.
  std::function<grpc::Status()> get;
  // After a successful `get`: whether the stored object already is what the
  // document declares.
  std::function<bool()> unchanged;
  // Creates the declared object; `get` found none.
  std::function<grpc::Status()> create;
  // Replaces the stored object by the declared one.
  std::function<grpc::Status()> replace;
  // Optional: after `get`, whether the document can create (`exists`
  // false) or replace the object, checked in a dry run too; unset: it can.
  std::function<grpc::Status(bool exists)> check;
};

// Reads the object and creates it, replaces it or leaves it as it is,
// saying which in `outcome`; a dry run reads and checks but changes nothing.
grpc::Status ApplyByName(const ByNameCalls& calls, bool dry_run, std::string* outcome);

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_MANIFESTS_H_

// Alarm channels as apply documents: `kind: AlarmChannel` v1.Manifests keyed
// by alarm_channel.name. apply (apply_commands.cc) applies them with
// ApplyAlarmChannel before every group, job and workflow (after the
// calendars), so a job may name a channel its file declares; `get
// alarm-channel|alarm-channels` prints them.
//
// The API never shows a channel's secret and shows its url as the origin
// only, so a document is compared with what it can see: an empty secret and
// an empty url, or the url's origin as `get` printed it, keep the stored
// ones (the exported document applies back `unchanged`); a document that
// carries a secret or a full url is sent each time ("configured"), as apply
// cannot tell whether they changed.
//
//   std::string outcome;
//   grpc::Status s = ApplyAlarmChannel(c, manifest, /*dry_run=*/false, &outcome);
//   // outcome: "created", "configured" or "unchanged"
//
// Thread safety: functions of one CommandContext, on its thread.
#ifndef GNOMON_CLI_ALARM_CHANNEL_MANIFEST_H_
#define GNOMON_CLI_ALARM_CHANNEL_MANIFEST_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cli/command.h"
#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/manifest.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::cli {

// What the server cannot check in an AlarmChannel document:
// alarm_channel.name given, and no app. InvalidArgument naming the field.
absl::Status CheckAlarmChannelManifest(const v1::Manifest& manifest);

// A channel's declaration: no id, has_secret or times.
v1::AlarmChannel DeclaredAlarmChannel(v1::AlarmChannel channel);

// Creates the declared channel, or replaces the one of that name when it
// differs from the declaration (see above). A document creating a channel
// of a robot (not Telegram) with a url that is an origin only (what `get`
// prints) is refused: the robot's webhook has a path. A dry run reads but
// changes nothing.
grpc::Status ApplyAlarmChannel(CommandContext& c, const v1::Manifest& manifest, bool dry_run,
                               std::string* outcome);

// get alarm-channel NAME and get alarm-channels; part of the `get` noun's
// table (ApplyCommands).
std::vector<Command> AlarmChannelGetCommands();

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_ALARM_CHANNEL_MANIFEST_H_

// Turns parsed gnomonctl command lines into JobAdmin request messages.
//
// These are pure functions so every command's argument handling can be tested
// without a server:
//
//   ParsedArgs args = *ParseFlags({"7", "--params", "x"}, TriggerFlagSpecs());
//   absl::StatusOr<v1::TriggerJobRequest> req = BuildTriggerJobRequest(args);
//   // req->job_id() == 7, req->params() == "x", trigger_type MANUAL
//
// `args` holds what follows the noun and verb ("job trigger"). Errors are
// absl::InvalidArgumentError describing the mistake (a usage error).
// Thread safety: pure functions.
#ifndef GNOMON_CLI_REQUESTS_H_
#define GNOMON_CLI_REQUESTS_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "cli/flags.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/common.pb.h"
#include "gnomon/v1/log.pb.h"

namespace gnomon::cli {

// Reads a script file named on the command line.
using FileReader = std::function<absl::StatusOr<std::string>(const std::string& path)>;
// Looks up an environment variable (nullopt when unset).
using EnvReader = std::function<std::optional<std::string>(const std::string& name)>;
// Reads from the local file system.
absl::StatusOr<std::string> ReadLocalFile(const std::string& path);

// Checks that exactly `names.size()` positionals were given.
absl::Status ExpectPositionals(const ParsedArgs& args, const std::vector<std::string>& names);
// The single positional ID argument.
// A job as typed: its id ("7"), "APP/NAME", or a NAME unique among the
// groups the caller can see.
struct JobArg {
  int64_t id = 0;  // Or, when 0, name.
  v1::JobName name;

  // Sets job_id or job_name of a request that has both.
  template <typename Request>
  void SetOn(Request* r) const {
    if (id != 0) {
      r->set_job_id(id);
    } else {
      *r->mutable_job_name() = name;
    }
  }
  // "7", "billing/nightly" or "nightly", as typed.
  std::string ToString() const;
};
absl::StatusOr<JobArg> ParseJobArg(std::string_view text);
// The one positional argument, a job.
absl::StatusOr<JobArg> PositionalJob(const ParsedArgs& args);

absl::StatusOr<int64_t> PositionalId(const ParsedArgs& args, std::string_view what);
// The one positional NAME of an object kept by name (a calendar, an alarm
// channel); an empty one is an error.
absl::StatusOr<std::string> PositionalName(const ParsedArgs& args);

// Replaces the repeated string field `field` by the items of flag `name`
// (comma lists, repeatable; '' empties it), only if the flag was given.
void ReplaceListFlag(const ParsedArgs& args, std::string_view name,
                     google::protobuf::RepeatedPtrField<std::string>* field);
// For an update: OK when at least one of `specs` was given, else "nothing to
// change: give --a, --b or --c".
absl::Status ExpectSomeFlag(const ParsedArgs& args, const std::vector<FlagSpec>& specs);

std::vector<FlagSpec> GroupCreateFlagSpecs();
std::vector<FlagSpec> GroupUpdateFlagSpecs();
// group create APP [--title T] [--addresses a:1,b:2]
absl::StatusOr<v1::CreateGroupRequest> BuildCreateGroupRequest(const ParsedArgs& args);
// group update ID [--title T] [--addresses ...|--auto]
absl::StatusOr<v1::UpdateGroupRequest> BuildUpdateGroupRequest(const ParsedArgs& args);

// Flags of job create / job update (the same set).
std::vector<FlagSpec> JobFlagSpecs();
// Applies the job flags in `args` to `job`. With `creating`, a task, a
// schedule kind and --group are required; otherwise only given flags change.
absl::Status ApplyJobFlags(const ParsedArgs& args, bool creating, const FileReader& read_file,
                           v1::Job* job);
// job create ...
absl::StatusOr<v1::CreateJobRequest> BuildCreateJobRequest(const ParsedArgs& args,
                                                           const FileReader& read_file);

// Flags of calendar create / calendar update (the same set): --zone,
// --weekdays, --exclude, --include, --window, --description.
std::vector<FlagSpec> CalendarFlagSpecs();
// Applies the calendar flags in `args` to `calendar`: each given flag
// replaces its field ('' empties it), the others stay. A weekday that is
// not MON..SUN is an error naming --weekdays; dates and windows are the
// server's to check.
absl::Status ApplyCalendarFlags(const ParsedArgs& args, v1::Calendar* calendar);
// calendar create NAME [calendar flags]
absl::StatusOr<v1::CreateCalendarRequest> BuildCreateCalendarRequest(const ParsedArgs& args);

// Flags of alarm-channel create / alarm-channel update (the same set):
// --kind, --url, --secret-env, --secret-file, --chat-id, --template,
// --template-file.
std::vector<FlagSpec> AlarmChannelFlagSpecs();
// Applies the alarm channel flags in `args` to `channel`: each given flag
// replaces its field, the others stay. The secret is never a flag's value
// (shell history, ps): --secret-env names a variable `getenv` reads,
// --secret-file a file `read_file` reads (its trailing newline dropped); an
// unset, empty or unreadable one is an error naming the flag, as is an empty
// --url (the server keeps the stored url when none is sent).
absl::Status ApplyAlarmChannelFlags(const ParsedArgs& args, const EnvReader& getenv,
                                    const FileReader& read_file, v1::AlarmChannel* channel);
// alarm-channel create NAME --kind KIND [alarm channel flags]
absl::StatusOr<v1::CreateAlarmChannelRequest> BuildCreateAlarmChannelRequest(
    const ParsedArgs& args, const EnvReader& getenv, const FileReader& read_file);

// Flags of pool create / pool update (the same set): --slots, --description.
std::vector<FlagSpec> PoolFlagSpecs();
// Applies the pool flags in `args` to `pool`: each given flag replaces its
// field, the others stay. --slots must be a positive integer (the server
// checks the range, 1 to 10000).
absl::Status ApplyPoolFlags(const ParsedArgs& args, v1::Pool* pool);
// pool create NAME --slots N [--description TEXT]
absl::StatusOr<v1::CreatePoolRequest> BuildCreatePoolRequest(const ParsedArgs& args);
// pool queue NAME [--limit N]: the flags, and the request (limit 0, the
// server's default, without --limit).
std::vector<FlagSpec> PoolQueueFlagSpecs();
absl::StatusOr<v1::ListPoolQueueRequest> BuildListPoolQueueRequest(const ParsedArgs& args);

std::vector<FlagSpec> JobListFlagSpecs();
// job list [--group ID]
absl::StatusOr<v1::ListJobsRequest> BuildListJobsRequest(const ParsedArgs& args);

std::vector<FlagSpec> TriggerFlagSpecs();
// job trigger ID [--params P] [--executors a:1,b:2] [--shard N]
absl::StatusOr<v1::TriggerJobRequest> BuildTriggerJobRequest(const ParsedArgs& args);

std::vector<FlagSpec> BackfillFlagSpecs();
// job backfill ID --from RFC3339 --to RFC3339
absl::StatusOr<v1::BackfillRequest> BuildBackfillRequest(const ParsedArgs& args);

std::vector<FlagSpec> RunListFlagSpecs();
// run list [--job ID] [--group ID] [--workflow-run ID] [--status S,...] [--since T|1h]; `now`
// resolves a relative --since. The limit is returned separately.
absl::StatusOr<v1::ListRunsRequest> BuildListRunsRequest(const ParsedArgs& args, absl::Time now);
// --limit N of run list; 50 when absent.
absl::StatusOr<int> RunListLimit(const ParsedArgs& args);

// `flags` and --role (admin, operator, viewer; `default_role` when absent),
// --group ID (repeatable) and --all-groups, as a token or user takes them.
std::vector<FlagSpec> WithRoleFlags(std::vector<FlagSpec> flags);
absl::Status ParseRoleAndGrants(const ParsedArgs& args, v1::Role default_role, v1::Role* role,
                                v1::Grants* grants);
// The value of --NAME as a positive duration; nullopt without the flag.
absl::StatusOr<std::optional<absl::Duration>> ParsePositiveDurationFlag(const ParsedArgs& args,
                                                                        const std::string& name);
// --ttl DUR (positive) into the request's ttl; left unset without the flag.
template <typename Request>
absl::Status ParseTtlFlag(const ParsedArgs& args, Request* req) {
  absl::StatusOr<std::optional<absl::Duration>> ttl = ParsePositiveDurationFlag(args, "ttl");
  if (!ttl.ok()) return ttl.status();
  if (*ttl) req->mutable_ttl()->set_seconds(absl::ToInt64Seconds(**ttl));
  return absl::OkStatus();
}
// "all groups", "groups 1, 4" or "" (admin: every group anyway).
std::string GrantsText(v1::Role role, const v1::Grants& grants);

}  // namespace gnomon::cli

#endif  // GNOMON_CLI_REQUESTS_H_

#include "cli/requests.h"

#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/format.h"
#include "cli/names.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cli {

absl::StatusOr<std::string> ReadLocalFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read ", path));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

absl::Status ExpectPositionals(const ParsedArgs& args, const std::vector<std::string>& names) {
  const auto& given = args.positionals();
  if (given.size() < names.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("missing ", absl::StrJoin(names.begin() + given.size(), names.end(), " ")));
  }
  if (given.size() > names.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unexpected argument '", given[names.size()], "'"));
  }
  return absl::OkStatus();
}

std::string JobArg::ToString() const {
  if (id != 0) return absl::StrCat(id);
  return name.group().empty() ? name.name() : absl::StrCat(name.group(), "/", name.name());
}

absl::StatusOr<JobArg> ParseJobArg(std::string_view text) {
  JobArg job;
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos) {
    ASSIGN_OR_RETURN(int64_t id, ParseId("JOB", text));
    job.id = id;
    return job;
  }
  const size_t slash = text.find('/');
  std::string_view name = text;
  if (slash != std::string_view::npos) {
    job.name.set_group(std::string(text.substr(0, slash)));
    name = text.substr(slash + 1);
  }
  if (name.empty()) return absl::InvalidArgumentError("JOB: give an id, NAME or GROUP_APP/NAME");
  job.name.set_name(std::string(name));
  return job;
}

absl::StatusOr<JobArg> PositionalJob(const ParsedArgs& args) {
  RETURN_IF_ERROR(ExpectPositionals(args, {"JOB"}));
  return ParseJobArg(args.positionals()[0]);
}

absl::StatusOr<int64_t> PositionalId(const ParsedArgs& args, std::string_view what) {
  RETURN_IF_ERROR(ExpectPositionals(args, {std::string(what)}));
  return ParseId(what, args.positionals()[0]);
}

absl::StatusOr<std::string> PositionalName(const ParsedArgs& args) {
  RETURN_IF_ERROR(ExpectPositionals(args, {"NAME"}));
  if (args.positionals()[0].empty()) return absl::InvalidArgumentError("NAME is empty");
  return args.positionals()[0];
}

void ReplaceListFlag(const ParsedArgs& args, std::string_view name,
                     google::protobuf::RepeatedPtrField<std::string>* field) {
  if (!args.Has(name)) return;
  field->Clear();
  for (std::string& item : SplitList(args.GetAll(name))) *field->Add() = std::move(item);
}

absl::Status ExpectSomeFlag(const ParsedArgs& args, const std::vector<FlagSpec>& specs) {
  std::vector<std::string> names;
  for (const FlagSpec& spec : specs) {
    if (args.Has(spec.name)) return absl::OkStatus();
    names.push_back("--" + spec.name);
  }
  std::string list = names.empty() ? "" : names.back();
  if (names.size() > 1) {
    list = absl::StrCat(absl::StrJoin(names.begin(), names.end() - 1, ", "), " or ", list);
  }
  return absl::InvalidArgumentError(absl::StrCat("nothing to change: give ", list));
}

std::vector<FlagSpec> GroupCreateFlagSpecs() {
  return {
      {"title", "", true, "T", "Human title of the group."},
      {"addresses", "", true, "A,B",
       "Manual group: a fixed list of executor names (name,name) "
       "(default: executors register themselves)."},
  };
}

std::vector<FlagSpec> GroupUpdateFlagSpecs() {
  std::vector<FlagSpec> specs = GroupCreateFlagSpecs();
  specs.push_back(
      {"auto", "", false, "", "Switch to automatic registration (drops the address list)."});
  return specs;
}

absl::StatusOr<v1::CreateGroupRequest> BuildCreateGroupRequest(const ParsedArgs& args) {
  RETURN_IF_ERROR(ExpectPositionals(args, {"APP"}));
  v1::CreateGroupRequest req;
  v1::Group* group = req.mutable_group();
  group->set_app_name(args.positionals()[0]);
  if (auto title = args.Get("title")) group->set_title(*title);
  if (args.Has("addresses")) {
    std::vector<std::string> addresses = SplitList(args.GetAll("addresses"));
    if (addresses.empty()) {
      return absl::InvalidArgumentError("--addresses needs at least one executor name");
    }
    for (auto& a : addresses) group->mutable_manual()->add_addresses(a);
  } else {
    group->mutable_auto_registration();
  }
  return req;
}

absl::StatusOr<v1::UpdateGroupRequest> BuildUpdateGroupRequest(const ParsedArgs& args) {
  ASSIGN_OR_RETURN(int64_t id, PositionalId(args, "ID"));
  v1::UpdateGroupRequest req;
  v1::Group* group = req.mutable_group();
  group->set_id(id);
  if (auto title = args.Get("title")) {
    group->set_title(*title);
    req.mutable_update_mask()->add_paths("title");
  }
  if (args.Has("addresses") && args.Has("auto")) {
    return absl::InvalidArgumentError("give --addresses or --auto, not both");
  }
  if (args.Has("addresses")) {
    std::vector<std::string> addresses = SplitList(args.GetAll("addresses"));
    if (addresses.empty()) {
      return absl::InvalidArgumentError("--addresses needs at least one executor name");
    }
    for (auto& a : addresses) group->mutable_manual()->add_addresses(a);
    req.mutable_update_mask()->add_paths("membership");
  } else if (args.Has("auto")) {
    group->mutable_auto_registration();
    req.mutable_update_mask()->add_paths("membership");
  }
  if (req.update_mask().paths().empty()) {
    return absl::InvalidArgumentError("nothing to change: give --title, --addresses or --auto");
  }
  return req;
}

std::vector<FlagSpec> JobListFlagSpecs() {
  return {{"group", "", true, "ID", "Only jobs of this group."},
          {"name", "", true, "TEXT", "Only jobs whose name contains TEXT (any case)."},
          {"handler", "", true, "TEXT",
           "Only jobs whose handler contains TEXT (\"script\" for script jobs)."},
          {"author", "", true, "TEXT", "Only jobs whose author contains TEXT."},
          {"description", "", true, "TEXT", "Only jobs whose description contains TEXT."},
          {"schedule", "", true, "KIND",
           "Only jobs with this schedule: cron, fix-rate, fix-delay or none."},
          {"state", "", true, "STATE", "Only jobs in this state: running, stopped or paused."}};
}

absl::StatusOr<v1::ListJobsRequest> BuildListJobsRequest(const ParsedArgs& args) {
  RETURN_IF_ERROR(ExpectPositionals(args, {}));
  v1::ListJobsRequest req;
  if (auto group = args.Get("group")) {
    ASSIGN_OR_RETURN(int64_t id, ParseId("--group", *group));
    req.set_group_id(id);
  }
  req.set_name(args.Get("name").value_or(""));
  req.set_handler(args.Get("handler").value_or(""));
  req.set_author(args.Get("author").value_or(""));
  req.set_description(args.Get("description").value_or(""));
  if (auto kind = args.Get("schedule")) {
    ASSIGN_OR_RETURN(v1::ScheduleType t, ParseScheduleType(*kind));
    req.set_schedule_type(t);
  }
  if (auto state = args.Get("state")) {
    ASSIGN_OR_RETURN(v1::JobState s, ParseJobState(*state));
    req.set_state(s);
  }
  return req;
}

std::vector<FlagSpec> TriggerFlagSpecs() {
  return {
      {"params", "", true, "P", "Parameters for this run instead of the job's."},
      {"executors", "", true, "A,B",
       "Route among these of the group's executors only (names, comma-separated)."},
      {"shard", "", true, "N", "Run only shard N (0-based) of a broadcast job."},
  };
}

absl::StatusOr<v1::TriggerJobRequest> BuildTriggerJobRequest(const ParsedArgs& args) {
  ASSIGN_OR_RETURN(JobArg job, PositionalJob(args));
  v1::TriggerJobRequest req;
  job.SetOn(&req);
  req.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
  if (auto params = args.Get("params")) req.set_params(*params);
  for (auto& a : SplitList(args.GetAll("executors"))) {
    req.add_executor_addresses(a);
  }
  if (auto shard = args.Get("shard")) {
    ASSIGN_OR_RETURN(int64_t n, ParseCount("--shard", *shard));
    req.set_shard_index(static_cast<uint32_t>(n));
  }
  return req;
}

std::vector<FlagSpec> BackfillFlagSpecs() {
  return {
      {"from", "", true, "TIME", "First slot included (RFC 3339)."},
      {"to", "", true, "TIME", "Slots before this are included (RFC 3339)."},
  };
}

absl::StatusOr<v1::BackfillRequest> BuildBackfillRequest(const ParsedArgs& args) {
  ASSIGN_OR_RETURN(JobArg job, PositionalJob(args));
  auto from = args.Get("from");
  auto to = args.Get("to");
  if (!from || !to) {
    return absl::InvalidArgumentError("backfill needs --from and --to");
  }
  ASSIGN_OR_RETURN(absl::Time start, ParseTimeFlag("--from", *from));
  ASSIGN_OR_RETURN(absl::Time end, ParseTimeFlag("--to", *to));
  if (end <= start) {
    return absl::InvalidArgumentError("--to must be after --from");
  }
  v1::BackfillRequest req;
  job.SetOn(&req);
  *req.mutable_start_time() = ToTimestamp(start);
  *req.mutable_end_time() = ToTimestamp(end);
  return req;
}

std::vector<FlagSpec> RunListFlagSpecs() {
  return {
      {"job", "", true, "JOB", "Only runs of this job (id, APP/NAME or NAME)."},
      {"group", "", true, "ID", "Only runs of this group."},
      {"status", "", true, "S,...",
       "Only these statuses: queued (waiting for a pool's slot), pending, running, succeeded, "
       "failed."},
      {"trigger-type", "", true, "T",
       "Only runs of this trigger type: cron, fix_rate, fix_delay, manual, api, parent, retry, "
       "misfire, backfill."},
      {"since", "", true, "TIME|AGE",
       "Triggered at or after an RFC 3339 time, or this long ago (1h, 30m)."},
      {"limit", "", true, "N", "Show at most N runs, newest first (default 50)."},
      {"workflow-run", "", true, "ID",
       "Only the runs of this workflow run's nodes (every shard, retry and attempt)."},
  };
}

absl::StatusOr<v1::ListRunsRequest> BuildListRunsRequest(const ParsedArgs& args, absl::Time now) {
  RETURN_IF_ERROR(ExpectPositionals(args, {}));
  v1::ListRunsRequest req;
  if (auto job =
          args.Get("job")) {  // A name is resolved by the command (CommandContext::JobIdFlag).
    absl::StatusOr<JobArg> which = ParseJobArg(*job);
    if (!which.ok())
      return absl::InvalidArgumentError(absl::StrCat("--job: ", which.status().message()));
    req.set_job_id(which->id);
  }
  if (auto group = args.Get("group")) {
    ASSIGN_OR_RETURN(int64_t id, ParseId("--group", *group));
    req.set_group_id(id);
  }
  if (auto workflow_run = args.Get("workflow-run")) {
    ASSIGN_OR_RETURN(int64_t id, ParseId("--workflow-run", *workflow_run));
    req.set_workflow_run_id(id);
  }
  for (const std::string& word : SplitList(args.GetAll("status"))) {
    ASSIGN_OR_RETURN(v1::RunStatus status, ParseRunStatus(word));
    req.add_statuses(status);
  }
  if (auto type = args.Get("trigger-type")) {
    ASSIGN_OR_RETURN(v1::TriggerType parsed, ParseTriggerType(*type));
    req.set_trigger_type(parsed);
  }
  if (auto since = args.Get("since")) {
    absl::Duration age;
    if (absl::ParseDuration(*since, &age) && age >= absl::ZeroDuration() &&
        age != absl::InfiniteDuration()) {
      *req.mutable_start_time() = ToTimestamp(now - age);
    } else {
      absl::StatusOr<absl::Time> t = ParseTimeFlag("--since", *since);
      if (!t.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "--since must be an RFC 3339 time or an age such as 1h, not '", *since, "'"));
      }
      *req.mutable_start_time() = ToTimestamp(*t);
    }
  }
  ASSIGN_OR_RETURN(int limit, RunListLimit(args));
  req.set_page_size(std::min(limit, 1000));
  return req;
}

absl::StatusOr<int> RunListLimit(const ParsedArgs& args) {
  auto text = args.Get("limit");
  if (!text) return 50;
  ASSIGN_OR_RETURN(int64_t n, ParseId("--limit", *text));
  if (n > 100000) return absl::InvalidArgumentError("--limit is at most 100000");
  return static_cast<int>(n);
}

std::vector<FlagSpec> WithRoleFlags(std::vector<FlagSpec> flags) {
  flags.push_back(
      {"role", "", true, "ROLE", "admin, operator (changes and fires jobs) or viewer (reads)."});
  flags.push_back({"group", "", true, "ID", "A group an operator or viewer reaches (repeatable)."});
  flags.push_back({"all-groups", "", false, "", "An operator or viewer reaches every group."});
  return flags;
}

absl::Status ParseRoleAndGrants(const ParsedArgs& args, v1::Role default_role, v1::Role* role,
                                v1::Grants* grants) {
  *role = default_role;
  if (auto r = args.Get("role")) {
    ASSIGN_OR_RETURN(v1::Role parsed, ParseRole(*r));
    *role = parsed;
  }
  grants->Clear();
  grants->set_all_groups(args.Has("all-groups"));
  for (const std::string& g : args.GetAll("group")) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(g, &id) || id <= 0) {
      return absl::InvalidArgumentError("--group must be a group id (a positive number)");
    }
    grants->add_group_ids(id);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<absl::Duration>> ParsePositiveDurationFlag(const ParsedArgs& args,
                                                                        const std::string& name) {
  std::optional<std::string> value = args.Get(name);
  if (!value) return std::optional<absl::Duration>();
  ASSIGN_OR_RETURN(absl::Duration d, ParseDurationFlag("--" + name, *value));
  if (d <= absl::ZeroDuration())
    return absl::InvalidArgumentError(absl::StrCat("--", name, " must be positive"));
  return std::optional<absl::Duration>(d);
}

std::string GrantsText(v1::Role role, const v1::Grants& grants) {
  if (role == v1::ROLE_ADMIN) return "every group";
  if (grants.all_groups()) return "all groups";
  if (grants.group_ids().empty()) return "none";
  return absl::StrCat(grants.group_ids_size() == 1 ? "group " : "groups ",
                      absl::StrJoin(grants.group_ids(), ", "));
}

}  // namespace gnomon::cli

// gnomonctl job script versions|show|diff|rollback: the kept versions of a
// script job's script (JobAdmin.ListScriptVersions, GetScriptVersion,
// RollbackScript). Diffs are computed here from two versions' sources.
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/format.h"
#include "cli/names.h"
#include "cli/printers.h"
#include "cli/requests.h"
#include "cli/unified_diff.h"

namespace gnomon::cli {
namespace {

constexpr char kUsage[] =
    "give versions JOB, show JOB VERSION, diff JOB V1 [V2] or rollback JOB VERSION";

// "3" or "v3".
absl::StatusOr<int64_t> ParseVersion(const std::string& text) {
  absl::string_view digits = text;
  if (!digits.empty() && digits.front() == 'v') digits.remove_prefix(1);
  int64_t v = 0;
  if (!absl::SimpleAtoi(digits, &v) || v <= 0) {
    return absl::InvalidArgumentError("VERSION: expected a number such as 3 or v3");
  }
  return v;
}

grpc::Status FetchVersion(CommandContext& c, const JobArg& job, int64_t version,
                          v1::ScriptVersion* out) {
  v1::GetScriptVersionRequest req;
  job.SetOn(&req);
  req.set_version(version);
  auto rpc = c.NewRpcContext();
  return c.admin().GetScriptVersion(rpc.get(), req, out);
}

int Versions(CommandContext& c, const JobArg& job) {
  v1::ListScriptVersionsRequest req;
  job.SetOn(&req);
  req.set_page_size(1000);
  v1::ListScriptVersionsResponse all;
  // Follow pages; a server that repeats a token must not loop us forever.
  for (int page = 0; page < 100000; ++page) {
    v1::ListScriptVersionsResponse resp;
    auto rpc = c.NewRpcContext();
    grpc::Status s = c.admin().ListScriptVersions(rpc.get(), req, &resp);
    if (!s.ok()) return c.RpcError(s);
    for (v1::ScriptVersion& v : *resp.mutable_versions()) *all.add_versions() = std::move(v);
    if (resp.next_page_token().empty() || resp.next_page_token() == req.page_token()) break;
    req.set_page_token(resp.next_page_token());
  }
  if (c.structured()) return c.PrintMessage(all);
  Table table({"VERSION", "TIME", "LANGUAGE", "BYTES", "AUTHOR", "REMARK"});
  for (const v1::ScriptVersion& v : all.versions()) {
    table.AddRow({absl::StrCat("v", v.version()), FormatTime(v.create_time(), c.env().zone),
                  ScriptLanguageName(v.language()), absl::StrCat(v.source_bytes()), v.author(),
                  v.remark()});
  }
  table.Render(c.out());
  return kExitOk;
}

int Show(CommandContext& c, const JobArg& job, int64_t version) {
  v1::ScriptVersion v;
  if (grpc::Status s = FetchVersion(c, job, version, &v); !s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(v);
  c.out() << v.source();  // The script as stored, to redirect into a file.
  return kExitOk;
}

// The source of version `version` (0: the job's script now) and its name.
int Source(CommandContext& c, const JobArg& job, int64_t version, std::string* source,
           std::string* name) {
  if (version == 0) {
    v1::GetJobRequest req;
    job.SetOn(&req);
    v1::Job j;
    auto rpc = c.NewRpcContext();
    if (grpc::Status s = c.admin().GetJob(rpc.get(), req, &j); !s.ok()) return c.RpcError(s);
    if (!j.has_script())
      return c.Fail(absl::StrCat("job ", job.ToString(), " is not a script job"));
    *source = j.script().source();
    *name = absl::StrCat("job ", job.ToString(), " v", j.script().version(), " (current)");
    return kExitOk;
  }
  v1::ScriptVersion v;
  if (grpc::Status s = FetchVersion(c, job, version, &v); !s.ok()) return c.RpcError(s);
  *source = v.source();
  *name = absl::StrCat("job ", job.ToString(), " v", version);
  return kExitOk;
}

int Diff(CommandContext& c, const JobArg& job, int64_t from, int64_t to) {
  std::string before, after, before_name, after_name;
  if (int rc = Source(c, job, from, &before, &before_name); rc != kExitOk) return rc;
  if (int rc = Source(c, job, to, &after, &after_name); rc != kExitOk) return rc;
  c.out() << UnifiedDiff(before, after, before_name, after_name);
  return kExitOk;
}

int Rollback(CommandContext& c, const JobArg& job, int64_t version) {
  v1::RollbackScriptRequest req;
  job.SetOn(&req);
  req.set_version(version);
  req.set_remark(c.args().Get("remark").value_or(""));
  v1::Job updated;
  auto rpc = c.NewRpcContext();
  if (grpc::Status s = c.admin().RollbackScript(rpc.get(), req, &updated); !s.ok())
    return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(updated);
  c.out() << "job " << job.ToString() << "'s script is v" << version << "'s again, as v"
          << updated.script().version() << "\n";
  return kExitOk;
}

int Script(CommandContext& c) {
  const std::vector<std::string>& p = c.args().positionals();
  if (p.size() < 2) return c.UsageError(absl::InvalidArgumentError(kUsage));
  const std::string& action = p[0];
  absl::StatusOr<JobArg> job = ParseJobArg(p[1]);
  if (!job.ok()) return c.UsageError(job.status());
  std::vector<int64_t> versions;
  for (size_t i = 2; i < p.size(); ++i) {
    absl::StatusOr<int64_t> v = ParseVersion(p[i]);
    if (!v.ok()) return c.UsageError(v.status());
    versions.push_back(*v);
  }
  if (c.args().Has("remark") && action != "rollback") {
    return c.UsageError(absl::InvalidArgumentError("--remark goes with rollback"));
  }
  if (action == "versions" && versions.empty()) return Versions(c, *job);
  if (action == "show" && versions.size() == 1) return Show(c, *job, versions[0]);
  if (action == "diff" && (versions.size() == 1 || versions.size() == 2)) {
    return Diff(c, *job, versions[0], versions.size() == 2 ? versions[1] : 0);
  }
  if (action == "rollback" && versions.size() == 1) return Rollback(c, *job, versions[0]);
  return c.UsageError(absl::InvalidArgumentError(kUsage));
}

}  // namespace

std::vector<Command> ScriptCommands() {
  return {
      {"job",
       "script",
       "versions|show|diff|rollback JOB [VERSION [VERSION]] [--remark R]",
       "A script job's kept versions: list them (newest first), print one's source, diff two "
       "(the second defaults to the current script) or roll back to one (as a new version). JOB: "
       "its id, APP/NAME or NAME.",
       {{"remark", "", true, "TEXT", "rollback: why (default 'rollback to vN')."}},
       "gnomonctl job script versions 7\n"
       "gnomonctl job script show 7 3 > cleanup.sh\n"
       "gnomonctl job script diff 7 3\n"
       "gnomonctl job script diff 7 2 4\n"
       "gnomonctl job script rollback 7 3 --remark 'v4 broke the cleanup'",
       Script},
  };
}

}  // namespace gnomon::cli

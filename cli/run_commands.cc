// gnomonctl run list|get|logs|kill.
#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/format.h"
#include "cli/printers.h"
#include "cli/yaml_json.h"
#include "services/common/status/status_macros.h"

namespace gnomon::cli {
namespace {

// Runs are shown in their job's zone when the command names the job; else,
// and when the job cannot be read, in UTC (docs/cli.md, "Times").
absl::TimeZone ZoneOfJob(CommandContext& c, int64_t job_id) {
  if (job_id == 0) return absl::UTCTimeZone();
  v1::GetJobRequest req;
  req.set_job_id(job_id);
  v1::Job job;
  auto rpc = c.NewRpcContext();
  if (!c.admin().GetJob(rpc.get(), req, &job).ok()) return absl::UTCTimeZone();
  return JobZone(job);
}

int List(CommandContext& c) {
  absl::StatusOr<v1::ListRunsRequest> req = BuildListRunsRequest(c.args(), c.env().now());
  if (!req.ok()) return c.UsageError(req.status());
  int failed = kExitError;
  std::optional<int64_t> job = c.JobIdFlag("job", &failed);
  if (!job) return failed;
  req->set_job_id(*job);
  absl::StatusOr<int> limit = RunListLimit(c.args());
  if (!limit.ok()) return c.UsageError(limit.status());
  v1::ListRunsResponse all;
  while (all.runs_size() < *limit) {
    req->set_page_size(std::min(*limit - all.runs_size(), 1000));
    v1::ListRunsResponse resp;
    auto rpc = c.NewRpcContext();
    grpc::Status s = c.admin().ListRuns(rpc.get(), *req, &resp);
    if (!s.ok()) return c.RpcError(s);
    bool trimmed = false;
    for (v1::Run& run : *resp.mutable_runs()) {
      if (all.runs_size() >= *limit) {
        trimmed = true;
        break;
      }
      *all.add_runs() = std::move(run);
    }
    // Keep the token so a script can continue where the limit stopped us,
    // unless part of this page was dropped (the token would skip it).
    all.set_next_page_token(trimmed ? "" : resp.next_page_token());
    if (resp.next_page_token().empty() || resp.next_page_token() == req->page_token() ||
        resp.runs().empty()) {
      break;
    }
    req->set_page_token(resp.next_page_token());
  }
  if (c.structured()) return c.PrintMessage(all);
  PrintRunTable(all.runs(), ZoneOfJob(c, req->job_id()), c.wide(), c.out());
  return kExitOk;
}

std::vector<FlagSpec> LogFlagSpecs() {
  return {
      {"follow", "f", false, "",
       "Keep streaming new lines until the run ends "
       "(LogService.StreamRunLog)."},
      {"lines", "", true, "N",
       "At most N stored lines (default: the server's, 1000); not with -f."},
  };
}

absl::StatusOr<v1::GetRunRequest> BuildGetRun(const ParsedArgs& args) {
  ASSIGN_OR_RETURN(int64_t id, PositionalId(args, "ID"));
  v1::GetRunRequest req;
  req.set_run_id(id);
  if (auto lines = args.Get("lines")) {
    ASSIGN_OR_RETURN(int64_t n, ParseId("--lines", *lines));
    req.set_log_lines(static_cast<int32_t>(std::min<int64_t>(n, 1 << 30)));
  }
  return req;
}

// Tells the user when the stored log holds more than was shown.
void NoteMissingLines(CommandContext& c, const v1::GetRunResponse& resp) {
  const int64_t shown = resp.log_lines_size();
  if (resp.run().log_line_count() > shown) {
    c.err() << "gnomonctl: showing " << shown << " of " << resp.run().log_line_count()
            << " lines; 'gnomonctl run logs " << resp.run().id() << " -f' streams them all\n";
  }
}

int Get(CommandContext& c) {
  absl::StatusOr<v1::GetRunRequest> req = BuildGetRun(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  v1::GetRunResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().GetRun(rpc.get(), *req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  const absl::TimeZone zone = ZoneOfJob(c, resp.run().job_id());
  PrintRunDetails(resp.run(), zone, c.out());
  c.out() << "\nlog:\n";
  for (const v1::LogLine& line : resp.log_lines()) PrintLogLine(line, zone, c.out());
  NoteMissingLines(c, resp);
  return kExitOk;
}

int Follow(CommandContext& c, int64_t run_id) {
  v1::StreamRunLogRequest req;
  req.set_run_id(run_id);
  req.set_from_line(1);
  req.set_follow(true);
  // No deadline: the stream lasts as long as the run.
  auto rpc = c.NewRpcContext(/*deadline=*/false);
  std::unique_ptr<grpc::ClientReaderInterface<v1::LogLine>> reader =
      c.logs().StreamRunLog(rpc.get(), req);
  v1::LogLine line;
  while (reader->Read(&line)) {
    if (c.structured()) {
      // One JSON object per line, or one YAML document per line.
      absl::StatusOr<std::string> text = c.globals().output == OutputFormat::kYaml
                                             ? MessageToYaml(line)
                                             : ToJson(line, /*indent=*/false);
      if (!text.ok()) return c.Fail(std::string(text.status().message()));
      if (c.globals().output == OutputFormat::kYaml) c.out() << "---\n";
      c.out() << *text;
    } else {
      // The stream does not say whose run it is: UTC.
      PrintLogLine(line, absl::UTCTimeZone(), c.out());
    }
    c.out().flush();
  }
  grpc::Status s = reader->Finish();
  if (!s.ok()) return c.RpcError(s);
  return kExitOk;
}

int Logs(CommandContext& c) {
  absl::StatusOr<v1::GetRunRequest> req = BuildGetRun(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  if (c.args().Has("follow")) {
    if (c.args().Has("lines")) {
      return c.UsageError(absl::InvalidArgumentError("--lines does not go with -f"));
    }
    return Follow(c, req->run_id());
  }
  v1::GetRunResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().GetRun(rpc.get(), *req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  const absl::TimeZone zone = ZoneOfJob(c, resp.run().job_id());
  for (const v1::LogLine& line : resp.log_lines()) PrintLogLine(line, zone, c.out());
  NoteMissingLines(c, resp);
  return kExitOk;
}

int Kill(CommandContext& c) {
  absl::StatusOr<int64_t> id = PositionalId(c.args(), "ID");
  if (!id.ok()) return c.UsageError(id.status());
  v1::KillRunRequest req;
  req.set_run_id(*id);
  v1::KillRunResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().KillRun(rpc.get(), req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  if (resp.found()) {
    c.out() << "run " << *id << ": the executor is stopping it\n";
  } else {
    c.out() << "run " << *id << ": not running on its executor (finished already?)\n";
  }
  return kExitOk;
}

}  // namespace

std::vector<Command> RunCommands() {
  std::vector<FlagSpec> get_flags = LogFlagSpecs();
  get_flags.erase(get_flags.begin());  // run get has no -f
  return {
      {"run", "list",
       "[--job ID] [--group ID] [--workflow-run ID] [--status S] [--trigger-type T] [--since T] "
       "[--limit N]",
       "List runs, newest first.", RunListFlagSpecs(),
       "gnomonctl run list --job 7 --status failed --since 24h\n"
       "gnomonctl run list --trigger-type backfill --job 7\n"
       "gnomonctl run list --workflow-run 15\n"
       "gnomonctl run list --since 2024-05-01T00:00:00Z --limit 500 -o json",
       List},
      {"run", "get", "ID", "Show a run and its stored log lines.", get_flags,
       "gnomonctl run get 1234", Get},
      {"run", "logs", "ID [-f]",
       "Print a run's log; -f keeps streaming until the run ends (-o json then "
       "prints one JSON object per line).",
       LogFlagSpecs(), "gnomonctl run logs 1234\ngnomonctl run logs 1234 -f", Logs},
      {"run", "kill", "ID", "Kill a running run.", {}, "gnomonctl run kill 1234", Kill},
  };
}

}  // namespace gnomon::cli

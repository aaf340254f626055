// gnomonctl job create|list|get|update|delete|start|stop|trigger|backfill.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/command.h"
#include "cli/printers.h"

namespace gnomon::cli {
namespace {

// The job a request names, as typed.
template <typename Request>
std::string JobLabel(const Request& r) {
  if (r.job_id() != 0) return absl::StrCat(r.job_id());
  return r.job_name().group().empty()
             ? r.job_name().name()
             : absl::StrCat(r.job_name().group(), "/", r.job_name().name());
}

int PrintJob(CommandContext& c, const v1::Job& job) {
  if (c.structured()) return c.PrintMessage(job);
  PrintJobDetails(job, c.out());
  return kExitOk;
}

int Create(CommandContext& c) {
  absl::StatusOr<v1::CreateJobRequest> req = BuildCreateJobRequest(c.args(), c.env().read_file);
  if (!req.ok()) return c.UsageError(req.status());
  v1::Job job;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().CreateJob(rpc.get(), *req, &job);
  if (!s.ok()) return c.RpcError(s);
  return PrintJob(c, job);
}

int List(CommandContext& c) {
  absl::StatusOr<v1::ListJobsRequest> req = BuildListJobsRequest(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  v1::ListJobsResponse all;
  // Follow pages; a server that repeats a token must not loop us forever.
  for (int page = 0; page < 100000; ++page) {
    v1::ListJobsResponse resp;
    auto rpc = c.NewRpcContext();
    grpc::Status s = c.admin().ListJobs(rpc.get(), *req, &resp);
    if (!s.ok()) return c.RpcError(s);
    for (v1::Job& job : *resp.mutable_jobs()) *all.add_jobs() = std::move(job);
    if (resp.next_page_token().empty() || resp.next_page_token() == req->page_token()) {
      break;
    }
    req->set_page_token(resp.next_page_token());
  }
  if (c.structured()) return c.PrintMessage(all);
  PrintJobTable(all.jobs(), c.wide(), c.out());
  return kExitOk;
}

grpc::Status FetchJob(CommandContext& c, const JobArg& which, v1::Job* job) {
  v1::GetJobRequest req;
  which.SetOn(&req);
  auto rpc = c.NewRpcContext();
  return c.admin().GetJob(rpc.get(), req, job);
}

int Get(CommandContext& c) {
  absl::StatusOr<JobArg> which = PositionalJob(c.args());
  if (!which.ok()) return c.UsageError(which.status());
  v1::Job job;
  grpc::Status s = FetchJob(c, *which, &job);
  if (!s.ok()) return c.RpcError(s);
  return PrintJob(c, job);
}

// Sends a request that answers with the job (start, stop).
template <typename Request, typename Method>
int JobAction(CommandContext& c, Method method) {
  absl::StatusOr<JobArg> which = PositionalJob(c.args());
  if (!which.ok()) return c.UsageError(which.status());
  Request req;
  which->SetOn(&req);
  v1::Job job;
  auto rpc = c.NewRpcContext();
  grpc::Status s = (c.admin().*method)(rpc.get(), req, &job);
  if (!s.ok()) return c.RpcError(s);
  return PrintJob(c, job);
}

int Start(CommandContext& c) {
  return JobAction<v1::StartJobRequest>(c, &v1::JobAdmin::StubInterface::StartJob);
}

int Stop(CommandContext& c) {
  return JobAction<v1::StopJobRequest>(c, &v1::JobAdmin::StubInterface::StopJob);
}

int Update(CommandContext& c) {
  absl::StatusOr<JobArg> which = PositionalJob(c.args());
  if (!which.ok()) return c.UsageError(which.status());
  // Check the flags before talking to the server. The probe has a cron
  // schedule so --tz passes here; it is checked against the real job below.
  v1::Job probe;
  probe.mutable_schedule()->mutable_cron();
  if (absl::Status s = ApplyJobFlags(c.args(), false, c.env().read_file, &probe); !s.ok()) {
    return c.UsageError(s);
  }
  v1::UpdateJobRequest req;
  grpc::Status s = FetchJob(c, *which, req.mutable_job());
  if (!s.ok()) return c.RpcError(s);
  if (absl::Status a = ApplyJobFlags(c.args(), false, c.env().read_file, req.mutable_job());
      !a.ok()) {
    return c.UsageError(a);
  }
  v1::Job updated;
  auto rpc = c.NewRpcContext();
  s = c.admin().UpdateJob(rpc.get(), req, &updated);
  if (!s.ok()) return c.RpcError(s);
  if (c.args().Has("start")) {
    v1::StartJobRequest start;
    start.set_job_id(updated.id());
    auto start_rpc = c.NewRpcContext();
    s = c.admin().StartJob(start_rpc.get(), start, &updated);
    if (!s.ok()) return c.RpcError(s);
  }
  return PrintJob(c, updated);
}

int Delete(CommandContext& c) {
  absl::StatusOr<JobArg> which = PositionalJob(c.args());
  if (!which.ok()) return c.UsageError(which.status());
  v1::DeleteJobRequest req;
  which->SetOn(&req);
  req.set_purge_runs(c.args().Has("purge-runs"));
  v1::DeleteJobResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().DeleteJob(rpc.get(), req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  c.out() << "deleted job " << which->ToString()
          << (req.purge_runs()
                  ? " with its runs and their logs\n"
                  : "; its runs and logs stay until retention (--purge-runs deletes them now)\n");
  return kExitOk;
}

// A new stopped job with the configuration of JOB, under --name (or
// unnamed: the server calls it job-<id>) and optionally in --to-group.
int Copy(CommandContext& c) {
  absl::StatusOr<JobArg> which = PositionalJob(c.args());
  if (!which.ok()) return c.UsageError(which.status());
  v1::CreateJobRequest req;
  grpc::Status s = FetchJob(c, *which, req.mutable_job());
  if (!s.ok()) return c.RpcError(s);
  v1::Job& job = *req.mutable_job();
  job.set_name(c.args().Get("name").value_or(""));
  if (auto group = c.args().Get("to-group")) {
    absl::StatusOr<int64_t> id = ParseId("--to-group", *group);
    if (!id.ok()) return c.UsageError(id.status());
    job.set_group_id(*id);
  }
  job.clear_last_fire_time();
  job.clear_last_run();
  job.clear_pause_reason();
  job.clear_consecutive_failures();
  job.clear_fires_left();
  if (job.has_script()) job.mutable_script()->clear_version();
  v1::Job created;
  auto rpc = c.NewRpcContext();
  s = c.admin().CreateJob(rpc.get(), req, &created);
  if (!s.ok()) return c.RpcError(s);
  return PrintJob(c, created);
}

int Trigger(CommandContext& c) {
  absl::StatusOr<v1::TriggerJobRequest> req = BuildTriggerJobRequest(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  v1::TriggerJobResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().TriggerJob(rpc.get(), *req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  c.out() << "triggered job " << JobLabel(*req) << ": "
          << (resp.run_ids().size() == 1 ? "run " : "runs ") << absl::StrJoin(resp.run_ids(), ", ")
          << "\n";
  return kExitOk;
}

int Backfill(CommandContext& c) {
  absl::StatusOr<v1::BackfillRequest> req = BuildBackfillRequest(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  v1::BackfillResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().Backfill(rpc.get(), *req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  if (resp.run_ids().empty()) {
    c.out() << "backfilled job " << JobLabel(*req)
            << ": no slot to fire (none in range, or all fired already)\n";
  } else {
    c.out() << "backfilled job " << JobLabel(*req) << ": " << resp.run_ids().size() << " runs ("
            << absl::StrJoin(resp.run_ids(), ", ") << ")\n";
  }
  return kExitOk;
}

}  // namespace

std::vector<Command> JobCommands() {
  const std::string job_flags =
      "--group ID (--handler NAME | --script-shell|--script-python|"
      "--script-node|--script-powershell FILE)\n"
      "    (--cron EXPR [--tz ZONE] | --every DUR | --delay DUR | --manual) "
      "[flags]";
  return {
      {"job", "create", job_flags, "Create a job (stopped unless --start).", JobFlagSpecs(),
       "gnomonctl job create --group 3 --handler report --cron '0 0 6 * * ?' "
       "--tz Europe/Berlin --deadline 1h --start\n"
       "gnomonctl job create --group 3 --script-shell ./cleanup.sh --every 30s "
       "--retries 3 --retry-delay 1s --pause-after-failures 5\n"
       "gnomonctl job create --group 3 --handler shard --manual --route "
       "broadcast --children 8,9\n"
       "gnomonctl job create --group 3 --handler promo --cron '0 0 9 * * ?' "
       "--start-time 2026-12-01T00:00:00Z --end-time 2027-01-01T00:00:00Z --start\n"
       "gnomonctl job create --group 3 --handler warmup --every 1m --max-fires 10 --start",
       Create},
      {"job", "list",
       "[--group ID] [--name T] [--handler T] [--author T] [--description T] [--schedule K] "
       "[--state S]",
       "List jobs (all pages), filtered.", JobListFlagSpecs(),
       "gnomonctl job list --group 3\ngnomonctl job list --handler invoice --state running", List},
      {"job",
       "get",
       "JOB",
       "Show one job (JOB: id, NAME or GROUP_APP/NAME).",
       {},
       "gnomonctl job get 7",
       Get},
      {"job", "update", "JOB [job create flags]", "Change a job; only the given flags change.",
       JobFlagSpecs(),
       "gnomonctl job update 7 --cron '0 */10 * * * ?'\n"
       "gnomonctl job update 7 --retries 0 --children ''\n"
       "gnomonctl job update 7 --pause-after-failures 5\n"
       "gnomonctl job update 7 --deadline 0\n"
       "gnomonctl job update 7 --end-time 2027-01-01T00:00:00+01:00 --max-fires 0\n"
       "gnomonctl job update 7 --start-time ''\n"
       "gnomonctl job update 7 --pool etl-db --priority 10\n"
       "gnomonctl job update 7 --script-shell ./cleanup.sh --remark 'skip "
       "empty dirs'",
       Update},
      {"job",
       "delete",
       "JOB [--purge-runs]",
       "Delete a job; other jobs stop triggering it as a child. Its runs and logs stay until "
       "retention "
       "unless --purge-runs.",
       {{"purge-runs", "", false, "",
         "Also delete its runs, their logs and its daily statistics rows now."}},
       "gnomonctl job delete 7\ngnomonctl job delete billing/nightly-invoice --purge-runs",
       Delete},
      {"job",
       "start",
       "JOB",
       "Start scheduling a job; resumes a paused one (clears its failure count).",
       {},
       "gnomonctl job start 7",
       Start},
      {"job", "stop", "JOB", "Stop scheduling a job.", {}, "gnomonctl job stop 7", Stop},
      {"job",
       "copy",
       "JOB [--name NAME] [--to-group ID]",
       "Create a stopped copy of a job (unnamed copies are called job-<id>).",
       {{"name", "", true, "NAME", "Name of the copy."},
        {"to-group", "", true, "ID", "Put the copy in this group instead."}},
       "gnomonctl job copy billing/nightly-invoice --name nightly-invoice-eu",
       Copy},
      {"job", "trigger", "JOB [--params P] [--executors A,B] [--shard N]",
       "Fire a job now (trigger type manual).", TriggerFlagSpecs(),
       "gnomonctl job trigger 7 --params 'date=2024-05-01'\n"
       "gnomonctl job trigger 7 --executors billing-0 --shard 0",
       Trigger},
      {"job", "backfill", "JOB --from TIME --to TIME",
       "Fire the job's slots in [from, to); slots fired already are skipped.", BackfillFlagSpecs(),
       "gnomonctl job backfill 7 --from 2024-05-01T00:00:00Z --to "
       "2024-05-02T00:00:00Z",
       Backfill},
  };
}

}  // namespace gnomon::cli

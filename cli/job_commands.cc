// gnomonctl job create|list|get|update|delete|start|stop|trigger|backfill.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/command.h"
#include "cli/printers.h"

namespace gnomon::cli {
namespace {

int PrintJob(CommandContext& c, const v1::Job& job) {
  if (c.structured()) return c.PrintMessage(job);
  PrintJobDetails(job, c.out());
  return kExitOk;
}

int Create(CommandContext& c) {
  absl::StatusOr<v1::CreateJobRequest> req =
      BuildCreateJobRequest(c.args(), c.env().read_file);
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
    if (resp.next_page_token().empty() ||
        resp.next_page_token() == req->page_token()) {
      break;
    }
    req->set_page_token(resp.next_page_token());
  }
  if (c.structured()) return c.PrintMessage(all);
  PrintJobTable(all.jobs(), c.wide(), c.out());
  return kExitOk;
}

grpc::Status FetchJob(CommandContext& c, int64_t id, v1::Job* job) {
  v1::GetJobRequest req;
  req.set_job_id(id);
  auto rpc = c.NewRpcContext();
  return c.admin().GetJob(rpc.get(), req, job);
}

int Get(CommandContext& c) {
  absl::StatusOr<int64_t> id = PositionalId(c.args(), "ID");
  if (!id.ok()) return c.UsageError(id.status());
  v1::Job job;
  grpc::Status s = FetchJob(c, *id, &job);
  if (!s.ok()) return c.RpcError(s);
  return PrintJob(c, job);
}

// Sends a request that answers with the job (start, stop).
template <typename Request, typename Method>
int JobAction(CommandContext& c, Method method) {
  absl::StatusOr<int64_t> id = PositionalId(c.args(), "ID");
  if (!id.ok()) return c.UsageError(id.status());
  Request req;
  req.set_job_id(*id);
  v1::Job job;
  auto rpc = c.NewRpcContext();
  grpc::Status s = (c.admin().*method)(rpc.get(), req, &job);
  if (!s.ok()) return c.RpcError(s);
  return PrintJob(c, job);
}

int Start(CommandContext& c) {
  return JobAction<v1::StartJobRequest>(c,
                                        &v1::JobAdmin::StubInterface::StartJob);
}

int Stop(CommandContext& c) {
  return JobAction<v1::StopJobRequest>(c,
                                       &v1::JobAdmin::StubInterface::StopJob);
}

int Update(CommandContext& c) {
  absl::StatusOr<int64_t> id = PositionalId(c.args(), "ID");
  if (!id.ok()) return c.UsageError(id.status());
  // Check the flags before talking to the server. The probe has a cron
  // schedule so --tz passes here; it is checked against the real job below.
  v1::Job probe;
  probe.mutable_schedule()->mutable_cron();
  if (absl::Status s =
          ApplyJobFlags(c.args(), false, c.env().read_file, &probe);
      !s.ok()) {
    return c.UsageError(s);
  }
  v1::UpdateJobRequest req;
  grpc::Status s = FetchJob(c, *id, req.mutable_job());
  if (!s.ok()) return c.RpcError(s);
  if (absl::Status a =
          ApplyJobFlags(c.args(), false, c.env().read_file, req.mutable_job());
      !a.ok()) {
    return c.UsageError(a);
  }
  v1::Job updated;
  auto rpc = c.NewRpcContext();
  s = c.admin().UpdateJob(rpc.get(), req, &updated);
  if (!s.ok()) return c.RpcError(s);
  if (c.args().Has("start")) {
    v1::StartJobRequest start;
    start.set_job_id(*id);
    auto start_rpc = c.NewRpcContext();
    s = c.admin().StartJob(start_rpc.get(), start, &updated);
    if (!s.ok()) return c.RpcError(s);
  }
  return PrintJob(c, updated);
}

int Delete(CommandContext& c) {
  absl::StatusOr<int64_t> id = PositionalId(c.args(), "ID");
  if (!id.ok()) return c.UsageError(id.status());
  v1::DeleteJobRequest req;
  req.set_job_id(*id);
  v1::DeleteJobResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().DeleteJob(rpc.get(), req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  c.out() << "deleted job " << *id << "\n";
  return kExitOk;
}

int Trigger(CommandContext& c) {
  absl::StatusOr<v1::TriggerJobRequest> req = BuildTriggerJobRequest(c.args());
  if (!req.ok()) return c.UsageError(req.status());
  v1::TriggerJobResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().TriggerJob(rpc.get(), *req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  c.out() << "triggered job " << req->job_id() << ": "
          << (resp.run_ids().size() == 1 ? "run " : "runs ")
          << absl::StrJoin(resp.run_ids(), ", ") << "\n";
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
    c.out() << "backfilled job " << req->job_id()
            << ": no slot to fire (none in range, or all fired already)\n";
  } else {
    c.out() << "backfilled job " << req->job_id() << ": "
            << resp.run_ids().size() << " runs ("
            << absl::StrJoin(resp.run_ids(), ", ") << ")\n";
  }
  return kExitOk;
}

}  // namespace

std::vector<Command> JobCommands() {
  const std::string job_flags =
      "--group ID (--handler NAME | --script-shell FILE | --script-python "
      "FILE)\n"
      "    (--cron EXPR [--tz ZONE] | --every DUR | --delay DUR | --manual) "
      "[flags]";
  return {
      {"job", "create", job_flags, "Create a job (stopped unless --start).",
       JobFlagSpecs(),
       "gnomonctl job create --group 3 --handler report --cron '0 0 6 * * ?' "
       "--tz Europe/Berlin --start\n"
       "gnomonctl job create --group 3 --script-shell ./cleanup.sh --every 30s "
       "--retries 3 --retry-delay 1s\n"
       "gnomonctl job create --group 3 --handler shard --manual --route "
       "broadcast --children 8,9",
       Create},
      {"job", "list", "[--group ID]", "List jobs (all pages).",
       JobListFlagSpecs(), "gnomonctl job list --group 3", List},
      {"job", "get", "ID", "Show one job.", {}, "gnomonctl job get 7", Get},
      {"job", "update", "ID [job create flags]",
       "Change a job; only the given flags change.", JobFlagSpecs(),
       "gnomonctl job update 7 --cron '0 */10 * * * ?'\n"
       "gnomonctl job update 7 --retries 0 --children ''",
       Update},
      {"job",
       "delete",
       "ID",
       "Delete a job with its runs and their logs; other jobs stop triggering it as a child.",
       {},
       "gnomonctl job delete 7",
       Delete},
      {"job",
       "start",
       "ID",
       "Start scheduling a job.",
       {},
       "gnomonctl job start 7",
       Start},
      {"job",
       "stop",
       "ID",
       "Stop scheduling a job.",
       {},
       "gnomonctl job stop 7",
       Stop},
      {"job", "trigger", "ID [--params P] [--executors A,B] [--shard N]",
       "Fire a job now (trigger type manual).", TriggerFlagSpecs(),
       "gnomonctl job trigger 7 --params 'date=2024-05-01'\n"
       "gnomonctl job trigger 7 --executors 10.0.0.5:9999 --shard 0",
       Trigger},
      {"job", "backfill", "ID --from TIME --to TIME",
       "Fire the job's slots in [from, to); slots fired already are skipped.",
       BackfillFlagSpecs(),
       "gnomonctl job backfill 7 --from 2024-05-01T00:00:00Z --to "
       "2024-05-02T00:00:00Z",
       Backfill},
  };
}

}  // namespace gnomon::cli

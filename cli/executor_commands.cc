// gnomonctl executor list: the executors of each group as the scheduler sees
// them — registered ones online, or a manual group's addresses with their
// probe state.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/command.h"
#include "cli/flags.h"
#include "cli/format.h"
#include "cli/requests.h"

namespace gnomon::cli {
namespace {

// The busy totals, then the five most loaded jobs (the registry keeps up to
// 1,000; `-o json` prints them all): "25000 jobs, 24992 runs queued: 12 (1
// running, 3 queued), 40 (0 running, 2 queued), <three more> and 24995 more".
std::string BusyJobs(const v1::ExecutorInfo& e) {
  constexpr int kShown = 5;
  const uint32_t count = std::max(e.busy_job_count(), static_cast<uint32_t>(e.busy_jobs_size()));
  if (count == 0) return "-";
  std::vector<std::string> jobs;
  for (int i = 0; i < std::min(e.busy_jobs_size(), kShown); ++i) {
    const v1::JobBusy& b = e.busy_jobs(i);
    jobs.push_back(
        absl::StrCat(b.job_id(), " (", b.running(), " running, ", b.queued(), " queued)"));
  }
  std::string out =
      absl::StrCat(count, count == 1 ? " job, " : " jobs, ", e.queued_runs(), " runs queued");
  if (jobs.empty()) return out;
  absl::StrAppend(&out, ": ", absl::StrJoin(jobs, ", "));
  if (count > jobs.size()) absl::StrAppend(&out, " and ", count - jobs.size(), " more");
  return out;
}

int List(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  v1::ListExecutorsRequest req;
  if (auto g = c.args().Get("group")) {
    int64_t id = 0;
    if (!absl::SimpleAtoi(*g, &id) || id <= 0) {
      return c.UsageError(absl::InvalidArgumentError("--group must be a group id"));
    }
    req.set_group_id(id);
  }
  v1::ListExecutorsResponse resp;
  auto rpc = c.NewRpcContext();
  grpc::Status s = c.admin().ListExecutors(rpc.get(), req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  Table table({"GROUP", "APP", "ADDRESS", "STATE", "HANDLERS", "CAPACITY", "RUNNING", "BUSY JOBS",
               "VERSION", "SINCE", "LAST BEAT", "REGISTRY"});
  for (const v1::GroupExecutors& g : resp.groups()) {
    const std::string group = absl::StrCat(g.group_id());
    for (const v1::ExecutorInfo& e : g.executors()) {
      table.AddRow({group, g.app_name(), e.address(), "online", absl::StrJoin(e.handlers(), ","),
                    absl::StrCat(e.capacity()), absl::StrCat(e.running_runs()), BusyJobs(e),
                    e.version(), FormatTime(e.register_time(), c.env().zone),
                    FormatTime(e.last_beat_time(), c.env().zone),
                    e.registry_replica().empty() ? "-" : e.registry_replica()});
    }
    for (const v1::ManualExecutor& m : g.manual()) {
      table.AddRow({group, g.app_name(), m.address(),
                    m.alive() ? "manual, answering" : "manual, not answering", "-", "-", "-", "-",
                    "-", "-", "-", "-"});
    }
    if (g.executors().empty() && g.manual().empty()) {
      table.AddRow(
          {group, g.app_name(), "-", "no executor online", "-", "-", "-", "-", "-", "-", "-", "-"});
    }
  }
  table.Render(c.out());
  return kExitOk;
}

}  // namespace

std::vector<Command> ExecutorCommands() {
  return {
      {"executor",
       "list",
       "[--group ID]",
       "List each group's executors: online ones with handlers, capacity and load, or a manual "
       "group's addresses.",
       {{"group", "", true, "ID", "Only this group."}},
       "gnomonctl executor list\ngnomonctl executor list --group 3 -o json",
       List},
  };
}

}  // namespace gnomon::cli

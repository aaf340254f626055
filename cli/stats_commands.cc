// gnomonctl stats: per-day counts and run durations (LogService.GetStats),
// kept up to date incrementally by the store instead of re-aggregating runs.
#include "absl/strings/str_cat.h"
#include "cli/command.h"
#include "cli/flags.h"
#include "cli/format.h"
#include "cli/requests.h"
#include "gnomon/v1/log.grpc.pb.h"

namespace gnomon::cli {
namespace {

std::vector<FlagSpec> StatsFlagSpecs() {
  return {
      {"days", "", true, "N", "The last N UTC days, today included (default 7, at most 366)."},
      {"job", "", true, "JOB",
       "Only this job: id, APP/NAME or NAME (default: all jobs, one total row per day)."},
  };
}

int Show(CommandContext& c) {
  if (absl::Status s = ExpectPositionals(c.args(), {}); !s.ok()) return c.UsageError(s);
  int64_t days = 7;
  if (auto d = c.args().Get("days")) {
    absl::StatusOr<int64_t> n = ParseId("--days", *d);
    if (!n.ok()) return c.UsageError(n.status());
    if (*n > 366) return c.UsageError(absl::InvalidArgumentError("--days is at most 366"));
    days = *n;
  }
  v1::GetStatsRequest req;
  int failed = kExitError;
  std::optional<int64_t> job = c.JobIdFlag("job", &failed);
  if (!job) return failed;
  req.set_job_id(*job);
  const absl::Time now = c.env().now();
  const absl::Time today = absl::FromCivil(
      absl::CivilDay(absl::ToCivilDay(now, absl::UTCTimeZone())), absl::UTCTimeZone());
  *req.mutable_start_time() = ToTimestamp(today - absl::Hours(24 * (days - 1)));
  *req.mutable_end_time() = ToTimestamp(today + absl::Hours(24));
  v1::GetStatsResponse resp;
  auto ctx = c.NewRpcContext();
  grpc::Status s = c.logs().GetStats(ctx.get(), req, &resp);
  if (!s.ok()) return c.RpcError(s);
  if (c.structured()) return c.PrintMessage(resp);
  Table table({"DAY (UTC)", "JOB", "RUNNING", "SUCCEEDED", "FAILED", "P50", "P99"});
  for (const v1::StatsRow& r : resp.rows()) {
    table.AddRow({absl::FormatTime("%Y-%m-%d", absl::FromUnixSeconds(r.day().seconds()),
                                   absl::UTCTimeZone()),
                  r.job_id() == 0 ? "all" : absl::StrCat(r.job_id()), absl::StrCat(r.running()),
                  absl::StrCat(r.succeeded()), absl::StrCat(r.failed()),
                  FormatAbslDuration(absl::Milliseconds(r.duration_p50_ms())),
                  FormatAbslDuration(absl::Milliseconds(r.duration_p99_ms()))});
  }
  table.Render(c.out());
  if (resp.rows().empty()) c.out() << "no runs in the last " << days << " days\n";
  return kExitOk;
}

}  // namespace

std::vector<Command> StatsCommands() {
  return {
      {"stats", "show", "[--days N] [--job JOB]", "Per-day run counts and duration percentiles.",
       StatsFlagSpecs(), "gnomonctl stats show --days 3\ngnomonctl stats show --job 7 -o json",
       Show},
  };
}

}  // namespace gnomon::cli

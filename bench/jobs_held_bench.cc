// jobs_held_bench: what one gnomond costs to hold many jobs, and what a burst
// among them costs, with real processes on loopback: one gnomond (all roles)
// on SQLite in a temp dir and two sample executors.
//
//   1. N - D "held" daily jobs (cron "S M H * * ?", spread evenly over the
//      day, so about N/86,400 fire each second) are created and started
//      through JobAdmin.BatchCreateJobs, 1,000 a call; then D "due" daily
//      jobs whose instant is the same second T, `--lead` seconds later.
//      Printed: jobs/s, call latency, CPU, gnomond's resident memory.
//   2. Restart with all N held: SIGTERM, then gnomond again on the same
//      database; the time until it answers the admin API, its memory once
//      settled.
//   3. At T: how long the pre-read passes that arm the D jobs took (gnomond's
//      "pre-read ... took" lines), what happened to the D slots (runs
//      recorded, started within 5 s, lateness at dispatch and at handler
//      start, when the last one ended), CPU and gnomond's peak memory around
//      T, and the lateness of the held jobs that fired around T.
// Figures are printed, never asserted.
//
//   jobs_held_bench [--quick] [--jobs=1000000] [--due=100000] [--lead=60]
//                   [--settle=5] [--admin-threads=4] [--drain-max=900]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "bench/admin_pass.h"
#include "bench/burst_deployment.h"
#include "bench/burst_figures.h"
#include "bench/store_reader.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "tests/support/proc_stats.h"

namespace gnomon::bench {
namespace {

constexpr int64_t kSecondsPerDay = 86400;

struct BenchOptions {
  int jobs = 1'000'000;    // All jobs, the due ones included.
  int due = 100'000;       // Of which due on the same instant T.
  int lead_seconds = 60;   // T is this long after the due jobs are created (the restart is in it).
  int settle_seconds = 5;  // After the restart and after the burst, before reading memory.
  int admin_threads = 4;
  int drain_max_seconds = 900;
  int admin_budget_seconds = 3600;
  int64_t late_ms = 5000;  // A slot started later than this is late.
};

double MiB(int64_t kib) { return kib < 0 ? -1 : kib / 1024.0; }

// "S M H * * ?" for the UTC second of the day `sod`.
std::string DailyCron(int64_t sod) {
  return absl::StrCat(sod % 60, " ", sod / 60 % 60, " ", sod / 3600, " * * ?");
}

// Held job i of `held` fires daily at this second of the (UTC) day.
int64_t HeldSecondOfDay(int64_t i, int64_t held) { return i * kSecondsPerDay / held; }

// Held jobs' slots in the whole seconds [from_ms, to_ms).
int64_t HeldSlotsIn(int64_t from_ms, int64_t to_ms, int64_t held) {
  std::vector<int64_t> per_second(kSecondsPerDay, 0);
  for (int64_t i = 0; i < held; ++i) ++per_second[HeldSecondOfDay(i, held)];
  int64_t n = 0;
  for (int64_t s = from_ms / 1000; s < to_ms / 1000; ++s) n += per_second[s % kSecondsPerDay];
  return n;
}

// gnomond's "scheduler: pre-read of ..." lines logged in [from_ms, to_ms),
// each with its instant relative to `t_ms`.
std::vector<std::string> PrereadLines(const std::string& output, int64_t from_ms, int64_t to_ms,
                                      int64_t t_ms) {
  std::vector<std::string> out;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    const size_t at = line.find("scheduler: pre-read of");
    if (at == absl::string_view::npos || line.size() < 24) continue;
    absl::Time when;
    std::string err;
    if (!absl::ParseTime("%Y-%m-%dT%H:%M:%E3SZ", std::string(line.substr(0, 24)), &when, &err))
      continue;
    const int64_t ms = absl::ToUnixMillis(when);
    if (ms < from_ms || ms >= to_ms) continue;
    out.push_back(absl::StrFormat("T%+.3f s: %s", (ms - t_ms) / 1000.0, line.substr(at + 11)));
  }
  return out;
}

// CPU seconds of each process (and of this bench) from a starting sample.
struct CpuSample {
  std::vector<std::pair<std::string, pid_t>> procs;
  std::vector<double> at_start;
  explicit CpuSample(const BurstDeployment& d) {
    for (const auto& p : d.processes()) procs.push_back({p.name, p.process->pid()});
    procs.push_back({"bench", ::getpid()});
    for (const auto& [name, pid] : procs) at_start.push_back(testing::CpuSeconds(pid));
  }
  std::string Since() const {
    std::vector<std::string> cells;
    for (size_t i = 0; i < procs.size(); ++i) {
      cells.push_back(absl::StrFormat("%s %.1f", procs[i].first,
                                      testing::CpuSeconds(procs[i].second) - at_start[i]));
    }
    return absl::StrJoin(cells, ", ");
  }
};

std::string Memory(pid_t pid) {
  const testing::ResidentKib r = testing::Resident(pid);
  return absl::StrFormat("VmRSS %.0f MiB (anon %.0f, file %.0f), VmHWM %.0f MiB", MiB(r.total),
                         MiB(r.anon), MiB(r.file), MiB(testing::PeakRssKib(pid)));
}

// Figures printed as they are measured, and as a Markdown table at the end.
class Figures {
 public:
  void Add(const std::string& what, const std::string& value) {
    std::printf("RESULT %s: %s\n", what.c_str(), value.c_str());
    rows_.push_back({what, value});
  }
  void PrintTable(const std::string& title) const {
    std::printf("\n| %s | |\n|---|---|\n", title.c_str());
    for (const auto& [what, value] : rows_)
      std::printf("| %s | %s |\n", what.c_str(), value.c_str());
  }

 private:
  std::vector<std::pair<std::string, std::string>> rows_;
};

// Creates `n` jobs (job i filled by `fill`) and prints the pass's figures.
std::optional<CreatedJobs> Create(const char* what, v1::JobAdmin::Stub& admin,
                                  const BurstDeployment& d, int n, const BenchOptions& o,
                                  Figures& figures,
                                  const std::function<void(int, v1::Job&)>& fill) {
  const pid_t gnomond = d.replicas()[0]->pid();
  CpuSample cpu(d);
  CreatedJobs c = CreateJobsInBatches(admin, d.admin_token(), n, o.admin_threads,
                                      absl::Seconds(o.admin_budget_seconds),
                                      [&](int i, v1::CreateJobRequest& r) {
                                        fill(i, *r.mutable_job());
                                        r.set_start(true);
                                      });
  if (!c.pass.error.ok() || c.created < n) {
    std::printf("FAILED: creating %s jobs: %d/%d created: %s%s\n", what, c.created, n,
                c.pass.error.ToString().c_str(), c.pass.over_budget ? " (out of budget)" : "");
    return std::nullopt;
  }
  figures.Add(
      absl::StrCat("create ", n, " ", what, " jobs"),
      absl::StrFormat(
          "%.0f jobs/s (%.1f s, %d BatchCreateJobs calls on %d threads, call ms p50/p99/max %s); "
          "CPU s %s; gnomond after: %s",
          c.created / c.pass.seconds, c.pass.seconds, c.calls, o.admin_threads,
          LatencyMs(c.pass.latency_us), cpu.Since(), Memory(gnomond)));
  return c;
}

// Stops gnomond (SIGTERM) and starts it again on the same database; prints
// how long until it answers the admin API (GetJob of `job_id`) and its
// memory once settled.
bool MeasureRestart(BurstDeployment& d, const BenchOptions& o, int64_t job_id, Figures& figures) {
  const absl::Time stop0 = absl::Now();
  const int exit_code = d.StopReplica(0);
  const absl::Duration stop_took = absl::Now() - stop0;
  const absl::Time spawn = absl::Now();
  if (absl::Status s = d.StartReplica(0); !s.ok()) {
    std::printf("FAILED: restart: %s\n", s.ToString().c_str());
    return false;
  }
  const absl::Duration listening = absl::Now() - spawn;
  v1::Job got;
  {
    // A new channel: the old one may be backing off from the stopped server.
    auto again = v1::JobAdmin::NewStub(
        grpc::CreateChannel(d.addresses()[0], grpc::InsecureChannelCredentials()));
    grpc::ClientContext ctx;
    PrepareAdminCall(ctx, d.admin_token(), absl::Seconds(30));
    v1::GetJobRequest req;
    req.set_job_id(job_id);
    if (grpc::Status s = again->GetJob(&ctx, req, &got); !s.ok()) {
      std::printf("FAILED: GetJob after the restart: %s\n", s.error_message().c_str());
      return false;
    }
  }
  const absl::Duration answered = absl::Now() - spawn;
  const pid_t gnomond = d.replicas()[0]->pid();
  absl::SleepFor(absl::Seconds(o.settle_seconds));
  figures.Add(
      "restart (SIGTERM, start on the same database)",
      absl::StrFormat(
          "stopped in %d ms (exit %d); listening %d ms and answering the admin API %d ms after "
          "the start; after %d s: %s, CPU %.2f s",
          absl::ToInt64Milliseconds(stop_took), exit_code, absl::ToInt64Milliseconds(listening),
          absl::ToInt64Milliseconds(answered), o.settle_seconds, Memory(gnomond),
          testing::CpuSeconds(gnomond)));
  return true;
}

// The `due` jobs' slot at T (and the `held` held jobs, ids `held_ids`, due
// around it): waits from T-8 s (before the first pre-read that lists the due
// jobs; the pre-read window is 5 s, and the peak RSS restarts there) until
// their runs stop starting, then prints what happened.
bool MeasureBurst(BurstDeployment& d, const BenchOptions& o, int64_t t_ms, const CreatedJobs& due,
                  int held, JobIds held_ids, Figures& figures) {
  const pid_t gnomond = d.replicas()[0]->pid();
  const int64_t from_ms = t_ms - 8000;
  absl::SleepFor(absl::FromUnixMillis(from_ms) - absl::Now());
  const bool peak_reset = testing::ResetPeakRss(gnomond);
  const int64_t rss_before_kib = testing::Resident(gnomond).total;
  CpuSample cpu(d);
  std::unique_ptr<StoreReader> reader = SqliteStoreReader(d.sqlite_path());
  const JobIds due_ids{due.min_id, due.max_id};
  Drain(*reader, t_ms, t_ms + 1000, o.late_ms, absl::Seconds(o.drain_max_seconds), due_ids);
  const int64_t drained_ms = absl::ToUnixMillis(absl::Now());
  const std::string burst_cpu = cpu.Since();
  const int64_t peak_kib = testing::PeakRssKib(gnomond);
  const int64_t rss_after_kib = testing::Resident(gnomond).total;
  for (const std::string& line :
       PrereadLines(d.replicas()[0]->Output(), from_ms, drained_ms, t_ms)) {
    std::printf("  %s\n", line.c_str());
  }
  absl::StatusOr<SlotOutcomes> out =
      ReadSlotOutcomes(*reader, t_ms, t_ms + 1000, o.late_ms, due_ids);
  if (!out.ok()) {
    std::printf("FAILED: reading the run table: %s\n", out.status().ToString().c_str());
    return false;
  }
  const int64_t first_recorded =
      out->record_lateness_ms.empty()
          ? 0
          : *std::min_element(out->record_lateness_ms.begin(), out->record_lateness_ms.end());
  figures.Add(
      absl::StrCat(due.created, " due at T: runs recorded / started / started within ",
                   o.late_ms / 1000, " s"),
      absl::StrCat(out->recorded_slots, " / ", out->started_slots, " / ",
                   out->started_slots - out->late_slots, " of ", due.created, " (duplicate slots ",
                   out->duplicate_slots, ", misfire-policy runs ", out->misfire_runs, ")"));
  figures.Add("due at T: recorded (trigger_ms - T) first / p50 / p99 / max ms",
              absl::StrCat(first_recorded, " / ", Percentiles(out->record_lateness_ms)));
  figures.Add("due at T: lateness at dispatch p50 / p99 / max ms",
              Percentiles(out->dispatch_lateness_ms));
  figures.Add("due at T: lateness at handler start p50 / p99 / max ms",
              Percentiles(out->start_lateness_ms));
  figures.Add("due at T: handler ended p50 / p99 / max ms after T",
              Percentiles(out->end_lateness_ms));
  for (const auto& [why, n] : out->unsuccessful) {
    std::printf("    not succeeded: %lld x %s\n", static_cast<long long>(n), why.c_str());
  }
  std::vector<std::string> executor_peaks;
  for (const auto& p : d.processes()) {
    if (p.process->pid() != gnomond) {
      executor_peaks.push_back(absl::StrFormat("%.0f", MiB(testing::PeakRssKib(p.process->pid()))));
    }
  }
  figures.Add(
      absl::StrFormat("around T (T-8 s to T+%.0f s)", (drained_ms - t_ms) / 1000.0),
      absl::StrFormat(
          "CPU s %s; gnomond RSS %.0f MiB before, peak %.0f MiB%s, %.0f MiB after; executors' "
          "peak RSS %s MiB",
          burst_cpu, MiB(rss_before_kib), MiB(peak_kib),
          peak_reset ? "" : " (VmHWM not reset: since start)", MiB(rss_after_kib),
          absl::StrJoin(executor_peaks, ", ")));
  // The held jobs that fired meanwhile: before T while the due ones were
  // pre-read, after T while they were dispatched.
  for (const auto& [from, to, what] :
       {std::tuple<int64_t, int64_t, const char*>{t_ms - 8000, t_ms, "T-8 s to T"},
        {t_ms, t_ms + 8000, "T to T+8 s"}}) {
    if (held == 0) break;
    absl::StatusOr<SlotOutcomes> h = ReadSlotOutcomes(*reader, from, to, o.late_ms, held_ids);
    if (!h.ok()) continue;
    figures.Add(absl::StrCat("held jobs due ", what,
                             ": started / expected; lateness at start p50 / p99 / max ms"),
                absl::StrCat(h->started_slots, " / ", HeldSlotsIn(from, to, held), "; ",
                             Percentiles(h->start_lateness_ms)));
  }

  absl::SleepFor(absl::Seconds(o.settle_seconds));
  figures.Add(absl::StrCat("gnomond ", o.settle_seconds, " s after the burst"), Memory(gnomond));
  return true;
}

bool Run(const BenchOptions& o) {
  const int held = o.jobs - o.due;
  std::printf(
      "=== jobs_held_bench: %d jobs (%d held daily, %d due on one instant T), SQLite, one gnomond, "
      "two sample executors, %ld CPUs\n",
      o.jobs, held, o.due, ::sysconf(_SC_NPROCESSORS_ONLN));
  absl::StatusOr<std::unique_ptr<BurstDeployment>> started = BurstDeployment::Start({});
  if (!started.ok()) {
    std::printf("FAILED: %s\n", started.status().ToString().c_str());
    return false;
  }
  BurstDeployment& d = **started;
  Figures figures;
  auto channel = grpc::CreateChannel(d.addresses()[0], grpc::InsecureChannelCredentials());
  auto admin = v1::JobAdmin::NewStub(channel);
  absl::StatusOr<v1::Group> group = CreateGroup(*admin, d.admin_token(), "held", "jobs_held_bench");
  if (!group.ok()) {
    std::printf("FAILED: %s\n", group.status().ToString().c_str());
    return false;
  }
  if (absl::Status s = d.StartExecutors(group->app_name(), group->access_token()); !s.ok()) {
    std::printf("FAILED: %s\n", s.ToString().c_str());
    return false;
  }
  const pid_t gnomond = d.replicas()[0]->pid();
  std::printf("gnomond started: %s\n", Memory(gnomond).c_str());
  auto job = [&](v1::Job& j, const std::string& description, int64_t sod) {
    j.set_group_id(group->id());
    j.set_description(description);
    j.mutable_schedule()->mutable_cron()->set_expression(DailyCron(sod));
    j.mutable_bean()->set_handler("noop");
    j.set_route_strategy(v1::ROUTE_STRATEGY_ROUND);
  };

  // 1. The held jobs, then the due ones.
  std::optional<CreatedJobs> held_jobs;
  double rate = 20000;
  if (held > 0) {
    held_jobs = Create("held", *admin, d, held, o, figures, [&](int i, v1::Job& j) {
      job(j, absl::StrCat("held ", i), HeldSecondOfDay(i, held));
    });
    if (!held_jobs) return false;
    rate = held_jobs->created / held_jobs->pass.seconds;
  }
  // A whole second, `lead` after the due jobs are created at the held pass's rate (with a margin).
  const int64_t creating_ms = static_cast<int64_t>(1500.0 * o.due / rate);
  const int64_t t_ms =
      (absl::ToUnixMillis(absl::Now()) + creating_ms + o.lead_seconds * 1000LL) / 1000 * 1000 +
      1000;
  const int64_t t_sod = t_ms / 1000 % kSecondsPerDay;
  std::printf("T = %s (cron \"%s\" UTC)\n", absl::FormatTime(absl::FromUnixMillis(t_ms)).c_str(),
              DailyCron(t_sod).c_str());
  std::optional<CreatedJobs> due_jobs =
      Create("due", *admin, d, o.due, o, figures,
             [&](int i, v1::Job& j) { job(j, absl::StrCat("due ", i), t_sod); });
  if (!due_jobs) return false;
  const int64_t lead_ms = t_ms - absl::ToUnixMillis(absl::Now());
  figures.Add(absl::StrCat(o.jobs, " jobs held"), Memory(gnomond));
  std::printf("the due jobs were created %.1f s before T\n", lead_ms / 1000.0);

  // 2. Restart on the same database, with all the jobs held; 3. the burst.
  if (!MeasureRestart(d, o, due_jobs->max_id, figures)) return false;
  if (t_ms - absl::ToUnixMillis(absl::Now()) < 10000) {
    std::printf(
        "NOTE: the restart ended less than 10 s before T: the pre-read may have begun before it\n");
  }
  const JobIds held_ids = held_jobs ? JobIds{held_jobs->min_id, held_jobs->max_id} : JobIds{};
  if (!MeasureBurst(d, o, t_ms, *due_jobs, held, held_ids, figures)) return false;
  d.Stop();

  figures.PrintTable(absl::StrCat(o.jobs, " jobs, SQLite, one gnomond, 2 executors"));
  return true;
}

bool ParseArgs(int argc, char** argv, BenchOptions& o) {
  auto positive = [](absl::string_view v, int& out) {
    return absl::SimpleAtoi(v, &out) && out > 0;
  };
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    bool ok = true;
    if (a == "--quick") {
      o.jobs = 100'000;
      o.due = 10'000;
      o.lead_seconds = 20;
    } else if (absl::ConsumePrefix(&a, "--jobs=")) {
      ok = positive(a, o.jobs);
    } else if (absl::ConsumePrefix(&a, "--due=")) {
      ok = positive(a, o.due);
    } else if (absl::ConsumePrefix(&a, "--lead=")) {
      ok = positive(a, o.lead_seconds);
    } else if (absl::ConsumePrefix(&a, "--settle=")) {
      ok = positive(a, o.settle_seconds);
    } else if (absl::ConsumePrefix(&a, "--admin-threads=")) {
      ok = positive(a, o.admin_threads);
    } else if (absl::ConsumePrefix(&a, "--drain-max=")) {
      ok = positive(a, o.drain_max_seconds);
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(
          stderr,
          "jobs_held_bench: bad argument %s\nusage: jobs_held_bench [--quick] [--jobs=1000000] "
          "[--due=100000] [--lead=60] [--settle=5] [--admin-threads=4] [--drain-max=900]\n",
          argv[i]);
      return false;
    }
  }
  if (o.due > o.jobs) {
    std::fprintf(stderr, "jobs_held_bench: --due=%d is more than --jobs=%d\n", o.due, o.jobs);
    return false;
  }
  return true;
}

}  // namespace
}  // namespace gnomon::bench

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // Figures appear as they are measured.
  gnomon::bench::BenchOptions o;
  if (!gnomon::bench::ParseArgs(argc, argv, o)) return 2;
  return gnomon::bench::Run(o) ? 0 : 1;
}

// burst_bench: the workload users run, with real processes on loopback.
// J distinct jobs, all due on the same instants, the noop handler, two sample
// executors, in two deployments:
//   sqlite  one gnomond (all roles) on SQLite
//   mysql   N gnomond replicas (all roles each; --replicas, default 2) on a
//           throwaway MariaDB the bench starts itself; executors list every
//           replica's registry
// Two shapes of schedule (--shape):
//   second  (default) cron "* * * * * ?": all J due every whole second. For
//           each (J, deployment, replicas): the jobs are created and started
//           through the admin API, the schedule warms up (--warmup, default
//           5 s), then a window of --seconds whole seconds is measured and,
//           after a drain (at most --drain-max, default 60 s), every expected
//           slot of the window is looked up in the run table, and each
//           replica's share of the partitions (lease table) and of the fires
//           (runs by partition and fencing epoch) is read.
//   minute  cron "0 * * * * ?": all J due at second 0 of every minute, as
//           "0 0 * * * ?" jobs are at the top of the hour, and idle between.
//           Two consecutive instants are measured, the first being the first
//           whole minute at least --warmup (default 30) s after the jobs are
//           started; the drain waits at most --drain-max (default 600) s for
//           their last slots. Per instant: jobs due, runs recorded before it
//           and in all, started, failed (and why), lateness at handler start,
//           when the last slot started and how many never did, CPU and peak
//           RSS per process over [M-10 s, M+50 s), mariadbd CPU s per 1,000
//           runs (bench/burst_minute.h). --seconds does not apply.
// Figures are printed, never asserted: a row per configuration (per instant
// with --shape=minute) as it is measured, and Markdown tables at the end.
//
// With --metrics=on every process serves /metrics and the bench scrapes each
// one every second through the measurement (--metrics=off,on: one
// configuration each, to compare).
//
//   burst_bench [--quick] [--shape=second|minute] [--jobs=1000,10000,30000]
//               [--stores=sqlite,mysql] [--replicas=2] [--seconds=30] [--warmup=S]
//               [--route=round|first] [--capacity=N] [--admin-threads=4]
//               [--admin-budget=600] [--drain-max=S] [--metrics=off|on|off,on]
//               [--mariadb-args=--log-bin,...] [--params=TEMPLATE] [--zone=ZONE]
//               [--calendar] [--jitter=MS]
//
// --mariadb-args adds settings to the throwaway MariaDB's command line (to
// compare them). --params gives every job those params (a template is
// rendered per fire: docs/parameters.md) and --zone its cron's zone.
// --calendar makes every job name one business-day calendar (every
// weekday, 60 holidays, two windows that leave out only 03:00-03:01; read
// in --zone): each fire then pays its calendar check. --jitter=MS gives
// every job that jitter (its fires spread over it). bench/store_cost_bench
// splits the store's CPU per run by step.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "bench/admin_pass.h"
#include "bench/bench_args.h"
#include "bench/burst_deployment.h"
#include "bench/burst_figures.h"
#include "bench/burst_minute.h"
#include "bench/metrics_scraper.h"
#include "bench/partition_shares.h"
#include "bench/store_reader.h"
#include "bench/window_figures.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/proc_stats.h"
#include "tests/support/throwaway_mariadb.h"

namespace gnomon::bench {
namespace {

using testing::ThrowawayMariadb;

struct BenchOptions {
  bool minute = false;  // --shape=minute: "0 * * * * ?" instead of "* * * * * ?".
  std::vector<int> jobs = {1000, 10000, 30000};
  std::vector<std::string> stores = {"sqlite", "mysql"};
  // gnomond replicas on MariaDB, one configuration each (SQLite runs one).
  std::vector<int> replicas = {2};
  int seconds = 30;
  // -1: the shape's default (Warmup(), DrainMax()).
  int warmup_seconds = -1;
  v1::RouteStrategy route = v1::ROUTE_STRATEGY_ROUND;
  // Each executor's --max-concurrent-runs; 0 leaves the executor's default.
  int capacity = 0;
  int admin_threads = 4;
  int drain_max_seconds = -1;
  // Per admin pass (create, start): calls stop being issued after this.
  int admin_budget_seconds = 600;
  // A slot whose run started later than this after its instant is missed.
  int64_t late_ms = 5000;
  // Metrics served and scraped, one configuration per entry.
  std::vector<bool> metrics = {false};
  // Added to the throwaway MariaDB's command line (settings to compare).
  std::vector<std::string> mariadb_args;
  // Every job's params (a template costs its rendering per fire) and its
  // cron's zone.
  std::string params;
  std::string zone;
  bool calendar = false;
  int64_t jitter_ms = 0;

  // A minute's instant comes well after the jobs are started (they are
  // armed, the admin pass's load is over), and its 100,000 slots may take
  // minutes to drain.
  int Warmup() const { return warmup_seconds >= 0 ? warmup_seconds : minute ? 30 : 5; }
  int DrainMax() const { return drain_max_seconds > 0 ? drain_max_seconds : minute ? 600 : 60; }
};

// One printed row; every cell is already text.
struct Row {
  std::string jobs, store, delivered, fires_per_s, missed, duplicates, start_lateness,
      dispatch_lateness, cpu, rss, threads, statements, commits, store_cpu_per_1000;
};

// One replica's share of a configuration's scheduling; every cell is text.
struct ReplicaRow {
  std::string jobs, store, replica, partitions, fires, cpu, cpu_per_1000;
};

void PrintRow(const Row& r) {
  std::printf(
      "RESULT J=%s %s: delivered %s (%s/s) | missed %s | duplicates %s | lateness ms p50/p99/max "
      "at start %s, "
      "at dispatch %s | CPU s %s | peak RSS MiB %s | threads/executor %s | statements/run %s | "
      "commits/run %s | store CPU s per 1,000 runs %s\n",
      r.jobs.c_str(), r.store.c_str(), r.delivered.c_str(), r.fires_per_s.c_str(), r.missed.c_str(),
      r.duplicates.c_str(), r.start_lateness.c_str(), r.dispatch_lateness.c_str(), r.cpu.c_str(),
      r.rss.c_str(), r.threads.c_str(), r.statements.c_str(), r.commits.c_str(),
      r.store_cpu_per_1000.c_str());
}

void PrintMarkdown(const std::vector<Row>& rows, const std::vector<ReplicaRow>& replicas) {
  std::vector<std::vector<std::string>> cells;
  for (const Row& r : rows) {
    cells.push_back({r.jobs, r.store, r.delivered, r.fires_per_s, r.missed, r.duplicates,
                     r.start_lateness, r.dispatch_lateness, r.cpu, r.rss, r.threads, r.statements,
                     r.commits, r.store_cpu_per_1000});
  }
  PrintMarkdownTable(
      {"J", "store", "delivered/expected", "fires/s delivered",
       "missed (no run / not started / late)", "duplicates (slots / executed twice)",
       "lateness at start ms p50/p99/max", "lateness at dispatch (accept received) ms p50/p99/max",
       "CPU s per process", "peak RSS MiB per process", "threads per executor (max)",
       "statements/run", "commits/run", "mariadbd CPU s per 1,000 runs"},
      cells);
  cells.clear();
  for (const ReplicaRow& r : replicas) {
    cells.push_back({r.jobs, r.store, r.replica, r.partitions, r.fires, r.cpu, r.cpu_per_1000});
  }
  PrintMarkdownTable({"J", "store", "replica", "partitions held (window start -> end)",
                      "fires recorded in the window (share)", "CPU s", "CPU s per 1,000 fires"},
                     cells);
}

void SleepUntil(absl::Time t) { absl::SleepFor(t - absl::Now()); }  // The bench's own pacing.

// The end of a process's output.
std::string Tail(const std::string& out, size_t n) {
  return out.size() <= n ? out : "..." + out.substr(out.size() - n);
}

std::string Fixed(double v, int digits) { return absl::StrFormat("%.*f", digits, v); }

constexpr char kBenchCalendar[] = "bench-business-days";

// The calendar --calendar jobs name: every weekday, 60 holidays (none in
// the coming years), all day but 03:00-03:01, read in the jobs' zone.
bool CreateBenchCalendar(v1::JobAdmin::Stub& admin, const std::string& token) {
  v1::CreateCalendarRequest req;
  v1::Calendar& c = *req.mutable_calendar();
  c.set_name(kBenchCalendar);
  for (int d = v1::MONDAY; d <= v1::SUNDAY; ++d) c.add_weekdays(static_cast<v1::Weekday>(d));
  for (int i = 0; i < 60; ++i) {
    c.add_excluded_dates(absl::StrFormat("%04d-%02d-%02d", 2040 + i / 12, i % 12 + 1, 1 + i % 28));
  }
  c.add_windows("00:00-03:00");
  c.add_windows("03:01-24:00");
  grpc::ClientContext ctx;
  ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(token));
  v1::Calendar created;
  grpc::Status s = admin.CreateCalendar(&ctx, req, &created);
  if (!s.ok()) std::printf("FAILED: create calendar: %s\n", s.error_message().c_str());
  return s.ok();
}

// Creates and starts the jobs with JobAdmin.BatchCreateJobs, 1,000 a call
// (the way a user provisions thousands of jobs). Returns how many jobs were
// created (fewer than `jobs` when the pass ran out of its budget), or nullopt
// after a failure.
std::optional<int> ProvisionJobs(v1::JobAdmin::Stub& admin, const std::string& token,
                                 int64_t group_id, int jobs, const BenchOptions& o) {
  const char* cron = o.minute ? kMinuteCron : "* * * * * ?";
  CreatedJobs c = CreateJobsInBatches(
      admin, token, jobs, o.admin_threads, absl::Seconds(o.admin_budget_seconds),
      [&](int i, v1::CreateJobRequest& r) {
        v1::Job* job = r.mutable_job();
        job->set_group_id(group_id);
        job->set_description(absl::StrCat("burst ", i));
        job->mutable_schedule()->mutable_cron()->set_expression(cron);
        job->mutable_schedule()->mutable_cron()->set_time_zone(o.zone);
        job->set_params(o.params);
        if (o.calendar) job->mutable_schedule()->set_calendar(kBenchCalendar);
        if (o.jitter_ms > 0) {
          *job->mutable_schedule()->mutable_jitter() =
              google::protobuf::util::TimeUtil::MillisecondsToDuration(o.jitter_ms);
        }
        job->mutable_bean()->set_handler("noop");
        job->set_route_strategy(o.route);
        r.set_start(true);
      });
  std::printf(
      "admin API, %d client threads: created and started %d/%d jobs (cron \"%s\") in %.1f s with "
      "%d BatchCreateJobs calls (%.0f jobs/s; call ms p50/p99/max %s)\n",
      o.admin_threads, c.created, jobs, cron, c.pass.seconds, c.calls, c.created / c.pass.seconds,
      LatencyMs(c.pass.latency_us).c_str());
  if (!c.pass.error.ok()) {
    std::printf("FAILED: create jobs: %s\n", c.pass.error.ToString().c_str());
    return std::nullopt;
  }
  if (c.pass.over_budget) {
    std::printf("NOTE: the admin pass ran out of its %d s budget; measuring the %d jobs created\n",
                o.admin_budget_seconds, c.created);
  }
  return c.created;
}

// CPU, memory and threads of each process, and the MariaDB counters, over
// the window [t0_ms, t0_ms + seconds). Process figures are sampled half a
// second before each boundary, so the burst at t0 lies inside their interval.
WindowFigures MeasureWindow(std::vector<ProcessFigures> procs, const ThrowawayMariadb* mariadb,
                            int64_t t0_ms, int seconds) {
  SleepUntil(absl::FromUnixMillis(t0_ms - 500));
  WindowSampler sampler(std::move(procs), mariadb ? mariadb->socket() : "");
  for (int s = 0; s < seconds; ++s) {
    SleepUntil(absl::FromUnixMillis(t0_ms + int64_t{s} * 1000));
    sampler.SampleThreads();
  }
  SleepUntil(absl::FromUnixMillis(t0_ms + int64_t{seconds} * 1000 - 500));
  return sampler.Finish();
}

// Commits and statements per run: each replica's rate over its own stats
// lines in the window, summed, over the rate of runs recorded in the window;
// on MariaDB the server's counters over the runs recorded between the samples.
void PerRunCosts(StoreReader& reader, const BurstDeployment& d, const WindowFigures& w,
                 int64_t t0_ms, int64_t t1_ms, bool mariadb, Row& row) {
  absl::StatusOr<int64_t> runs = CountRunsRecorded(reader, t0_ms, t1_ms);
  const double runs_per_s = runs.ok() ? *runs * 1000.0 / (t1_ms - t0_ms) : 0;
  double commits_per_s = 0, statements_per_s = 0;
  bool have_commits = true, have_statements = true;
  for (const auto& r : d.replicas()) {
    StoreStatsDelta s = ParseStoreStats(r->Output(), t0_ms, t1_ms);
    have_commits = have_commits && s.span_ms > 0;
    have_statements = have_statements && s.span_ms > 0 && s.statements.has_value();
    if (s.span_ms <= 0) continue;
    commits_per_s += s.transactions * 1000.0 / s.span_ms;
    if (s.statements) statements_per_s += *s.statements * 1000.0 / s.span_ms;
  }
  row.commits = have_commits && runs_per_s > 0 ? Fixed(commits_per_s / runs_per_s, 4) : "n/a";
  row.statements =
      have_statements && runs_per_s > 0 ? Fixed(statements_per_s / runs_per_s, 2) : "n/a";
  std::printf(
      "runs recorded in the window: %.0f/s; gnomond commits %.0f/s (%s per run), statements per "
      "run "
      "counted by gnomond: %s\n",
      runs_per_s, commits_per_s, row.commits.c_str(), row.statements.c_str());
  if (!mariadb) return;
  ServerPerRun server = PrintServerPerRun(reader, w);
  if (server.statements) row.statements = *server.statements;
  row.store_cpu_per_1000 = server.mariadbd_cpu_per_1000;
}
// Each replica's share of the partitions (at the window's start and end) and
// of the runs recorded in the window, and its CPU seconds per 1,000 of them.
std::vector<ReplicaRow> ReplicaShares(StoreReader& reader, const WindowFigures& w, int64_t t0_ms,
                                      int64_t t1_ms, const std::vector<PartitionHolders>& holders,
                                      const Row& row) {
  std::vector<ReplicaRow> out;
  absl::StatusOr<FireShares> fires = ReadFireShares(reader, t0_ms, t1_ms, holders);
  if (!fires.ok() || fires->total == 0) {
    std::printf("per-replica shares: n/a (%s)\n",
                fires.ok() ? "no runs" : fires.status().ToString().c_str());
    return out;
  }
  int moved = 0;
  const int count = std::min(holders.front().count(), holders.back().count());
  for (int p = 0; p < count; ++p) moved += holders.front().epoch[p] != holders.back().epoch[p];
  std::printf(
      "partitions that changed holder during the window: %d; runs not attributable to a holder: "
      "%lld\n",
      moved, static_cast<long long>(fires->unattributed));
  for (const ProcessFigures& p : w.processes) {
    if (!absl::StartsWith(p.name, "gnomond")) continue;
    std::vector<std::string> held;
    for (const PartitionHolders& h : holders) held.push_back(absl::StrCat(h.Held(p.name).size()));
    const int64_t n = fires->by_replica[p.name];
    ReplicaRow r;
    r.jobs = row.jobs;
    r.store = row.store;
    r.replica = p.name;
    r.partitions = absl::StrJoin(held, " -> ");
    r.fires = absl::StrCat(n, " (", Fixed(100.0 * n / fires->total, 1), "%)");
    r.cpu = Fixed(p.cpu_s, 1);
    r.cpu_per_1000 = n > 0 ? Fixed(p.cpu_s * 1000 / n, 2) : "n/a";
    std::printf(
        "replica %s: partitions %s of %d, runs recorded %s, CPU %s s, %s CPU s per 1,000 runs\n",
        p.name.c_str(), r.partitions.c_str(), count, r.fires.c_str(), r.cpu.c_str(),
        r.cpu_per_1000.c_str());
    out.push_back(std::move(r));
  }
  return out;
}

// The lease table now; an empty snapshot (with a line saying so) when it
// cannot be read.
PartitionHolders Holders(StoreReader& reader) {
  absl::StatusOr<PartitionHolders> h =
      ReadPartitionHolders(reader, absl::ToUnixMillis(absl::Now()));
  if (h.ok()) return *std::move(h);
  std::printf("NOTE: reading the lease table: %s\n", h.status().ToString().c_str());
  return PartitionHolders{};
}

// One configuration's processes, started, with its jobs created and started.
// Members are destroyed in reverse: gnomond and the executors stop before
// the MariaDB server.
struct Configuration {
  std::unique_ptr<ThrowawayMariadb> mariadb;  // Null on SQLite.
  std::unique_ptr<BurstDeployment> deployment;
  std::unique_ptr<StoreReader> reader;
  int started_jobs = 0;
  std::string jobs, store;  // The rows' first cells.

  std::string MariadbSocket() const { return mariadb ? mariadb->socket() : ""; }
  std::vector<ProcessFigures> Processes() const {
    std::vector<ProcessFigures> procs;
    for (const auto& p : deployment->processes()) procs.push_back({p.name, p.process->pid()});
    if (mariadb) procs.push_back({"mariadbd", mariadb->pid()});
    return procs;
  }
};

// Starts the store (MariaDB) and the processes, creates the group, starts
// the executors and creates and starts the jobs.
std::optional<Configuration> StartConfiguration(int jobs, const std::string& store, int replicas,
                                                bool metrics, const BenchOptions& o) {
  Configuration c;
  BurstDeploymentOptions d_options;
  d_options.gnomond_flags = {"--store-stats-interval=1s"};
  d_options.executor_capacity = o.capacity;
  d_options.metrics = metrics;
  const std::string database = absl::StrCat("gnomon_burst_", jobs);
  if (store == "mysql") {
    std::vector<std::string> server_args = o.mariadb_args;
    absl::StatusOr<std::unique_ptr<ThrowawayMariadb>> db = ThrowawayMariadb::Start(server_args);
    if (absl::IsUnavailable(db.status())) {
      std::printf("SKIPPED J=%d mysql: %s\n", jobs, std::string(db.status().message()).c_str());
      return std::nullopt;
    }
    if (!db.ok()) {
      std::printf("FAILED J=%d mysql: %s\n", jobs, db.status().ToString().c_str());
      return std::nullopt;
    }
    c.mariadb = *std::move(db);
    d_options.replicas = replicas;
    d_options.store_url = c.mariadb->Url(database);
  }
  absl::StatusOr<std::unique_ptr<BurstDeployment>> started = BurstDeployment::Start(d_options);
  if (!started.ok()) {
    std::printf("FAILED J=%d %s: %s\n", jobs, store.c_str(), started.status().ToString().c_str());
    return std::nullopt;
  }
  c.deployment = *std::move(started);
  BurstDeployment& d = *c.deployment;
  auto admin = v1::JobAdmin::NewStub(
      grpc::CreateChannel(d.addresses()[0], grpc::InsecureChannelCredentials()));
  absl::StatusOr<v1::Group> group =
      CreateGroup(*admin, d.admin_token(), absl::StrCat("burst-", jobs), "burst_bench");
  if (!group.ok()) {
    std::printf("FAILED J=%d %s: %s\n", jobs, store.c_str(), group.status().ToString().c_str());
    return std::nullopt;
  }
  if (absl::Status s = d.StartExecutors(group->app_name(), group->access_token()); !s.ok()) {
    std::printf("FAILED J=%d %s: %s\n", jobs, store.c_str(), s.ToString().c_str());
    return std::nullopt;
  }
  if (o.calendar && !CreateBenchCalendar(*admin, d.admin_token())) return std::nullopt;
  std::optional<int> started_jobs = ProvisionJobs(*admin, d.admin_token(), group->id(), jobs, o);
  if (!started_jobs) return std::nullopt;
  c.started_jobs = *started_jobs;
  c.reader = c.mariadb ? MariadbStoreReader(c.mariadb->socket(), database)
                       : SqliteStoreReader(d.sqlite_path());
  c.jobs = *started_jobs == jobs ? absl::StrCat(jobs)
                                 : absl::StrCat(jobs, " (", *started_jobs, " started)");
  c.store = c.mariadb
                ? absl::StrCat("mysql (", replicas, replicas == 1 ? " replica)" : " replicas)")
                : "sqlite";
  if (metrics) c.store += ", metrics on";
  return c;
}

void PrintScrapes(MetricsScraper& scraper, const BurstDeployment& d) {
  const MetricsScraper::Totals t = scraper.Stop();
  std::printf("metrics: %lld scrapes of %zu endpoints (%lld failed), %.0f KiB per scrape\n",
              static_cast<long long>(t.scrapes), d.metrics_urls().size(),
              static_cast<long long>(t.failures),
              t.scrapes > t.failures ? t.bytes / 1024.0 / (t.scrapes - t.failures) : 0.0);
}

// A line (and the end of its output) for each process that has exited.
void NoteExits(const BurstDeployment& d) {
  for (const auto& p : d.processes()) {
    if (std::optional<int> code = p.process->WaitFor(absl::ZeroDuration())) {
      std::printf("NOTE: %s exited during the measurement (exit %d); its last output:\n%s\n",
                  p.name.c_str(), *code, Tail(p.process->Output(), 1500).c_str());
    }
  }
}

std::string Capacity(const BenchOptions& o) {
  return o.capacity > 0 ? absl::StrCat(o.capacity) : "(the executor's default)";
}

std::optional<Row> RunOne(int jobs, const std::string& store, int replicas, bool metrics,
                          const BenchOptions& o, std::vector<ReplicaRow>& replica_rows) {
  std::printf(
      "\n=== J=%d store=%s, %d replica(s), metrics %s: %d s window after %d s warm-up, route %s, "
      "executor capacity %s\n",
      jobs, store.c_str(), replicas, metrics ? "on" : "off", o.seconds, o.Warmup(),
      v1::RouteStrategy_Name(o.route).c_str(), Capacity(o).c_str());
  std::optional<Configuration> c = StartConfiguration(jobs, store, replicas, metrics, o);
  if (!c) return std::nullopt;
  BurstDeployment& d = *c->deployment;
  StoreReader& reader = *c->reader;

  // The window: whole seconds [t0, t1), so each job has exactly o.seconds
  // slots in it; at least a second away, so the first sample precedes t0.
  absl::SleepFor(absl::Seconds(o.Warmup()));
  const int64_t t0_ms = (absl::ToUnixMillis(absl::Now()) / 1000 + 2) * 1000;
  const int64_t t1_ms = t0_ms + int64_t{o.seconds} * 1000;
  std::vector<PartitionHolders> holders = {Holders(reader)};
  std::optional<MetricsScraper> scraper;
  if (metrics) scraper.emplace(d.metrics_urls(), absl::Seconds(1));
  const WindowFigures w = MeasureWindow(c->Processes(), c->mariadb.get(), t0_ms, o.seconds);
  if (scraper) PrintScrapes(*scraper, d);
  holders.push_back(Holders(reader));
  NoteExits(d);
  Drain(reader, t0_ms, t1_ms, o.late_ms, absl::Seconds(o.DrainMax()));
  d.Stop();

  absl::StatusOr<SlotOutcomes> out = ReadSlotOutcomes(reader, t0_ms, t1_ms, o.late_ms);
  if (!out.ok()) {
    std::printf("FAILED J=%d %s: reading the run table: %s\n", jobs, store.c_str(),
                out.status().ToString().c_str());
    return std::nullopt;
  }
  const int64_t expected = int64_t{c->started_jobs} * o.seconds;
  const int64_t no_run = expected - out->recorded_slots;
  const int64_t not_started = out->recorded_slots - out->started_slots;
  Row row;
  row.jobs = c->jobs;
  row.store = c->store;
  row.delivered = absl::StrCat(out->started_slots, "/", expected);
  row.fires_per_s = Fixed(double(out->started_slots) / o.seconds, 0);
  row.missed = absl::StrCat(no_run + not_started + out->late_slots, " (", no_run, " / ",
                            not_started, " / ", out->late_slots, ")");
  row.duplicates = absl::StrCat(out->duplicate_slots, " / n/a");
  row.start_lateness = Percentiles(out->start_lateness_ms);
  row.dispatch_lateness = Percentiles(out->dispatch_lateness_ms);
  std::vector<std::string> thread_cells;
  for (const ProcessFigures& p : w.processes) {
    if (absl::StartsWith(p.name, "executor")) thread_cells.push_back(absl::StrCat(p.max_threads));
  }
  row.cpu = w.CpuCells();
  row.rss = w.PeakRssCells();
  row.store_cpu_per_1000 = "n/a";
  row.threads = absl::StrJoin(thread_cells, ", ");

  std::printf(
      "slots: expected %lld, recorded %lld, started %lld (late >%lld ms: %lld), not started %lld, "
      "no run "
      "%lld; runs %lld (misfire-policy runs %lld); duplicate slots %lld; executed twice: n/a (the "
      "sample "
      "executor reports no per-execution count)\n",
      static_cast<long long>(expected), static_cast<long long>(out->recorded_slots),
      static_cast<long long>(out->started_slots), static_cast<long long>(o.late_ms),
      static_cast<long long>(out->late_slots), static_cast<long long>(not_started),
      static_cast<long long>(no_run), static_cast<long long>(out->runs),
      static_cast<long long>(out->misfire_runs), static_cast<long long>(out->duplicate_slots));
  std::printf(
      "lateness ms p50/p99/max: recorded (trigger_ms) %s, dispatch answered (dispatch_ms) %s, "
      "handler "
      "started (start_ms) %s\n",
      Percentiles(out->record_lateness_ms).c_str(), row.dispatch_lateness.c_str(),
      row.start_lateness.c_str());
  for (const auto& [why, n] : out->unsuccessful) {
    std::printf("    not succeeded: %lld x %s\n", static_cast<long long>(n), why.c_str());
  }
  PerRunCosts(reader, d, w, t0_ms, t1_ms, c->mariadb != nullptr, row);
  std::vector<ReplicaRow> shares = ReplicaShares(reader, w, t0_ms, t1_ms, holders, row);
  replica_rows.insert(replica_rows.end(), shares.begin(), shares.end());
  PrintRow(row);
  return row;
}

// --shape=minute: the configuration's instants, one row each.
std::vector<MinuteBurstRow> RunMinute(int jobs, const std::string& store, int replicas,
                                      bool metrics, const BenchOptions& o) {
  MinuteBurstOptions m;
  m.lead = absl::Seconds(o.Warmup());
  m.drain_max = absl::Seconds(o.DrainMax());
  std::printf(
      "\n=== J=%d store=%s, %d replica(s), metrics %s: cron \"%s\", %d consecutive instants, the "
      "first at least %d s after the jobs are started, drain at most %d s; route %s, executor "
      "capacity %s\n",
      jobs, store.c_str(), replicas, metrics ? "on" : "off", kMinuteCron, m.bursts, o.Warmup(),
      o.DrainMax(), v1::RouteStrategy_Name(o.route).c_str(), Capacity(o).c_str());
  std::optional<Configuration> c = StartConfiguration(jobs, store, replicas, metrics, o);
  if (!c) return {};
  BurstDeployment& d = *c->deployment;
  MinuteBurstTarget t{c->reader.get(), c->Processes(), c->MariadbSocket(),
                      c->started_jobs, c->jobs,        c->store};
  std::optional<MetricsScraper> scraper;
  if (metrics) scraper.emplace(d.metrics_urls(), absl::Seconds(1));
  const WatchedBursts w = WatchMinuteBursts(t, m);
  if (scraper) PrintScrapes(*scraper, d);
  NoteExits(d);
  d.Stop();
  return ReportMinuteBursts(t, w);
}

bool ParseArgs(int argc, char** argv, BenchOptions& o) {
  auto parse = [&](absl::string_view a) {
    if (a == "--quick") {
      o.jobs = {1000};
      o.stores = {"sqlite"};
      o.seconds = 10;
      return true;
    }
    if (absl::ConsumePrefix(&a, "--shape=")) {
      o.minute = a == "minute";
      return a == "second" || a == "minute";
    }
    if (absl::ConsumePrefix(&a, "--jobs=")) return PositiveInts(a, o.jobs);
    if (absl::ConsumePrefix(&a, "--stores=")) {
      o.stores = absl::StrSplit(a, ',', absl::SkipEmpty());
      for (const std::string& s : o.stores) {
        if (s != "sqlite" && s != "mysql") return false;
      }
      return !o.stores.empty();
    }
    if (absl::ConsumePrefix(&a, "--replicas=")) return PositiveInts(a, o.replicas);
    if (absl::ConsumePrefix(&a, "--seconds=")) return PositiveInt(a, o.seconds);
    if (absl::ConsumePrefix(&a, "--warmup=")) {
      return absl::SimpleAtoi(a, &o.warmup_seconds) && o.warmup_seconds >= 0;
    }
    if (absl::ConsumePrefix(&a, "--route=")) {
      o.route = a == "first" ? v1::ROUTE_STRATEGY_FIRST : v1::ROUTE_STRATEGY_ROUND;
      return a == "round" || a == "first";
    }
    if (absl::ConsumePrefix(&a, "--capacity="))
      return absl::SimpleAtoi(a, &o.capacity) && o.capacity >= 0;
    if (absl::ConsumePrefix(&a, "--admin-threads=")) return PositiveInt(a, o.admin_threads);
    if (absl::ConsumePrefix(&a, "--admin-budget=")) return PositiveInt(a, o.admin_budget_seconds);
    if (absl::ConsumePrefix(&a, "--drain-max=")) return PositiveInt(a, o.drain_max_seconds);
    if (absl::ConsumePrefix(&a, "--params=")) {
      o.params = std::string(a);
      return true;
    }
    if (absl::ConsumePrefix(&a, "--zone=")) {
      o.zone = std::string(a);
      return true;
    }
    if (a == "--calendar") {
      o.calendar = true;
      return true;
    }
    if (absl::ConsumePrefix(&a, "--jitter="))
      return absl::SimpleAtoi(a, &o.jitter_ms) && o.jitter_ms >= 0;
    if (absl::ConsumePrefix(&a, "--mariadb-args=")) {
      o.mariadb_args = absl::StrSplit(a, ',', absl::SkipEmpty());
      return true;
    }
    if (absl::ConsumePrefix(&a, "--metrics=")) {
      o.metrics.clear();
      for (absl::string_view m : absl::StrSplit(a, ',')) {
        if (m != "on" && m != "off") return false;
        o.metrics.push_back(m == "on");
      }
      return true;
    }
    return false;
  };
  return ParseBenchArgs(
      argc, argv,
      "burst_bench [--quick] [--shape=second|minute] [--jobs=1000,10000,30000] "
      "[--stores=sqlite,mysql] [--replicas=2] [--seconds=30] [--warmup=S (5; minute: 30)] "
      "[--route=round|first] [--capacity=N] [--admin-threads=4] [--admin-budget=600] "
      "[--drain-max=S (60; minute: 600)] [--metrics=off|on|off,on] [--mariadb-args=A,B] "
      "[--params=TEMPLATE] [--zone=ZONE] [--calendar] [--jitter=MS]",
      parse);
}

}  // namespace
}  // namespace gnomon::bench

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // Figures appear as they are measured.
  gnomon::bench::BenchOptions o;
  if (!gnomon::bench::ParseArgs(argc, argv, o)) return 2;
  std::vector<gnomon::bench::Row> rows;
  std::vector<gnomon::bench::ReplicaRow> replica_rows;
  std::vector<gnomon::bench::MinuteBurstRow> minute_rows;
  for (int jobs : o.jobs) {
    for (const std::string& store : o.stores) {
      for (int replicas : store == "mysql" ? o.replicas : std::vector<int>{1}) {
        for (bool metrics : o.metrics) {
          if (o.minute) {
            auto r = gnomon::bench::RunMinute(jobs, store, replicas, metrics, o);
            minute_rows.insert(minute_rows.end(), r.begin(), r.end());
            continue;
          }
          auto row = gnomon::bench::RunOne(jobs, store, replicas, metrics, o, replica_rows);
          if (row) rows.push_back(*row);
        }
      }
    }
  }
  if (o.minute) {
    gnomon::bench::PrintMinuteBurstTable(minute_rows);
  } else {
    gnomon::bench::PrintMarkdown(rows, replica_rows);
  }
  return 0;
}

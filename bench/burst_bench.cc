// burst_bench: the workload users run, with real processes on loopback.
// J distinct jobs, each with cron "* * * * * ?" (all due on the same whole
// second, every second), the noop handler, two sample executors, in two
// deployments:
//   sqlite  one gnomond (all roles) on SQLite
//   mysql   two gnomond replicas (all roles each) on a throwaway MariaDB the
//           bench starts itself; executors list both replicas' registries
// For each (J, deployment): the jobs are created and started through the
// admin API, the schedule warms up, then a window of whole seconds is
// measured and, after a drain, every expected slot of the window is looked up
// in the run table. Figures are printed, never asserted: a row per
// configuration as it is measured, and a Markdown table at the end.
//
//   burst_bench [--quick] [--jobs=1000,10000,30000] [--stores=sqlite,mysql]
//               [--seconds=30] [--warmup=5] [--route=round|first]
//               [--capacity=4096] [--admin-threads=4] [--drain-max=60]
#include <atomic>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "bench/burst_deployment.h"
#include "bench/burst_figures.h"
#include "bench/proc_stats.h"
#include "bench/throwaway_mariadb.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "services/common/client/auth_metadata.h"

namespace gnomon::bench {
namespace {

struct BenchOptions {
  std::vector<int> jobs = {1000, 10000, 30000};
  std::vector<std::string> stores = {"sqlite", "mysql"};
  int seconds = 30;
  int warmup_seconds = 5;
  v1::RouteStrategy route = v1::ROUTE_STRATEGY_ROUND;
  int capacity = 4096;
  int admin_threads = 4;
  int drain_max_seconds = 60;
  // A slot whose run started later than this after its instant is missed.
  int64_t late_ms = 5000;
};

// One printed row; every cell is already text.
struct Row {
  int jobs = 0;
  std::string store, delivered, missed, duplicates, start_lateness, dispatch_lateness, cpu, rss, threads,
      statements, commits;
};

void PrintRow(const Row& r) {
  std::printf(
      "RESULT J=%d %s: delivered %s | missed %s | duplicates %s | lateness ms p50/p99/max at start %s, at "
      "dispatch %s | CPU s %s | peak RSS MiB %s | threads/executor %s | statements/run %s | commits/run %s\n",
      r.jobs, r.store.c_str(), r.delivered.c_str(), r.missed.c_str(), r.duplicates.c_str(),
      r.start_lateness.c_str(), r.dispatch_lateness.c_str(), r.cpu.c_str(), r.rss.c_str(), r.threads.c_str(),
      r.statements.c_str(), r.commits.c_str());
}

void PrintMarkdown(const std::vector<Row>& rows) {
  std::printf(
      "\n| J | store | delivered/expected | missed (no run / not started / late) | duplicates (slots / executed "
      "twice) | lateness at start ms p50/p99/max | lateness at dispatch ms p50/p99/max | CPU s per process | "
      "peak RSS MiB per process | threads per executor (max) | statements/run | commits/run |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::printf("| %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.jobs, r.store.c_str(),
                r.delivered.c_str(), r.missed.c_str(), r.duplicates.c_str(), r.start_lateness.c_str(),
                r.dispatch_lateness.c_str(), r.cpu.c_str(), r.rss.c_str(), r.threads.c_str(), r.statements.c_str(),
                r.commits.c_str());
  }
}

// Calls `call(i)` for i in [0, n) on `threads` threads; stops early after a
// failure. Returns the first error.
absl::Status ForEachJob(int n, int threads, const std::function<grpc::Status(int)>& call) {
  absl::Mutex mu;
  absl::Status first;
  std::atomic<bool> failed{false};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int i = t; i < n && !failed.load(); i += threads) {
        grpc::Status s = call(i);
        if (!s.ok()) {
          failed = true;
          absl::MutexLock l(&mu);
          if (first.ok()) first = absl::InternalError(absl::StrCat("job ", i, ": ", s.error_message()));
        }
      }
    });
  }
  for (auto& t : pool) t.join();
  return first;
}

// Admin calls carry the admin token and a deadline (a stalled server fails
// the configuration instead of hanging the bench).
void Prepare(grpc::ClientContext& ctx, const std::string& token) {
  ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(token));
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(60)));
}

void SleepUntil(absl::Time t) { absl::SleepFor(t - absl::Now()); }  // The bench's own pacing.

std::string Fixed(double v, int digits) { return absl::StrFormat("%.*f", digits, v); }

// The MariaDB server counters differenced over the window.
const std::vector<std::string> kServerCounters = {"Questions",  "Com_insert", "Com_update",      "Com_select",
                                                  "Com_delete", "Com_commit", "Innodb_deadlocks"};

std::optional<Row> RunOne(int jobs, const std::string& store, const BenchOptions& o) {
  std::printf("\n=== J=%d store=%s: %d s window after %d s warm-up, route %s, executor capacity %d\n", jobs,
              store.c_str(), o.seconds, o.warmup_seconds, v1::RouteStrategy_Name(o.route).c_str(), o.capacity);
  BurstDeploymentOptions d_options;
  d_options.gnomond_flags = {"--store-stats-interval=1s"};
  d_options.executor_capacity = o.capacity;
  std::unique_ptr<ThrowawayMariadb> mariadb;
  const std::string database = absl::StrCat("gnomon_burst_", jobs);
  if (store == "mysql") {
    absl::StatusOr<std::unique_ptr<ThrowawayMariadb>> db = ThrowawayMariadb::Start();
    if (absl::IsUnavailable(db.status())) {
      std::printf("SKIPPED J=%d mysql: %s\n", jobs, std::string(db.status().message()).c_str());
      return std::nullopt;
    }
    if (!db.ok()) {
      std::printf("FAILED J=%d mysql: %s\n", jobs, db.status().ToString().c_str());
      return std::nullopt;
    }
    mariadb = *std::move(db);
    d_options.replicas = 2;
    d_options.store_url = mariadb->Url(database);
  }
  absl::StatusOr<std::unique_ptr<BurstDeployment>> started = BurstDeployment::Start(d_options);
  if (!started.ok()) {
    std::printf("FAILED J=%d %s: %s\n", jobs, store.c_str(), started.status().ToString().c_str());
    return std::nullopt;
  }
  BurstDeployment& d = **started;
  auto admin = v1::JobAdmin::NewStub(grpc::CreateChannel(d.addresses()[0], grpc::InsecureChannelCredentials()));

  v1::Group group;
  {
    grpc::ClientContext ctx;
    Prepare(ctx, d.admin_token());
    v1::CreateGroupRequest req;
    req.mutable_group()->set_app_name(absl::StrCat("burst-", jobs));
    req.mutable_group()->set_title("burst_bench");
    if (grpc::Status s = admin->CreateGroup(&ctx, req, &group); !s.ok()) {
      std::printf("FAILED J=%d %s: create group: %s\n", jobs, store.c_str(), s.error_message().c_str());
      return std::nullopt;
    }
  }
  if (absl::Status s = d.StartExecutors(group.app_name(), group.access_token()); !s.ok()) {
    std::printf("FAILED J=%d %s: %s\n", jobs, store.c_str(), s.ToString().c_str());
    return std::nullopt;
  }

  // Create all jobs stopped, then start them, so creation is timed without
  // the schedule running alongside and every job starts within one pass.
  std::vector<int64_t> ids(jobs);
  absl::Time t = absl::Now();
  absl::Status created = ForEachJob(jobs, o.admin_threads, [&](int i) {
    grpc::ClientContext ctx;
    Prepare(ctx, d.admin_token());
    v1::CreateJobRequest req;
    v1::Job* job = req.mutable_job();
    job->set_group_id(group.id());
    job->set_description(absl::StrCat("burst ", i));
    job->mutable_schedule()->mutable_cron()->set_expression("* * * * * ?");
    job->mutable_bean()->set_handler("noop");
    job->set_route_strategy(o.route);
    v1::Job out;
    grpc::Status s = admin->CreateJob(&ctx, req, &out);
    ids[i] = out.id();
    return s;
  });
  const double create_s = absl::ToDoubleSeconds(absl::Now() - t);
  if (!created.ok()) {
    std::printf("FAILED J=%d %s: create jobs: %s\n", jobs, store.c_str(), created.ToString().c_str());
    return std::nullopt;
  }
  t = absl::Now();
  absl::Status job_started = ForEachJob(jobs, o.admin_threads, [&](int i) {
    grpc::ClientContext ctx;
    Prepare(ctx, d.admin_token());
    v1::StartJobRequest req;
    req.set_job_id(ids[i]);
    v1::Job out;
    return admin->StartJob(&ctx, req, &out);
  });
  const double start_s = absl::ToDoubleSeconds(absl::Now() - t);
  if (!job_started.ok()) {
    std::printf("FAILED J=%d %s: start jobs: %s\n", jobs, store.c_str(), job_started.ToString().c_str());
    return std::nullopt;
  }
  std::printf("admin API (%d client threads): created %d jobs in %.1f s (%.0f jobs/s), started them in %.1f s "
              "(%.0f jobs/s)\n",
              o.admin_threads, jobs, create_s, jobs / create_s, start_s, jobs / start_s);

  // The window: whole seconds [t0, t1), so each job has exactly o.seconds
  // slots in it. Process figures are sampled half a second before each
  // boundary, so the burst at t0 lies inside their interval too.
  absl::SleepFor(absl::Seconds(o.warmup_seconds));
  const int64_t t0_ms = (absl::ToUnixMillis(absl::Now()) / 1000 + 1) * 1000;
  const int64_t t1_ms = t0_ms + int64_t{o.seconds} * 1000;
  std::vector<BurstDeployment::Process> procs = d.processes();
  if (mariadb) procs.push_back({"mariadbd", nullptr});
  auto pid_of = [&](const BurstDeployment::Process& p) { return p.process ? p.process->pid() : mariadb->pid(); };
  std::vector<double> cpu0(procs.size());
  std::vector<int64_t> max_threads(procs.size(), 0);
  SleepUntil(absl::FromUnixMillis(t0_ms - 500));
  const int64_t sample0_ms = absl::ToUnixMillis(absl::Now());
  for (size_t i = 0; i < procs.size(); ++i) cpu0[i] = CpuSeconds(pid_of(procs[i]));
  std::map<std::string, int64_t> status0, status1;
  if (mariadb) status0 = mariadb->GlobalStatus(kServerCounters).value_or(status0);
  for (int s = 0; s < o.seconds; ++s) {
    SleepUntil(absl::FromUnixMillis(t0_ms + int64_t{s} * 1000));
    for (size_t i = 0; i < procs.size(); ++i) max_threads[i] = std::max(max_threads[i], ThreadCount(pid_of(procs[i])));
  }
  SleepUntil(absl::FromUnixMillis(t1_ms - 500));
  const int64_t sample1_ms = absl::ToUnixMillis(absl::Now());
  std::vector<double> cpu(procs.size());
  std::vector<int64_t> rss(procs.size());
  for (size_t i = 0; i < procs.size(); ++i) {
    cpu[i] = CpuSeconds(pid_of(procs[i])) - cpu0[i];
    rss[i] = PeakRssKib(pid_of(procs[i]));
    max_threads[i] = std::max(max_threads[i], ThreadCount(pid_of(procs[i])));
  }
  if (mariadb) status1 = mariadb->GlobalStatus(kServerCounters).value_or(status1);

  // Drain: slots of the window may still start late. Wait out the lateness
  // bound, then until the count of started slots stops moving (bounded).
  std::unique_ptr<StoreReader> reader =
      mariadb ? mariadb->Reader(database) : SqliteStoreReader(d.sqlite_path());
  SleepUntil(absl::FromUnixMillis(t1_ms + o.late_ms + 2000));
  const absl::Time drain_deadline = absl::Now() + absl::Seconds(o.drain_max_seconds);
  int64_t started_slots = -1;
  while (absl::Now() < drain_deadline) {
    absl::StatusOr<int64_t> n = CountStartedSlots(*reader, t0_ms, t1_ms);
    if (!n.ok() || *n == started_slots) break;
    started_slots = *n;
    absl::SleepFor(absl::Seconds(2));  // Polling the run table.
  }
  d.Stop();

  absl::StatusOr<SlotOutcomes> out = ReadSlotOutcomes(*reader, t0_ms, t1_ms, o.late_ms);
  if (!out.ok()) {
    std::printf("FAILED J=%d %s: reading the run table: %s\n", jobs, store.c_str(), out.status().ToString().c_str());
    return std::nullopt;
  }
  const int64_t expected = int64_t{jobs} * o.seconds;
  const int64_t no_run = expected - out->recorded_slots;
  const int64_t not_started = out->recorded_slots - out->started_slots;
  Row row;
  row.jobs = jobs;
  row.store = store == "mysql" ? "mysql (2 replicas)" : "sqlite";
  row.delivered = absl::StrCat(out->started_slots, "/", expected);
  row.missed = absl::StrCat(no_run + not_started + out->late_slots, " (", no_run, " / ", not_started, " / ",
                            out->late_slots, ")");
  row.duplicates = absl::StrCat(out->duplicate_slots, " / n/a");
  row.start_lateness = Percentiles(out->start_lateness_ms);
  row.dispatch_lateness = Percentiles(out->dispatch_lateness_ms);
  std::vector<std::string> cpu_cells, rss_cells, thread_cells;
  for (size_t i = 0; i < procs.size(); ++i) {
    cpu_cells.push_back(absl::StrCat(procs[i].name, " ", Fixed(cpu[i], 1)));
    rss_cells.push_back(absl::StrCat(procs[i].name, " ", rss[i] / 1024));
    if (absl::StartsWith(procs[i].name, "executor")) thread_cells.push_back(absl::StrCat(max_threads[i]));
  }
  row.cpu = absl::StrJoin(cpu_cells, ", ");
  row.rss = absl::StrJoin(rss_cells, ", ");
  row.threads = absl::StrJoin(thread_cells, ", ");

  // Per run: each replica's commit rate over its stats lines in the window,
  // summed, over the rate of runs recorded in the window.
  const double window_s = o.seconds;
  absl::StatusOr<int64_t> runs_window = CountRunsRecorded(*reader, t0_ms, t1_ms);
  const double runs_per_s = runs_window.ok() ? *runs_window / window_s : 0;
  double commits_per_s = 0, statements_per_s = 0;
  bool have_commits = false, have_statements = true;
  for (const auto& r : d.replicas()) {
    StoreStatsDelta s = ParseStoreStats(r->Output(), t0_ms, t1_ms);
    if (s.span_ms <= 0) {
      have_statements = false;
      continue;
    }
    have_commits = true;
    commits_per_s += s.transactions * 1000.0 / s.span_ms;
    if (s.statements) {
      statements_per_s += *s.statements * 1000.0 / s.span_ms;
    } else {
      have_statements = false;
    }
  }
  row.commits = have_commits && runs_per_s > 0 ? Fixed(commits_per_s / runs_per_s, 2) : "n/a";
  const std::string gnomond_statements =
      have_commits && have_statements && runs_per_s > 0 ? Fixed(statements_per_s / runs_per_s, 2) : "n/a";
  row.statements = gnomond_statements;
  std::string server_line;
  if (mariadb && status0.count("Questions") && status1.count("Questions")) {
    absl::StatusOr<int64_t> runs_status = CountRunsRecorded(*reader, sample0_ms, sample1_ms);
    if (runs_status.ok() && *runs_status > 0) {
      std::vector<std::string> parts;
      for (const std::string& name : kServerCounters) {
        if (!status0.count(name) || !status1.count(name)) {
          parts.push_back(absl::StrCat(name, " n/a"));
          continue;
        }
        const int64_t delta = status1[name] - status0[name];
        parts.push_back(name == "Innodb_deadlocks" ? absl::StrCat(name, " ", delta)
                                                   : absl::StrCat(name, " ", Fixed(double(delta) / *runs_status, 2)));
      }
      row.statements = Fixed(double(status1["Questions"] - status0["Questions"]) / *runs_status, 2);
      server_line = absl::StrCat("MariaDB server counters per run recorded (", *runs_status,
                                 " runs recorded in the counters' interval): ", absl::StrJoin(parts, ", "),
                                 " (Innodb_deadlocks as a delta); gnomond-counted statements/run ",
                                 gnomond_statements);
    }
  }

  std::printf("slots: expected %lld, recorded %lld, started %lld (late >%lld ms: %lld), not started %lld, no run "
              "%lld; runs %lld (misfire-policy runs %lld); duplicate slots %lld; executed twice: n/a (the sample "
              "executor reports no per-execution count)\n",
              static_cast<long long>(expected), static_cast<long long>(out->recorded_slots),
              static_cast<long long>(out->started_slots), static_cast<long long>(o.late_ms),
              static_cast<long long>(out->late_slots), static_cast<long long>(not_started),
              static_cast<long long>(no_run), static_cast<long long>(out->runs),
              static_cast<long long>(out->misfire_runs), static_cast<long long>(out->duplicate_slots));
  std::printf("lateness ms p50/p99/max: recorded %s, dispatched %s, handler started %s\n",
              Percentiles(out->record_lateness_ms).c_str(), row.dispatch_lateness.c_str(),
              row.start_lateness.c_str());
  for (const auto& [why, n] : out->unsuccessful) {
    std::printf("    not succeeded: %lld x %s\n", static_cast<long long>(n), why.c_str());
  }
  std::printf("runs recorded in the window: %.0f/s; gnomond commits %.0f/s\n", runs_per_s, commits_per_s);
  if (!server_line.empty()) std::printf("%s\n", server_line.c_str());
  PrintRow(row);
  return row;
}

bool ParseArgs(int argc, char** argv, BenchOptions& o) {
  auto ints = [](absl::string_view list, std::vector<int>& out) {
    out.clear();
    for (absl::string_view v : absl::StrSplit(list, ',', absl::SkipEmpty())) {
      int n = 0;
      if (!absl::SimpleAtoi(v, &n) || n <= 0) return false;
      out.push_back(n);
    }
    return !out.empty();
  };
  auto positive = [](absl::string_view v, int& out) { return absl::SimpleAtoi(v, &out) && out > 0; };
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    bool ok = true;
    if (a == "--quick") {
      o.jobs = {1000};
      o.stores = {"sqlite"};
      o.seconds = 10;
    } else if (absl::ConsumePrefix(&a, "--jobs=")) {
      ok = ints(a, o.jobs);
    } else if (absl::ConsumePrefix(&a, "--stores=")) {
      o.stores = absl::StrSplit(a, ',', absl::SkipEmpty());
      for (const std::string& s : o.stores) ok = ok && (s == "sqlite" || s == "mysql");
    } else if (absl::ConsumePrefix(&a, "--seconds=")) {
      ok = positive(a, o.seconds);
    } else if (absl::ConsumePrefix(&a, "--warmup=")) {
      ok = absl::SimpleAtoi(a, &o.warmup_seconds) && o.warmup_seconds >= 0;
    } else if (absl::ConsumePrefix(&a, "--route=")) {
      ok = a == "round" || a == "first";
      o.route = a == "first" ? v1::ROUTE_STRATEGY_FIRST : v1::ROUTE_STRATEGY_ROUND;
    } else if (absl::ConsumePrefix(&a, "--capacity=")) {
      ok = positive(a, o.capacity);
    } else if (absl::ConsumePrefix(&a, "--admin-threads=")) {
      ok = positive(a, o.admin_threads);
    } else if (absl::ConsumePrefix(&a, "--drain-max=")) {
      ok = positive(a, o.drain_max_seconds);
    } else {
      ok = false;
    }
    if (!ok) {
      std::fprintf(stderr,
                   "burst_bench: bad argument %s\nusage: burst_bench [--quick] [--jobs=1000,10000,30000] "
                   "[--stores=sqlite,mysql] [--seconds=30] [--warmup=5] [--route=round|first] "
                   "[--capacity=4096] [--admin-threads=4] [--drain-max=60]\n",
                   argv[i]);
      return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace gnomon::bench

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // Figures appear as they are measured.
  gnomon::bench::BenchOptions o;
  if (!gnomon::bench::ParseArgs(argc, argv, o)) return 2;
  std::vector<gnomon::bench::Row> rows;
  for (int jobs : o.jobs) {
    for (const std::string& store : o.stores) {
      if (auto row = gnomon::bench::RunOne(jobs, store, o)) rows.push_back(*row);
    }
  }
  gnomon::bench::PrintMarkdown(rows);
  return 0;
}

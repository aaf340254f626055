// Whole-system figures with real processes on loopback (gnomond with all
// roles and SQLite, sample executors), printed, never asserted:
//   1. kill -9 of an executor -> its removal from routing (WatchExecutors LEFT)
//   2. an executor's start -> its first routed run
//   3. registry CPU with N executors connected and beating
//   4. sustained end-to-end rate: fire -> noop handler ran -> result stored
//
//   cluster_bench [--quick] [--e2e-only] [--rates=...] (see main)
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "bench/store_stats_log.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "services/common/client/auth_metadata.h"
#include "sqlite3.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/proc_stats.h"

namespace gnomon::bench {
namespace {

using google::protobuf::util::TimeUtil;
using testing::GnomonCluster;

std::string Percentiles(std::vector<double> v) {
  if (v.empty()) return "no samples";
  std::sort(v.begin(), v.end());
  auto at = [&](double p) { return v[std::min(v.size() - 1, size_t(p * v.size()))]; };
  return absl::StrCat("p50 ", at(0.5), " ms, p99 ", at(0.99), " ms, max ", v.back(),
                      " ms (n=", v.size(), ")");
}

std::string AddressOf(testing::Subprocess* p) {
  auto line = p->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30));
  if (!line) return "";
  return std::string(absl::StripAsciiWhitespace(line->substr(line->rfind(' ') + 1)));
}

void RemovalAndFirstRun(GnomonCluster& c, const v1::Group& g, int rounds) {
  auto registry =
      v1::Registry::NewStub(grpc::CreateChannel(c.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(c.admin_token()));
  v1::WatchExecutorsRequest req;
  req.add_app_names(g.app_name());
  auto watch = registry->WatchExecutors(&ctx, req);
  v1::WatchExecutorsResponse msg;
  watch->Read(&msg);  // Snapshot.
  // A job firing every 100 ms, so a new executor's first run comes promptly.
  v1::Job job;
  c.CtlJson({"job", "create", "--group", absl::StrCat(g.id()), "--handler", "noop", "--every",
             "100ms", "--start"},
            &job);
  auto admin =
      v1::JobAdmin::NewStub(grpc::CreateChannel(c.address(), grpc::InsecureChannelCredentials()));
  std::vector<double> removal_ms, first_run_ms;
  for (int i = 0; i < rounds; ++i) {
    const absl::Time started = absl::Now();
    auto executor = c.StartExecutor(g.app_name(), g.access_token());
    const std::string address = AddressOf(executor.get());
    while (watch->Read(&msg) &&
           !(msg.has_change() && msg.change().executor().address() == address &&
             msg.change().kind() == v1::EXECUTOR_CHANGE_KIND_JOINED)) {
    }
    // First run dispatched to this executor (from the run records).
    for (int tries = 0; tries < 100; ++tries) {
      grpc::ClientContext lc;
      lc.AddMetadata(std::string(kAuthorizationKey), BearerValue(c.admin_token()));
      v1::ListRunsRequest lr;
      lr.set_job_id(job.id());
      lr.set_page_size(50);
      v1::ListRunsResponse runs;
      admin->ListRuns(&lc, lr, &runs);
      int64_t first = 0;
      for (const auto& r : runs.runs()) {
        if (r.executor_address() == address && r.has_dispatch_time()) {
          int64_t t = TimeUtil::TimestampToMilliseconds(r.dispatch_time());
          if (first == 0 || t < first) first = t;
        }
      }
      if (first != 0) {
        first_run_ms.push_back(double(first - absl::ToUnixMillis(started)));
        break;
      }
      absl::SleepFor(absl::Milliseconds(50));  // Polling the run records.
    }
    const absl::Time killed = absl::Now();
    executor->Kill(SIGKILL);
    while (watch->Read(&msg)) {
      if (msg.has_change() && msg.change().kind() == v1::EXECUTOR_CHANGE_KIND_LEFT &&
          msg.change().executor().address() == address) {
        removal_ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - killed));
        break;
      }
    }
    executor->Wait();
  }
  c.Ctl({"job", "stop", absl::StrCat(job.id())});
  ctx.TryCancel();
  std::printf("kill -9 -> removed from routing: %s\n", Percentiles(removal_ms).c_str());
  std::printf("executor start (process spawn) -> first routed run: %s\n",
              Percentiles(first_run_ms).c_str());
}

// N executor sessions, each a Session stream beating every 2 s, from this process.
void RegistryCpu(GnomonCluster& c, const v1::Group& g, int n, int seconds) {
  auto channel = grpc::CreateChannel(c.address(), grpc::InsecureChannelCredentials());
  auto registry = v1::Registry::NewStub(channel);
  struct Session {
    grpc::ClientContext ctx;
    std::unique_ptr<grpc::ClientReaderWriter<v1::SessionRequest, v1::SessionResponse>> stream;
  };
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < n; ++i) {
    auto s = std::make_unique<Session>();
    s->ctx.AddMetadata(std::string(kAccessTokenKey), g.access_token());
    s->ctx.AddMetadata(std::string(kAppNameKey), g.app_name());
    s->stream = registry->Session(&s->ctx);
    v1::SessionRequest reg;
    reg.mutable_register_()->set_app_name(g.app_name());
    reg.mutable_register_()->set_address(absl::StrCat("10.9.", i / 250, ".", i % 250, ":9999"));
    reg.mutable_register_()->add_handlers("noop");
    s->stream->Write(reg);
    v1::SessionResponse ack;
    s->stream->Read(&ack);
    sessions.push_back(std::move(s));
  }
  const double cpu0 = testing::CpuSeconds(c.gnomond()->pid());
  const absl::Time t0 = absl::Now();
  for (int beat = 0; beat < seconds / 2; ++beat) {
    const absl::Time next = absl::Now() + absl::Seconds(2);
    for (auto& s : sessions) {
      v1::SessionRequest b;
      b.mutable_beat()->set_running_runs(0);
      s->stream->Write(b);
      v1::SessionResponse ack;
      s->stream->Read(&ack);
    }
    absl::SleepFor(next - absl::Now());  // The beat period itself.
  }
  const double cpu = testing::CpuSeconds(c.gnomond()->pid()) - cpu0;
  const double wall = absl::ToDoubleSeconds(absl::Now() - t0);
  std::printf(
      "registry with %d executors beating every 2 s: %.1f%% of one core (gnomond, all roles)\n", n,
      100 * cpu / wall);
  for (auto& s : sessions) s->ctx.TryCancel();
}

// Runs stored with each status and handle code whose end time lies in
// [from, to), read straight from gnomond's SQLite file (WAL allows a reader).
struct Outcomes {
  int64_t succeeded = 0;
  std::map<std::string, int64_t> failed;  // "code: message" -> count
  int64_t recorded = 0;                   // Runs whose slot lies in the window.
  double record_lag_ms = 0, dispatch_lag_ms = 0, end_lag_ms = 0;
};

// A statement over the window [from, to), bound as its two parameters.
sqlite3_stmt* WindowQuery(sqlite3* db, const char* sql, int64_t from_ms, int64_t to_ms) {
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, sql, -1, &st, nullptr);
  sqlite3_bind_int64(st, 1, from_ms);
  sqlite3_bind_int64(st, 2, to_ms);
  return st;
}

Outcomes CountEnded(const std::string& db_path, int64_t from_ms, int64_t to_ms) {
  Outcomes out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "cannot open %s\n", db_path.c_str());
    sqlite3_close(db);
    return out;
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_stmt* st =
      WindowQuery(db,
                  "SELECT status, handle_code, substr(handle_message, 1, 60), count(*) FROM run "
                  "WHERE end_ms >= ? AND end_ms < ? GROUP BY 1, 2, 3",
                  from_ms, to_ms);
  while (sqlite3_step(st) == SQLITE_ROW) {
    const int64_t n = sqlite3_column_int64(st, 3);
    if (sqlite3_column_int(st, 0) == v1::RUN_STATUS_SUCCEEDED) {
      out.succeeded += n;
    } else {
      out.failed[absl::StrCat(sqlite3_column_int(st, 1), ": ",
                              reinterpret_cast<const char*>(sqlite3_column_text(st, 2)))] += n;
    }
  }
  sqlite3_finalize(st);
  // Slots of the window: how many were recorded, and how late on average
  // their recording, dispatch and end came.
  st = WindowQuery(db,
                   "SELECT count(*), avg(trigger_ms - scheduled_ms), "
                   "avg(CASE WHEN dispatch_ms > 0 THEN dispatch_ms - scheduled_ms END), "
                   "avg(CASE WHEN end_ms > 0 THEN end_ms - scheduled_ms END) FROM run "
                   "WHERE scheduled_ms >= ? AND scheduled_ms < ?",
                   from_ms, to_ms);
  if (sqlite3_step(st) == SQLITE_ROW) {
    out.recorded = sqlite3_column_int64(st, 0);
    out.record_lag_ms = sqlite3_column_double(st, 1);
    out.dispatch_lag_ms = sqlite3_column_double(st, 2);
    out.end_lag_ms = sqlite3_column_double(st, 3);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

// Transactions gnomond committed between its first stats line at or after
// `from` and its last one at or before `to` (--store-stats-interval).
struct RateOptions {
  int executors = 2;
  int capacity = 0;  // Each executor's --max-concurrent-runs (0: its default pool).
  int seconds = 15;
};

// Jobs every 100 ms (the shortest period allowed), enough of them for the
// offered rate, noop handlers, several sample executors. The rate counts runs
// whose success was stored during the window (fire -> handler ran -> result
// stored), measured after a warm-up and with a settle time before counting.
void EndToEndRate(GnomonCluster& c, const v1::Group& g, int fires_per_second,
                  const RateOptions& o) {
  std::vector<std::unique_ptr<testing::Subprocess>> executors;
  for (int i = 0; i < o.executors; ++i) {
    executors.push_back(c.StartExecutor(g.app_name(), g.access_token(),
                                        {absl::StrCat("--max-concurrent-runs=", o.capacity),
                                         absl::StrCat("--spool-dir=", c.dir(), "/spool-", i),
                                         absl::StrCat("--log-dir=", c.dir(), "/logs-", i)}));
    if (AddressOf(executors.back().get()).empty()) {
      std::fprintf(stderr, "executor %d did not start\n", i);
      return;
    }
  }
  constexpr int kPeriodMs = 100;
  const int jobs = fires_per_second * kPeriodMs / 1000;
  // Created and started through the admin API (gnomonctl per job is slow to
  // spawn); created one after another, their phases spread over the period.
  auto admin =
      v1::JobAdmin::NewStub(grpc::CreateChannel(c.address(), grpc::InsecureChannelCredentials()));
  for (int i = 0; i < jobs; ++i) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(c.admin_token()));
    v1::CreateJobRequest req;
    v1::Job* job = req.mutable_job();
    job->set_group_id(g.id());
    job->mutable_bean()->set_handler("noop");
    *job->mutable_schedule()->mutable_fix_rate() = TimeUtil::MillisecondsToDuration(kPeriodMs);
    job->set_route_strategy(v1::ROUTE_STRATEGY_ROUND);
    req.set_start(true);
    v1::Job created;
    if (grpc::Status s = admin->CreateJob(&ctx, req, &created); !s.ok()) {
      std::fprintf(stderr, "create job: %s\n", s.error_message().c_str());
      return;
    }
  }
  absl::SleepFor(absl::Seconds(3));  // Warm-up.
  const double cpu0 = testing::CpuSeconds(c.gnomond()->pid());
  double exec_cpu0 = 0;
  for (auto& e : executors) exec_cpu0 += testing::CpuSeconds(e->pid());
  const absl::Time t0 = absl::Now();
  absl::SleepFor(absl::Seconds(o.seconds));  // Measurement window.
  const absl::Time t1 = absl::Now();
  const double cpu = testing::CpuSeconds(c.gnomond()->pid()) - cpu0;
  double exec_cpu = -exec_cpu0;
  for (auto& e : executors) exec_cpu += testing::CpuSeconds(e->pid());
  absl::SleepFor(absl::Seconds(2));  // Lets results of the window's runs be stored.
  const Outcomes n =
      CountEnded(c.dir() + "/gnomon.db", absl::ToUnixMillis(t0), absl::ToUnixMillis(t1));
  const StoreStatsDelta stats =
      ParseStoreStats(c.gnomond()->Output(), absl::ToUnixMillis(t0), absl::ToUnixMillis(t1));
  const double wall = absl::ToDoubleSeconds(t1 - t0);
  int64_t failed = 0;
  for (const auto& [why, k] : n.failed) failed += k;
  std::printf(
      "end to end at %d fires/s offered (%d executors): %.0f runs/s stored as succeeded, %.0f/s "
      "failed "
      "(gnomond %.0f%% CPU, executors %.0f%% CPU)\n",
      fires_per_second, o.executors, n.succeeded / wall, failed / wall, 100 * cpu / wall,
      100 * exec_cpu / wall);
  std::printf(
      "    slots in the window recorded: %.0f/s; mean lag after the slot: recorded %.1f ms, "
      "dispatched %.1f ms, ended %.1f ms\n",
      n.recorded / wall, n.record_lag_ms, n.dispatch_lag_ms, n.end_lag_ms);
  if (stats.span_ms > 0 && n.succeeded + failed > 0) {
    // Runs ended per second times the stats span: the runs the counted
    // transactions served.
    const double runs = double(n.succeeded + failed) / wall * (stats.span_ms / 1000.0);
    std::printf("    store write transactions per run (whole path, all roles): %.3f\n",
                double(stats.transactions) / runs);
  }
  for (const auto& [why, k] : n.failed)
    std::printf("    failed %lld x %s\n", static_cast<long long>(k), why.c_str());
}

}  // namespace
}  // namespace gnomon::bench

// cluster_bench [--quick] [--e2e-only] [--rates=1000,3000,10000] [--executors=2]
//               [--capacity=N] [--seconds=15]
int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // Figures appear as they are measured.
  bool quick = false, e2e_only = false;
  std::vector<int> rates = {1000, 3000, 10000, 30000};
  gnomon::bench::RateOptions rate_options;
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (a == "--quick") {
      quick = true;
      rates = {500};
      rate_options.seconds = 5;
    } else if (a == "--e2e-only") {
      e2e_only = true;
    } else if (absl::ConsumePrefix(&a, "--rates=")) {
      rates.clear();
      for (absl::string_view r : absl::StrSplit(a, ',')) rates.push_back(std::stoi(std::string(r)));
    } else if (absl::ConsumePrefix(&a, "--executors=")) {
      rate_options.executors = std::stoi(std::string(a));
    } else if (absl::ConsumePrefix(&a, "--capacity=")) {
      rate_options.capacity = std::stoi(std::string(a));
    } else if (absl::ConsumePrefix(&a, "--seconds=")) {
      rate_options.seconds = std::stoi(std::string(a));
    } else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  using gnomon::bench::GnomonCluster;
  if (!e2e_only) {
    GnomonCluster c({"--admin-rate-limit=0"});  // Polls JobAdmin as fast as it answers.
    if (!c.Start()) return 1;
    gnomon::v1::Group g;
    c.CtlJson({"group", "create", "bench-registry"}, &g);
    gnomon::bench::RemovalAndFirstRun(c, g, quick ? 3 : 20);
    gnomon::bench::RegistryCpu(c, g, quick ? 100 : 1000, quick ? 4 : 20);
  }
  for (int rate : rates) {
    GnomonCluster c(
        {"--store-stats-interval=1s", "--admin-rate-limit=0"});  // Creates jobs one per call.
    if (!c.Start()) return 1;
    gnomon::v1::Group g;
    c.CtlJson({"group", "create", "bench-e2e"}, &g);
    gnomon::bench::EndToEndRate(c, g, rate, rate_options);
  }
}

// store_cost_bench: the store's work per run, by step of a run's life, on
// each backend. No gnomond: the bench makes the store calls gnomond's writers
// make under a burst (J distinct jobs due on every second), in the batch sizes
// they use, one step at a time, and reads the store's CPU time around each
// step — mariadbd's from /proc for MySQL (a throwaway MariaDB the bench
// starts), this process's for SQLite (the store runs in it) — so each
// figure belongs to one kind of write:
//
//   advance   AdvanceJobs: the schedule loop's cursors (every 2 s, batches of 1,000)
//   record    InsertRuns: PENDING runs (the run recorder; one batch per 2,048 fires)
//   report    ApplyReports: start (with its dispatch receipt) + result of each run
//             (the report writer, 4,096 items)
//   dispatch  RecordDispatches: RUNNING, executor, epoch (the dispatch recorder, 1,024),
//             deferred: after the report, which recorded it already (--no-receipts:
//             before the report, as for an executor that does not echo receipts)
//   followup  ListPendingFollowups + CompleteFollowups (the follow-up loop, 500)
//   stats     the daily statistics, written every 5 s (StatsWriter)
//
// Figures are printed, never asserted: CPU ms per 1,000 runs by step and in
// all, statements per run, and the same per backend side by side.
//
//   store_cost_bench [--jobs=10000] [--seconds=10] [--stores=sqlite,mysql]
//                    [--mariadb-args=--log-bin,...] [--no-receipts]
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "bench/bench_args.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/store.h"
#include "tests/support/proc_stats.h"
#include "tests/support/subprocess.h"
#include "tests/support/throwaway_mariadb.h"

namespace gnomon::bench {
namespace {

struct Options {
  int jobs = 10000;
  int seconds = 10;
  std::vector<std::string> stores = {"sqlite", "mysql"};
  std::vector<std::string> mariadb_args;
  bool receipts = true;  // Executors echo RunRequest.receipt (--no-receipts: they do not).
};

std::string RouteOf(int64_t run_id) {
  return absl::StrCat("route ROUND_ROBIN -> 127.0.0.1:", 40001 + run_id % 2);
}

const char* const kSteps[] = {"advance", "record", "dispatch", "report", "followup", "stats"};

// CPU seconds of the store: mariadbd's, or this process's (SQLite).
class StoreCpu {
 public:
  explicit StoreCpu(pid_t mariadbd) : mariadbd_(mariadbd) {}
  double Now() const {
    if (mariadbd_ > 0) return testing::CpuSeconds(mariadbd_);
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
  }

 private:
  pid_t mariadbd_;
};

template <typename T>
std::vector<std::vector<T>> Chunks(std::vector<T> all, size_t n) {
  std::vector<std::vector<T>> out;
  for (size_t i = 0; i < all.size(); i += n) {
    out.emplace_back(all.begin() + i, all.begin() + std::min(all.size(), i + n));
  }
  return out;
}

struct Figures {
  std::map<std::string, double> cpu_s;   // By step.
  std::map<std::string, double> wall_s;  // By step.
  uint64_t statements = 0;
  int64_t runs = 0;
};

// One backend: J jobs, `seconds` slots each, every step of every run.
absl::StatusOr<Figures> Measure(const std::string& url, pid_t mariadbd, const Options& o) {
  // The statistics are written where the bench can see it: every 5 slots
  // (StoreOptions' default interval), by a read that writes them first.
  store::StoreOptions options;
  options.stats_flush_interval = absl::Hours(1);
  ASSIGN_OR_RETURN(std::unique_ptr<store::Store> st, store::OpenStore(url, options));
  v1::Group g;
  g.set_app_name("cost");
  ASSIGN_OR_RETURN(v1::Group group, st->CreateGroup(g, 1));
  std::vector<store::NewJob> news;
  for (int i = 0; i < o.jobs; ++i) {
    store::NewJob n;
    n.job.set_group_id(group.id());
    n.job.set_name(absl::StrCat("job-n", i));
    n.job.mutable_schedule()->mutable_cron()->set_expression("* * * * * ?");
    n.job.mutable_bean()->set_handler("noop");
    n.state = v1::JOB_STATE_RUNNING;
    n.next_fire_ms = 1'000'000;
    news.push_back(std::move(n));
  }
  std::vector<int64_t> job_ids;
  for (auto& chunk : Chunks(std::move(news), 1000)) {
    ASSIGN_OR_RETURN(std::vector<v1::Job> made, st->CreateJobs(chunk, 1));
    for (const v1::Job& j : made) job_ids.push_back(j.id());
  }
  const StoreCpu cpu(mariadbd);
  Figures f;
  auto step = [&](const char* name, const std::function<absl::Status()>& body) -> absl::Status {
    const double before = cpu.Now();
    const absl::Time start = absl::Now();
    absl::Status s = body();
    f.cpu_s[name] += cpu.Now() - before;
    f.wall_s[name] += absl::ToDoubleSeconds(absl::Now() - start);
    return s;
  };
  const uint64_t statements0 = st->executed_statements();
  int64_t written = 1'000'000;  // The cursor in the store.
  for (int s = 0; s < o.seconds; ++s) {
    const int64_t slot = 1'000'000 + int64_t{s} * 1000;
    // The schedule loop writes a job's cursor once per advance_flush_interval
    // (2 s): every other slot of an every-second job, its latest cursor.
    if (s % 2 == 1 || s == o.seconds - 1)
      RETURN_IF_ERROR(step("advance", [&]() -> absl::Status {
        std::vector<store::JobAdvance> adv;
        for (int64_t id : job_ids) adv.push_back({id, written, slot + 1000, slot});
        for (const auto& chunk : Chunks(std::move(adv), 1000)) {
          RETURN_IF_ERROR(st->AdvanceJobs(chunk).status());
        }
        written = slot + 1000;
        return absl::OkStatus();
      }));
    std::vector<int64_t> run_ids;
    RETURN_IF_ERROR(step("record", [&]() -> absl::Status {
      std::vector<v1::Run> runs;
      for (int64_t id : job_ids) {
        v1::Run r;
        r.set_job_id(id);
        r.set_group_id(group.id());
        r.set_trigger_type(v1::TRIGGER_TYPE_CRON);
        r.mutable_scheduled_time()->set_seconds(slot / 1000);
        r.mutable_trigger_time()->set_seconds(slot / 1000);
        r.set_handler("noop");
        r.set_shard_total(1);
        r.set_status(v1::RUN_STATUS_PENDING);
        r.set_fence_epoch(7);
        runs.push_back(std::move(r));
      }
      for (auto& chunk : Chunks(std::move(runs), 2048)) {
        ASSIGN_OR_RETURN(std::vector<store::RunInsertOutcome> out, st->InsertRuns(chunk));
        for (const auto& x : out) run_ids.push_back(x.run_id);
      }
      return absl::OkStatus();
    }));
    auto dispatch = [&]() -> absl::Status {
      std::vector<store::DispatchUpdate> ups;
      for (int64_t id : run_ids) {
        store::DispatchUpdate u;
        u.run_id = id;
        u.executor_address = "127.0.0.1:40001";
        u.trigger_message = RouteOf(id);
        u.dispatch_ms = slot + 5;
        u.fence_epoch = 7;
        ups.push_back(std::move(u));
      }
      for (const auto& chunk : Chunks(std::move(ups), 1024)) {
        RETURN_IF_ERROR(st->RecordDispatches(chunk));
      }
      return absl::OkStatus();
    };
    auto report = [&]() -> absl::Status {
      std::vector<v1::ReportItem> items;
      for (int64_t id : run_ids) {
        v1::RunStarted* started = items.emplace_back().mutable_started();
        started->set_run_id(id);
        started->mutable_start_time()->set_seconds(slot / 1000);
        started->set_executor_address("127.0.0.1:40001");
        if (o.receipts) {
          v1::DispatchReceipt receipt;
          receipt.set_run_id(id);
          receipt.set_trigger_message(RouteOf(id));
          receipt.set_dispatch_ms(slot + 5);
          receipt.set_fence_epoch(7);
          started->set_receipt(receipt.SerializeAsString());
        }
        v1::RunResult* res = items.emplace_back().mutable_result();
        res->set_run_id(id);
        res->set_handle_code(v1::HANDLE_CODE_SUCCESS);
        res->mutable_start_time()->set_seconds(slot / 1000);
        res->mutable_end_time()->set_seconds(slot / 1000);
        res->mutable_end_time()->set_nanos(2'000'000);
      }
      for (const auto& chunk : Chunks(std::move(items), 4096)) {
        RETURN_IF_ERROR(st->ApplyReports(chunk, group.id()).status());
      }
      return absl::OkStatus();
    };
    // With receipts the run's start records its dispatch, and the dispatch
    // recorder's deferred write comes after it (and finds nothing to write);
    // without, the dispatch is recorded first, as an executor that does not
    // echo receipts has it.
    if (o.receipts) {
      RETURN_IF_ERROR(step("report", report));
      RETURN_IF_ERROR(step("dispatch", dispatch));
    } else {
      RETURN_IF_ERROR(step("dispatch", dispatch));
      RETURN_IF_ERROR(step("report", report));
    }
    RETURN_IF_ERROR(step("followup", [&]() -> absl::Status {
      while (true) {
        ASSIGN_OR_RETURN(std::vector<v1::Run> pending,
                         st->ListPendingFollowups(500, slot + 10'000, {}));
        if (pending.empty()) return absl::OkStatus();
        std::vector<int64_t> ids;
        for (const v1::Run& r : pending) ids.push_back(r.id());
        RETURN_IF_ERROR(st->CompleteFollowups(ids));
      }
    }));
    if (s % 5 == 4 || s == o.seconds - 1) {
      RETURN_IF_ERROR(step("stats", [&]() -> absl::Status {
        return st->GetStats(slot - slot % 86'400'000, slot + 86'400'000, job_ids[0]).status();
      }));
    }
    f.runs += static_cast<int64_t>(run_ids.size());
  }
  f.statements = st->executed_statements() - statements0;
  return f;
}

bool ParseArgs(int argc, char** argv, Options& o) {
  return ParseBenchArgs(argc, argv,
                        "store_cost_bench [--jobs=10000] [--seconds=10] [--stores=sqlite,mysql] "
                        "[--mariadb-args=A,B] [--no-receipts]",
                        [&](absl::string_view a) {
                          if (absl::ConsumePrefix(&a, "--jobs=")) return PositiveInt(a, o.jobs);
                          if (absl::ConsumePrefix(&a, "--seconds="))
                            return PositiveInt(a, o.seconds);
                          if (absl::ConsumePrefix(&a, "--stores=")) {
                            o.stores = absl::StrSplit(a, ',', absl::SkipEmpty());
                            for (const std::string& s : o.stores) {
                              if (s != "sqlite" && s != "mysql") return false;
                            }
                            return !o.stores.empty();
                          }
                          if (a == "--no-receipts") {
                            o.receipts = false;
                            return true;
                          }
                          if (absl::ConsumePrefix(&a, "--mariadb-args=")) {
                            o.mariadb_args = absl::StrSplit(a, ',', absl::SkipEmpty());
                            return true;
                          }
                          return false;
                        });
}

void Print(const std::string& store, const Figures& f, const Options& o) {
  double total = 0;
  std::string cells;
  for (const char* s : kSteps) {
    const double ms = f.cpu_s.count(s) ? f.cpu_s.at(s) * 1e6 / f.runs : 0;
    total += ms;
    absl::StrAppend(&cells, " | ", absl::StrFormat("%.1f", ms));
  }
  std::string walls;
  for (const char* s : kSteps) {
    absl::StrAppend(&walls, " ", s, " ",
                    absl::StrFormat("%.1f", f.wall_s.count(s) ? f.wall_s.at(s) * 1e6 / f.runs : 0));
  }
  std::printf("| %d | %s%s | %.1f | %.2f | %s |\n", o.jobs, store.c_str(), cells.c_str(), total,
              double(f.statements) / f.runs, walls.c_str());
}

}  // namespace
}  // namespace gnomon::bench

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  gnomon::bench::Options o;
  if (!gnomon::bench::ParseArgs(argc, argv, o)) return 2;
  std::vector<std::pair<std::string, gnomon::bench::Figures>> rows;
  for (const std::string& store : o.stores) {
    std::printf("=== %s: %d jobs x %d slots\n", store.c_str(), o.jobs, o.seconds);
    absl::StatusOr<gnomon::bench::Figures> f;
    if (store == "mysql") {
      auto db = gnomon::testing::ThrowawayMariadb::Start(o.mariadb_args);
      if (!db.ok()) {
        std::printf("SKIPPED mysql: %s\n", db.status().ToString().c_str());
        continue;
      }
      f = gnomon::bench::Measure((*db)->Url("gnomon_cost"), (*db)->pid(), o);
    } else {
      gnomon::testing::TempDir dir;
      f = gnomon::bench::Measure(absl::StrCat("sqlite:", dir.path(), "/cost.db"), 0, o);
    }
    if (!f.ok()) {
      std::printf("FAILED %s: %s\n", store.c_str(), f.status().ToString().c_str());
      continue;
    }
    rows.emplace_back(store, *f);
  }
  std::printf(
      "\nstore CPU ms per 1,000 runs, by step (the store's own CPU: mariadbd's, or SQLite's in "
      "the caller)\n\n| J | store | advance | record | dispatch | report | followup | stats | all "
      "| "
      "statements/run | wall ms per 1,000 runs by step "
      "|\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& [store, f] : rows) gnomon::bench::Print(store, f, o);
  return 0;
}

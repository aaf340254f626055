// Store hot-path benchmarks: the scheduler's batch calls and the log service's
// report batches, on SQLite (a temp file) and, when GNOMON_TEST_MYSQL_URL is
// set, on MySQL (a fresh gnomon_bench* database per case, left on the server:
// point it at a throwaway one).
//
//   build/services/common/store/store_benchmark --benchmark_min_time=0.2
//
// Prints figures; asserts nothing about time.
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "services/common/store/store.h"

namespace gnomon::store {
namespace {

std::atomic<int> next_db{0};

std::unique_ptr<Store> Open(const std::string& backend, std::string* dir) {
  std::string url;
  if (backend == "mysql") {
    const char* base = std::getenv("GNOMON_TEST_MYSQL_URL");
    if (base == nullptr) return nullptr;
    std::string prefix(base);
    url = absl::StrCat(prefix.substr(0, prefix.rfind('/')), "/gnomon_bench", getpid(), "_",
                       next_db++);
  } else {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gnomon_bench_XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) return nullptr;
    *dir = tmpl;
    url = absl::StrCat("sqlite:", tmpl, "/bench.db");
  }
  absl::StatusOr<std::unique_ptr<Store>> s = OpenStore(url, StoreOptions{});
  return s.ok() ? *std::move(s) : nullptr;
}

// A store with one group and `jobs` RUNNING jobs due at 0.
struct Fixture {
  ~Fixture() {
    store.reset();
    if (!dir.empty()) std::filesystem::remove_all(dir);
  }
  std::string dir;  // SQLite temp dir.
  std::unique_ptr<Store> store;
  int64_t group_id = 0;
  std::vector<int64_t> job_ids;
};

bool Setup(benchmark::State& state, const std::string& backend, int jobs, Fixture* f) {
  f->store = Open(backend, &f->dir);
  if (f->store == nullptr) {
    state.SkipWithError("backend unavailable (MySQL needs GNOMON_TEST_MYSQL_URL)");
    return false;
  }
  v1::Group g;
  g.set_app_name("bench");
  f->group_id = f->store->CreateGroup(g, 1)->id();
  for (int i = 0; i < jobs; ++i) {
    v1::Job j;
    j.set_group_id(f->group_id);
    j.mutable_bean()->set_handler("h");
    f->job_ids.push_back(f->store->CreateJob(j, v1::JOB_STATE_RUNNING, 0, 1)->id());
  }
  return true;
}

void BM_AdvanceJobs100(benchmark::State& state, std::string backend) {
  Fixture f;
  if (!Setup(state, backend, 100, &f)) return;
  int64_t cursor = 0;
  for (auto _ : state) {
    std::vector<JobAdvance> adv;
    for (int64_t id : f.job_ids) adv.push_back({id, cursor, cursor + 1000, cursor});
    benchmark::DoNotOptimize(f.store->ListDueJobs(cursor, 100, {}));
    benchmark::DoNotOptimize(f.store->AdvanceJobs(adv));
    cursor += 1000;
  }
  state.SetItemsProcessed(state.iterations() * 100);
}

void BM_InsertRuns100(benchmark::State& state, std::string backend) {
  Fixture f;
  if (!Setup(state, backend, 100, &f)) return;
  int64_t slot = 1000;
  for (auto _ : state) {
    std::vector<v1::Run> runs;
    for (int64_t id : f.job_ids) {
      v1::Run r;
      r.set_job_id(id);
      r.set_group_id(f.group_id);
      r.set_trigger_type(v1::TRIGGER_TYPE_CRON);
      r.mutable_scheduled_time()->set_seconds(slot);
      runs.push_back(std::move(r));
    }
    benchmark::DoNotOptimize(f.store->InsertRuns(runs));
    ++slot;
  }
  state.SetItemsProcessed(state.iterations() * 100);
}

void BM_ApplyReports100(benchmark::State& state, std::string backend) {
  Fixture f;
  if (!Setup(state, backend, 1, &f)) return;
  int64_t line = 1;
  for (auto _ : state) {
    state.PauseTiming();
    v1::Run r;
    r.set_job_id(f.job_ids[0]);
    r.set_group_id(f.group_id);
    r.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
    std::vector<v1::Run> runs = {r};
    const int64_t run_id = (*f.store->InsertRuns(runs))[0].run_id;
    std::vector<v1::ReportItem> items;
    for (int i = 0; i < 98; ++i) {
      v1::ReportItem item;
      v1::LogLine* l = item.mutable_log()->add_lines();
      item.mutable_log()->set_run_id(run_id);
      l->set_line_number(line++);
      l->set_text("a typical log line of moderate length, about sixty characters");
      items.push_back(std::move(item));
    }
    items.emplace_back().mutable_started()->set_run_id(run_id);
    items.emplace_back().mutable_result()->set_run_id(run_id);
    items.back().mutable_result()->set_handle_code(200);
    state.ResumeTiming();
    benchmark::DoNotOptimize(f.store->ApplyReports(items, f.group_id));
  }
  state.SetItemsProcessed(state.iterations() * 100);
}

BENCHMARK_CAPTURE(BM_AdvanceJobs100, sqlite, std::string("sqlite"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_AdvanceJobs100, mysql, std::string("mysql"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_InsertRuns100, sqlite, std::string("sqlite"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_InsertRuns100, mysql, std::string("mysql"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ApplyReports100, sqlite, std::string("sqlite"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ApplyReports100, mysql, std::string("mysql"))->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace gnomon::store

BENCHMARK_MAIN();

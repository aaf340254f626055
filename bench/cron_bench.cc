// Next-fire computations per second for typical cron expressions, in UTC and
// Europe/Berlin. Each iteration is one CronExpression::NextAfter call, chained
// from the previous fire so the search walks forward like a scheduler does.
//
//   make cron_bench && ./bench/cron_bench
#include <string>

#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "services/common/cron/cron.h"

namespace {

const char* const kExpressions[] = {
    "*/5 * * * * ?",            // every 5 seconds
    "0 */15 9-17 ? * MON-FRI",  // business hours on weekdays
    "0 0 12 L-3 * ?",           // noon, three days before the end of the month
    "0 15 10 ? * 6#3",          // 10:15 on the third Friday
};
const char* const kZones[] = {"UTC", "Europe/Berlin"};

void BM_NextAfter(benchmark::State& state) {
  const std::string expr = kExpressions[state.range(0)];
  absl::TimeZone zone;
  absl::LoadTimeZone(kZones[state.range(1)], &zone);
  absl::StatusOr<gnomon::cron::CronExpression> e = gnomon::cron::CronExpression::Parse(expr);
  if (!e.ok()) {
    state.SkipWithError("parse failed");
    return;
  }
  const absl::Time start = absl::FromUnixSeconds(1700000000);  // 2023-11-14
  const absl::Time stop = absl::FromUnixSeconds(4000000000);   // 2096
  absl::Time t = start;
  for (auto _ : state) {
    std::optional<absl::Time> next = e->NextAfter(t, zone);
    t = (next && *next < stop) ? *next : start;
    benchmark::DoNotOptimize(t);
  }
  state.SetLabel(expr + " in " + kZones[state.range(1)]);
  state.counters["next_fires_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_NextAfter)->ArgsProduct({{0, 1, 2, 3}, {0, 1}});

void BM_Parse(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(gnomon::cron::CronExpression::Parse("0 */15 9-17 ? * MON-FRI"));
  }
}
BENCHMARK(BM_Parse);

}  // namespace

BENCHMARK_MAIN();

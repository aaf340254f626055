// What a params template costs a fire (RunRecorder::ParamsOf: the zone
// looked up, the template parsed and rendered), for the template of
// docs/parameters.md's example with three expressions, against the
// untemplated path (one substring check). Compare with gnomond's CPU per
// fire in bench/burst_bench (run it with --params to see the whole path).
//
//   make param_template_bench && ./bench/param_template_bench
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "benchmark/benchmark.h"
#include "services/common/schedule/param_template.h"
#include "services/common/schedule/schedule.h"

namespace {

constexpr char kTemplate[] =
    "day=$[yyyyMMdd-1] hour=$[yyyy-MM-dd HH:00] month=$[month_first_day(yyyy-MM-dd,0)]";

gnomon::v1::Schedule Shanghai() {
  gnomon::v1::Schedule s;
  s.mutable_cron()->set_expression("* * * * * ?");
  s.mutable_cron()->set_time_zone("Asia/Shanghai");
  return s;
}

// Each fire's whole cost, as the recorder pays it.
void BM_RenderPerFire(benchmark::State& state) {
  const gnomon::v1::Schedule s = Shanghai();
  absl::Time at = absl::Now();
  for (auto _ : state) {
    absl::StatusOr<std::string> r =
        gnomon::schedule::RenderParams(kTemplate, at, gnomon::schedule::ZoneOf(s));
    benchmark::DoNotOptimize(r);
    at += absl::Seconds(1);
  }
}
BENCHMARK(BM_RenderPerFire);

// Rendering alone, the template parsed once.
void BM_RenderParsed(benchmark::State& state) {
  const absl::TimeZone zone = gnomon::schedule::ZoneOf(Shanghai());
  const gnomon::schedule::ParamTemplate t = *gnomon::schedule::ParamTemplate::Parse(kTemplate);
  absl::Time at = absl::Now();
  for (auto _ : state) {
    benchmark::DoNotOptimize(t.Render(at, zone));
    at += absl::Seconds(1);
  }
}
BENCHMARK(BM_RenderParsed);

// Params without "$[": what every other job pays.
void BM_PlainParams(benchmark::State& state) {
  const std::string params = "region=eu batch=500 mode=full";
  for (auto _ : state) {
    benchmark::DoNotOptimize(gnomon::schedule::ParamTemplate::HasExpressions(params));
  }
}
BENCHMARK(BM_PlainParams);

}  // namespace

BENCHMARK_MAIN();

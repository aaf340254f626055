#include "services/log/log_metrics.h"

#include <vector>

#include "gtest/gtest.h"
#include "services/common/metrics/testing/samples.h"

namespace gnomon::logsvc {
namespace {

using metrics::testing::SampleOf;

v1::ReportItem Result(int64_t run_id, int32_t code, int64_t start_ms, int64_t end_ms) {
  v1::ReportItem item;
  v1::RunResult* r = item.mutable_result();
  r->set_run_id(run_id);
  r->set_handle_code(code);
  r->mutable_start_time()->set_seconds(start_ms / 1000);
  r->mutable_start_time()->set_nanos(static_cast<int32_t>(start_ms % 1000) * 1'000'000);
  r->mutable_end_time()->set_seconds(end_ms / 1000);
  r->mutable_end_time()->set_nanos(static_cast<int32_t>(end_ms % 1000) * 1'000'000);
  return item;
}

TEST(LogMetricsTest, AppliedResultsEndRunsAndDuplicatesOnlyCountAsItems) {
  metrics::MetricsRegistry registry;
  LogMetrics m(registry);
  v1::ReportItem started;
  started.mutable_started()->set_run_id(1);
  m.Stored({started, Result(1, 200, 10'000, 12'500), Result(2, 502, 10'000, 10'100),
            Result(1, 200, 10'000, 12'500)},
           {v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED,
            v1::REPORT_ACK_DUPLICATE},
           13'000);
  EXPECT_EQ(SampleOf(registry, "gnomon_runs_total{handle_code=\"success\",status=\"succeeded\"}"),
            1);
  EXPECT_EQ(SampleOf(registry, "gnomon_runs_total{handle_code=\"timeout\",status=\"failed\"}"), 1);
  EXPECT_EQ(SampleOf(registry, "gnomon_run_duration_seconds_sum"), 2.6);
  EXPECT_EQ(SampleOf(registry, "gnomon_result_report_latency_seconds_sum"), 0.5 + 2.9);
  EXPECT_EQ(SampleOf(registry, "gnomon_log_report_items_total{ack=\"applied\",kind=\"result\"}"),
            2);
  EXPECT_EQ(SampleOf(registry, "gnomon_log_report_items_total{ack=\"duplicate\",kind=\"result\"}"),
            1);
  EXPECT_EQ(SampleOf(registry, "gnomon_log_report_items_total{ack=\"applied\",kind=\"started\"}"),
            1);
}

}  // namespace
}  // namespace gnomon::logsvc

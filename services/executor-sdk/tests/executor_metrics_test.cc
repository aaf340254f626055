#include "services/executor-sdk/src/executor_metrics.h"

#include <map>

#include "gtest/gtest.h"
#include "services/common/metrics/testing/samples.h"

namespace gnomon::executor::internal {
namespace {

using metrics::testing::SampleOf;

class ExecutorMetricsTest : public ::testing::Test {
 protected:
  std::optional<double> Sample(const std::string& series) { return SampleOf(registry_, series); }
  metrics::MetricsRegistry registry_;
  ExecutorMetrics metrics_{registry_};
};

TEST_F(ExecutorMetricsTest, AnswersByOutcome) {
  DispatchOutcome accepted;
  accepted.accepted = true;
  metrics_.Answered(accepted);
  accepted.covered = true;
  metrics_.Answered(accepted);
  accepted.already_accepted = true;
  metrics_.Answered(accepted);
  DispatchOutcome refused;
  refused.kind = v1::REJECT_KIND_QUEUE_FULL;
  metrics_.Answered(refused);
  EXPECT_EQ(Sample("gnomon_executor_dispatches_total{outcome=\"accepted\"}"), 1);
  EXPECT_EQ(Sample("gnomon_executor_dispatches_total{outcome=\"covered\"}"), 1);
  EXPECT_EQ(Sample("gnomon_executor_dispatches_total{outcome=\"already_accepted\"}"), 1);
  EXPECT_EQ(Sample("gnomon_executor_dispatches_total{outcome=\"queue_full\"}"), 1);
  EXPECT_EQ(Sample("gnomon_executor_dispatches_total{outcome=\"stale_epoch\"}"), 0);
}

TEST_F(ExecutorMetricsTest, StartLatenessLeavesOutRunsWhoseDueInstantIsNotSent) {
  v1::RunRequest request;
  request.mutable_scheduled_time()->set_seconds(100);
  request.set_trigger_type(v1::TRIGGER_TYPE_CRON);
  metrics_.Started(request, absl::FromUnixMillis(100'030));
  request.set_trigger_type(v1::TRIGGER_TYPE_RETRY);  // Its slot is the first attempt's.
  metrics_.Started(request, absl::FromUnixSeconds(900));
  EXPECT_EQ(Sample("gnomon_executor_start_lateness_seconds_count{trigger_type=\"cron\"}"), 1);
  EXPECT_EQ(
      Sample("gnomon_executor_start_lateness_seconds_bucket{trigger_type=\"cron\",le=\"0.025\"}"),
      0);
  EXPECT_EQ(
      Sample("gnomon_executor_start_lateness_seconds_bucket{trigger_type=\"cron\",le=\"0.05\"}"),
      1);
  EXPECT_EQ(Sample("gnomon_executor_start_lateness_seconds_count{trigger_type=\"retry\"}"), 0);
}

TEST_F(ExecutorMetricsTest, FinishedRunsAndScrapeTimeState) {
  v1::RunResult result;
  result.set_handle_code(502);
  result.mutable_start_time()->set_seconds(10);
  result.mutable_end_time()->set_seconds(13);
  metrics_.Finished(result);
  metrics_.SetState(2, {{v1::BLOCK_STRATEGY_SERIAL_EXECUTION, 5}}, 7, absl::FromUnixSeconds(90),
                    absl::FromUnixSeconds(100));
  EXPECT_EQ(Sample("gnomon_executor_runs_total{handle_code=\"timeout\",status=\"failed\"}"), 1);
  EXPECT_EQ(Sample("gnomon_executor_handler_duration_seconds_sum"), 3);
  EXPECT_EQ(Sample("gnomon_executor_runs_in_flight"), 2);
  EXPECT_EQ(Sample("gnomon_executor_queued_runs{block_strategy=\"serial_execution\"}"), 5);
  EXPECT_EQ(Sample("gnomon_executor_queued_runs{block_strategy=\"discard_later\"}"), 0);
  EXPECT_EQ(Sample("gnomon_executor_spool_items"), 7);
  EXPECT_EQ(Sample("gnomon_executor_oldest_unacked_result_age_seconds"), 10);
  metrics_.SetState(0, {}, 0, std::nullopt, absl::FromUnixSeconds(100));
  EXPECT_EQ(Sample("gnomon_executor_oldest_unacked_result_age_seconds"), 0);
}

}  // namespace
}  // namespace gnomon::executor::internal

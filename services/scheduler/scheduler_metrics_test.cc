#include "services/scheduler/scheduler_metrics.h"

#include <string>

#include "gtest/gtest.h"
#include "services/common/metrics/testing/samples.h"

namespace gnomon::scheduler {
namespace {

using metrics::testing::SampleOf;

class SchedulerMetricsTest : public ::testing::Test {
 protected:
  std::optional<double> Sample(const std::string& series) { return SampleOf(registry_, series); }

  metrics::MetricsRegistry registry_;
  SchedulerMetrics metrics_{registry_, {7}, {"webhook", "email"}};
};

// Of 16 partitions.
Ownership Holding(std::vector<int> partitions, int64_t epoch) {
  Ownership o;
  o.epochs.assign(16, 0);
  o.partitions = std::move(partitions);
  for (int p : o.partitions) o.epochs[p] = epoch;
  o.live_replicas = 2;
  return o;
}

TEST_F(SchedulerMetricsTest, OwnershipCountsWhatWasGainedAndLost) {
  metrics_.Owned(Holding({0, 1, 2}, 5));
  metrics_.Owned(Holding({1, 2, 3}, 6));
  EXPECT_EQ(Sample("gnomon_scheduler_partitions"), 16);
  EXPECT_EQ(Sample("gnomon_scheduler_partitions_held"), 3);
  EXPECT_EQ(Sample("gnomon_scheduler_live_replicas"), 2);
  EXPECT_EQ(Sample("gnomon_scheduler_partition_transitions_total{change=\"gained\"}"), 4);
  EXPECT_EQ(Sample("gnomon_scheduler_partition_transitions_total{change=\"lost\"}"), 1);
  EXPECT_EQ(Sample("gnomon_scheduler_partition_epoch{partition=\"3\"}"), 6);
  EXPECT_EQ(Sample("gnomon_scheduler_partition_epoch{partition=\"0\"}"), 0);  // Given up.
  // Only partitions ever held here have a series.
  EXPECT_EQ(Sample("gnomon_scheduler_partition_epoch{partition=\"9\"}"), std::nullopt);
}

TEST_F(SchedulerMetricsTest, ListedJobsGetTheirOwnLateness) {
  v1::Run run;
  run.set_job_id(7);
  run.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
  run.mutable_trigger_time()->set_seconds(100);
  metrics_.Accepted(run, 100'200);
  run.set_job_id(8);
  metrics_.Accepted(run, 100'200);
  EXPECT_EQ(Sample("gnomon_scheduler_job_trigger_lateness_seconds_count{job_id=\"7\"}"), 1);
  EXPECT_EQ(Sample("gnomon_scheduler_job_trigger_lateness_seconds_count{job_id=\"8\"}"),
            std::nullopt);
  EXPECT_EQ(Sample("gnomon_scheduler_trigger_lateness_seconds_sum{trigger_type=\"manual\"}"), 0.4);
}

TEST_F(SchedulerMetricsTest, ScrapeTimeValuesMirrorTheirKeepers) {
  TriggerPools::Stats pools;
  pools.fast_queued = 12;
  pools.backpressure_waits = 3;
  pools.to_slow_pool = 2;
  metrics_.SetPools(pools);
  alarm::AlarmCounters alarms;
  alarms.sent_by_channel["webhook"] = 4;
  alarms.failed_by_channel["email"] = 1;
  alarms.aggregated = 2;
  metrics_.SetAlarms(alarms);
  metrics_.SetJobs({{"billing", v1::JOB_STATE_RUNNING, 3}, {"billing", v1::JOB_STATE_STOPPED, 1}});
  metrics_.SetJobs({{"billing", v1::JOB_STATE_RUNNING, 2}});
  EXPECT_EQ(Sample("gnomon_scheduler_trigger_pool_queued{pool=\"fast\"}"), 12);
  EXPECT_EQ(Sample("gnomon_scheduler_trigger_pool_backpressure_waits_total"), 3);
  EXPECT_EQ(Sample("gnomon_scheduler_trigger_pool_slow_submits_total"), 2);
  EXPECT_EQ(Sample("gnomon_scheduler_alarms_total{channel=\"webhook\",result=\"sent\"}"), 4);
  EXPECT_EQ(Sample("gnomon_scheduler_alarms_total{channel=\"email\",result=\"failed\"}"), 1);
  EXPECT_EQ(Sample("gnomon_scheduler_alarms_total{channel=\"email\",result=\"sent\"}"), 0);
  EXPECT_EQ(Sample("gnomon_scheduler_alarms_aggregated_total"), 2);
  // Nothing is dropped while the sender runs (a Raise after Stop is only
  // logged), so there is no counter for it.
  EXPECT_EQ(Sample("gnomon_scheduler_alarms_dropped_total"), std::nullopt);
  EXPECT_EQ(Sample("gnomon_jobs{app=\"billing\",state=\"running\"}"), 2);
  EXPECT_EQ(Sample("gnomon_jobs{app=\"billing\",state=\"stopped\"}"), 0);  // None left.
}

}  // namespace
}  // namespace gnomon::scheduler

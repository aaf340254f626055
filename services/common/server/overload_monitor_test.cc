#include "services/common/server/overload_monitor.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/metrics/testing/samples.h"
#include "services/common/status/status_matchers.h"

namespace gnomon {
namespace {

using ::testing::HasSubstr;

class OverloadMonitorTest : public ::testing::Test {
 protected:
  OverloadMonitorTest() {
    monitor_.AddStage("results_queued", [this] {
      return OverloadMonitor::Sample{static_cast<double>(queued_), queued_ >= 100};
    });
    monitor_.AddCounter("slots_misfired", [this] { return misfired_; });
  }
  // `n` samples a second apart with the backlog at `queued`.
  void Samples(int n, int queued) {
    queued_ = queued;
    for (int i = 0; i < n; ++i) {
      clock_.Advance(absl::Seconds(1));
      monitor_.SampleNow();
    }
  }

  SimulatedClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  metrics::MetricsRegistry metrics_;
  OverloadMonitor monitor_{&clock_, &metrics_, {}};
  int queued_ = 0;
  int64_t misfired_ = 0;
};

TEST_F(OverloadMonitorTest, BehindOnlyAfterTwoSamplesBehindAndOnTimeOnlyAfterFiveOnTime) {
  Samples(1, 500);  // A second's blip is not overload.
  EXPECT_THAT(monitor_.Status(), IsOk());
  Samples(1, 0);
  Samples(1, 500);
  EXPECT_THAT(monitor_.Status(), IsOk());
  Samples(1, 700);  // Two in a row.
  EXPECT_THAT(monitor_.Status(), StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_THAT(monitor_.Status().message(), HasSubstr("results_queued 700"));
  misfired_ = 40;
  Samples(4, 0);  // Four on time: still behind (no flapping).
  EXPECT_TRUE(monitor_.behind());
  Samples(1, 150);  // Behind again: the count of on-time samples starts over.
  Samples(4, 0);
  EXPECT_TRUE(monitor_.behind());
  Samples(1, 0);
  EXPECT_THAT(monitor_.Status(), IsOk());
  EXPECT_FALSE(monitor_.behind());
}

TEST_F(OverloadMonitorTest, MetricsSayWhetherItIsBehindHowFarAndHowOften) {
  Samples(2, 300);
  Samples(5, 0);
  Samples(2, 120);
  using metrics::testing::SampleOf;
  EXPECT_EQ(SampleOf(metrics_, "gnomon_overloaded"), 1);
  EXPECT_EQ(SampleOf(metrics_, "gnomon_overload_episodes_total"), 2);
  EXPECT_EQ(SampleOf(metrics_, "gnomon_overload_backlog{stage=\"results_queued\"}"), 120);
}

}  // namespace
}  // namespace gnomon

#include "services/registry/registry_metrics.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "services/common/metrics/testing/samples.h"
#include "services/common/store/testing/temp_store.h"
#include "services/registry/registry_core.h"

namespace gnomon::registry {
namespace {

using metrics::testing::SampleOf;

class RegistryMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    RegistryOptions o;
    o.remote_refresh = absl::ZeroDuration();
    core_ = std::make_unique<RegistryCore>(store_.get(), &clock_, o, &metrics_);
  }
  uint64_t Join(const std::string& app, const std::string& address) {
    v1::Register reg;
    reg.set_app_name(app);
    reg.set_address(address);
    absl::StatusOr<uint64_t> id = core_->Join(reg, [] {});
    EXPECT_TRUE(id.ok()) << id.status();
    return id.value_or(0);
  }
  std::optional<double> Sample(const std::string& series) {
    core_->RefreshMetrics();
    return SampleOf(registry_, series);
  }

  store::testing::TempStore store_;
  SimulatedClock clock_{absl::FromUnixMillis(1'800'000'000'000)};
  metrics::MetricsRegistry registry_;
  RegistryMetrics metrics_{registry_};
  std::unique_ptr<RegistryCore> core_;
};

TEST_F(RegistryMetricsTest, SessionsBeatsAndExecutorsPerApp) {
  const uint64_t a = Join("billing", "10.0.0.1:9999");
  Join("billing", "10.0.0.2:9999");
  Join("billing", "10.0.0.2:9999");  // The same executor again: replaces its session.
  const uint64_t c = Join("mail", "10.0.0.3:9999");
  ASSERT_TRUE(core_->Beat(a, v1::Beat()).ok());
  ASSERT_TRUE(core_->Beat(a, v1::Beat()).ok());
  EXPECT_EQ(Sample("gnomon_registry_sessions_opened_total"), 4);
  EXPECT_EQ(Sample("gnomon_registry_sessions_closed_total{reason=\"replaced\"}"), 1);
  EXPECT_EQ(Sample("gnomon_registry_beats_total"), 2);
  EXPECT_EQ(Sample("gnomon_registry_sessions"), 3);
  EXPECT_EQ(Sample("gnomon_registry_executors{app=\"billing\"}"), 2);
  core_->Leave(c, "deregistered");
  EXPECT_EQ(Sample("gnomon_registry_sessions_closed_total{reason=\"left\"}"), 1);
  EXPECT_EQ(Sample("gnomon_registry_executors{app=\"mail\"}"), 0);  // Its last one left.
}

}  // namespace
}  // namespace gnomon::registry

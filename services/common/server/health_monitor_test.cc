#include "services/common/server/health_monitor.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gnomon {
namespace {

// Notes the statuses set, as grpc's health service would serve them.
class NotedHealth final : public grpc::HealthCheckServiceInterface {
 public:
  void SetServingStatus(const std::string& service, bool serving) override {
    status[service] = serving;
  }
  void SetServingStatus(bool serving) override {
    for (auto& [name, s] : status) s = serving;
  }
  std::map<std::string, bool> status;
};

TEST(HealthMonitorTest, ReadinessIsServingOnlyWhileEveryCheckPassesAndLivenessAlways) {
  NotedHealth health;
  SimulatedClock clock(absl::FromUnixSeconds(1'800'000'000));
  HealthMonitor monitor(&health, &clock);
  absl::Status store = absl::OkStatus();
  absl::Status leases = absl::OkStatus();
  monitor.Add("gnomon.v1.Registry", [&] { return store; });
  monitor.Add("gnomon.v1.JobAdmin", [&] { return store.ok() ? leases : store; });

  monitor.CheckNow();
  EXPECT_THAT(health.status, ::testing::ElementsAre(::testing::Pair("", true),
                                                    ::testing::Pair("gnomon.v1.JobAdmin", true),
                                                    ::testing::Pair("gnomon.v1.Registry", true),
                                                    ::testing::Pair("liveness", true)));
  // The store goes away: every role is unready, the process still alive.
  store = absl::UnavailableError("store unreachable: connection refused");
  monitor.CheckNow();
  EXPECT_FALSE(health.status[""]);
  EXPECT_FALSE(health.status["gnomon.v1.Registry"]);
  EXPECT_FALSE(health.status["gnomon.v1.JobAdmin"]);
  EXPECT_TRUE(health.status["liveness"]);
  // Back, but the scheduler cannot hold its partitions yet.
  store = absl::OkStatus();
  leases = absl::UnavailableError("holds 10 of the 32 partitions it should");
  monitor.CheckNow();
  EXPECT_FALSE(health.status[""]);
  EXPECT_TRUE(health.status["gnomon.v1.Registry"]);
  EXPECT_FALSE(health.status["gnomon.v1.JobAdmin"]);
  leases = absl::OkStatus();
  monitor.CheckNow();
  EXPECT_TRUE(health.status[""]);
  EXPECT_TRUE(health.status["gnomon.v1.JobAdmin"]);
}

TEST(HealthMonitorTest, ADetailAnswersForItselfButReadinessDoesNotDependOnIt) {
  NotedHealth health;
  SimulatedClock clock(absl::FromUnixSeconds(1'800'000'000));
  HealthMonitor monitor(&health, &clock);
  absl::Status overload = absl::UnavailableError("behind since ...");
  monitor.Add("gnomon.v1.JobAdmin", [] { return absl::OkStatus(); });
  monitor.AddDetail(kOverloadHealthService, [&] { return overload; });
  monitor.CheckNow();
  EXPECT_TRUE(health.status[""]);  // Behind is no reason to take it out of service.
  EXPECT_FALSE(health.status[kOverloadHealthService]);
  overload = absl::OkStatus();
  monitor.CheckNow();
  EXPECT_TRUE(health.status[kOverloadHealthService]);
}

}  // namespace
}  // namespace gnomon

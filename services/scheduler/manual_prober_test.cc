// ManualProber: which addresses of manual groups answer beats, so routing
// skips dead ones without probing on the dispatch path.
#include "services/scheduler/manual_prober.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/failing_job_store.h"
#include "services/common/store/testing/store_call_steps.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/group_targets.h"
#include "services/scheduler/testing/fake_executors.h"

namespace gnomon::scheduler {
namespace {

using testing::FakeExecutors;
using ::testing::UnorderedElementsAre;

constexpr int64_t kNow = 1'800'000'000'000;

class ManualProberTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(temp_.status().ok()) << temp_.status();
    billing_ = Group("billing", "billing-token", {"x:1", "y:1"});
    Group("reports", "reports-token", {"z:1"});
    ASSERT_TRUE(temp_.AddGroup("registered", "registered-token", kNow).ok());  // Not probed.
  }
  v1::Group Group(const std::string& app, const std::string& token,
                  const std::vector<std::string>& addresses) {
    v1::Group g;
    g.set_app_name(app);
    g.set_access_token(token);
    for (const std::string& a : addresses) g.mutable_manual()->add_addresses(a);
    absl::StatusOr<v1::Group> created = temp_->CreateGroup(g, kNow);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? *created : g;
  }

  store::testing::TempStore temp_;
  store::testing::StoreCallHook hook_;
  store::testing::FailingJobStore jobs_{temp_.get(), &hook_};
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  FakeExecutors executors_;
  ManualProber prober_{&jobs_, &executors_, &clock_, absl::Seconds(2)};
  v1::Group billing_;
};

TEST_F(ManualProberTest, AnAddressNotProbedYetCountsAsAlive) {
  EXPECT_TRUE(prober_.Alive("x:1"));
  EXPECT_TRUE(executors_.beats.empty());
}

TEST_F(ManualProberTest, EveryAddressOfEveryManualGroupIsBeatenAsAnExecutorOfItsGroup) {
  prober_.ProbeAll();
  EXPECT_THAT(executors_.beats, UnorderedElementsAre("x:1 billing", "y:1 billing", "z:1 reports"));
}

TEST_F(ManualProberTest, AnAddressThatMissesABeatIsDeadUntilItAnswersAgain) {
  executors_.alive = {"x:1", "z:1"};
  prober_.ProbeAll();
  EXPECT_TRUE(prober_.Alive("x:1"));
  EXPECT_FALSE(prober_.Alive("y:1"));
  executors_.alive.insert("y:1");
  prober_.ProbeAll();
  EXPECT_TRUE(prober_.Alive("y:1"));
}

TEST_F(ManualProberTest, AStoreThatCannotBeReadKeepsTheLastVerdicts) {
  executors_.alive = {"x:1"};
  prober_.ProbeAll();
  hook_.Set(store::testing::FailNext("ListGroups", absl::UnavailableError("store down")));
  prober_.ProbeAll();
  EXPECT_FALSE(prober_.Alive("y:1"));  // Not "unknown, so alive" again.
  EXPECT_EQ(executors_.beats.size(), 3u);
}

TEST_F(ManualProberTest, RoutingSkipsAManualGroupsDeadAddresses) {
  executors_.alive = {"y:1"};
  prober_.ProbeAll();
  Membership membership("cluster-token", &clock_);
  GroupTargets groups(&jobs_, &membership, &clock_, &prober_);
  v1::Job job;
  job.set_group_id(billing_.id());
  FireSpec fire;
  fire.job = std::make_shared<const v1::Job>(job);
  absl::StatusOr<DispatchTargets> targets = groups.TargetsOf(fire);
  ASSERT_TRUE(targets.ok()) << targets.status();
  ASSERT_EQ(targets->executors->size(), 1u);
  EXPECT_EQ(targets->executors->front().address(), "y:1");
  // The API lists both, each with what its last beat said.
  const v1::GroupExecutors members = groups.Members(billing_);
  ASSERT_EQ(members.manual_size(), 2);
  EXPECT_EQ(members.manual(0).address(), "x:1");
  EXPECT_FALSE(members.manual(0).alive());
  EXPECT_TRUE(members.manual(1).alive());
}

TEST_F(ManualProberTest, StartProbesEveryIntervalUntilStopped) {
  prober_.Start();
  ASSERT_TRUE(hook_.AwaitCalls("ListGroups", 1, absl::Minutes(1)));
  clock_.BlockUntilWaiters(1);  // Probed once, then parked for the interval.
  EXPECT_EQ(executors_.beats.size(), 3u);
  EXPECT_FALSE(prober_.Alive("x:1"));
  executors_.alive = {"x:1"};
  clock_.Advance(absl::Seconds(2));
  ASSERT_TRUE(hook_.AwaitCalls("ListGroups", 2, absl::Minutes(1)));
  clock_.BlockUntilWaiters(1);
  EXPECT_EQ(executors_.beats.size(), 6u);
  EXPECT_TRUE(prober_.Alive("x:1"));
  prober_.Stop();
  EXPECT_EQ(hook_.calls("ListGroups"), 2);
}

}  // namespace
}  // namespace gnomon::scheduler

#include "services/scheduler/membership.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/scheduler/testing/fake_executors.h"

namespace gnomon::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

using testing::Snapshot;

v1::ExecutorInfo Executor(const std::string& address, const std::string& instance) {
  return testing::Registered("app", address, instance);
}

v1::WatchExecutorsResponse Change(v1::ExecutorChangeKind kind, const v1::ExecutorInfo& e) {
  v1::WatchExecutorsResponse msg;
  msg.mutable_change()->set_kind(kind);
  *msg.mutable_change()->mutable_executor() = e;
  return msg;
}

class MembershipTest : public ::testing::Test {
 protected:
  void SetUp() override {
    membership_.OnLeft([this](const v1::ExecutorInfo& e) {
      left_.push_back(e.address() + "/" + e.instance_id());
    });
  }
  SimulatedClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  Membership membership_{"token", &clock_};
  std::vector<std::string> left_;
};

TEST_F(MembershipTest, ANewProcessAtAnExecutorsAddressMeansTheOldOneLeft) {
  // Its runs are not on the new process: whoever waits for the old one's
  // runs must hear that it left, even though the address never went away.
  membership_.Apply(Snapshot({Executor("a:1", "one")}));
  membership_.Apply(Change(v1::EXECUTOR_CHANGE_KIND_JOINED, Executor("a:1", "two")));
  EXPECT_THAT(left_, ElementsAre("a:1/one"));
  ASSERT_EQ(membership_.Live("app")->size(), 1u);
  EXPECT_EQ(membership_.Live("app")->front().instance_id(), "two");
  // A snapshot (after the watch reconnects) that shows a third process.
  membership_.Apply(Snapshot({Executor("a:1", "three")}));
  EXPECT_THAT(left_, ElementsAre("a:1/one", "a:1/two"));
}

TEST_F(MembershipTest, TheSameProcessRegisteringAgainHasNotLeft) {
  // Re-registration after a registry replica change, or a beat's update.
  membership_.Apply(Snapshot({Executor("a:1", "one")}));
  membership_.Apply(Change(v1::EXECUTOR_CHANGE_KIND_JOINED, Executor("a:1", "one")));
  membership_.Apply(Snapshot({Executor("a:1", "one")}));
  EXPECT_THAT(left_, IsEmpty());
  membership_.Apply(Change(v1::EXECUTOR_CHANGE_KIND_LEFT, Executor("a:1", "one")));
  EXPECT_THAT(left_, ElementsAre("a:1/one"));
}

// Membership churn while routing: what routing holds is a snapshot.

TEST_F(MembershipTest, ASnapshotRoutingHoldsDoesNotChangeUnderItWhileTheNextOneDoes) {
  membership_.Apply(Snapshot({Executor("a:1", "one"), Executor("b:1", "one")}));
  const ExecutorList planned = membership_.Live("app");
  membership_.Apply(Change(v1::EXECUTOR_CHANGE_KIND_LEFT, Executor("a:1", "one")));
  membership_.Apply(Change(v1::EXECUTOR_CHANGE_KIND_JOINED, Executor("c:1", "one")));
  ASSERT_EQ(planned->size(), 2u);
  EXPECT_EQ(planned->front().address(), "a:1");
  const ExecutorList now = membership_.Live("app");
  ASSERT_EQ(now->size(), 2u);
  EXPECT_EQ((*now)[0].address(), "b:1");  // Sorted by address.
  EXPECT_EQ((*now)[1].address(), "c:1");
  EXPECT_NE(planned, now);
  EXPECT_EQ(membership_.Live("app"), now);  // Unchanged since: the same snapshot, not a copy.
}

TEST_F(MembershipTest, TheLastExecutorLeavingLeavesNoneLiveAnywhere) {
  membership_.Apply(Snapshot({Executor("a:1", "one")}));
  EXPECT_TRUE(membership_.HasLive("a:1"));
  membership_.Apply(Change(v1::EXECUTOR_CHANGE_KIND_LEFT, Executor("a:1", "one")));
  ASSERT_NE(membership_.Live("app"), nullptr);
  EXPECT_THAT(*membership_.Live("app"), IsEmpty());
  EXPECT_FALSE(membership_.HasLive("a:1"));
  EXPECT_THAT(*membership_.Live("no-such-app"), IsEmpty());
}

TEST_F(MembershipTest, ALeaveOfAnExecutorNotLiveIsNotReported) {
  membership_.Apply(Snapshot({Executor("a:1", "one")}));
  membership_.Apply(Change(v1::EXECUTOR_CHANGE_KIND_LEFT, Executor("z:1", "one")));
  EXPECT_THAT(left_, IsEmpty());
}

TEST_F(MembershipTest, NoExecutorIsKnownAbsentBeforeTheFirstSnapshot) {
  EXPECT_FALSE(membership_.synced());
  membership_.Apply(Change(v1::EXECUTOR_CHANGE_KIND_JOINED, Executor("a:1", "one")));
  EXPECT_FALSE(membership_.synced());  // A change alone is not the whole picture.
  membership_.Apply(Snapshot({}));
  EXPECT_TRUE(membership_.synced());
  EXPECT_THAT(left_, ElementsAre("a:1/one"));  // Absent from the snapshot: it left.
}

}  // namespace
}  // namespace gnomon::scheduler

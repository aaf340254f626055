#include "services/scheduler/partition_lease.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/fake_lease_store.h"
#include "services/common/store/testing/temp_store.h"

namespace gnomon::scheduler {
namespace {

// The partition count of a new store (TempStore); the fake's tests use it too.
constexpr int kCount = store::kDefaultPartitions;

class PartitionLeaseTest : public ::testing::Test {
 protected:
  // A replica whose listener keeps the last ownership published.
  struct Replica {
    std::shared_ptr<const Ownership> last;
    std::unique_ptr<PartitionLease> lease;
  };
  // On `leases` (null: the SQLite store, timed by the wall clock), of
  // `partitions` partitions.
  std::unique_ptr<Replica> Start(const std::string& id, absl::Duration ttl = absl::Seconds(60),
                                 store::LeaseStore* leases = nullptr, int partitions = kCount) {
    auto r = std::make_unique<Replica>();
    Replica* raw = r.get();
    PartitionLeaseOptions o;
    o.ttl = ttl;
    r->lease = std::make_unique<PartitionLease>(
        leases != nullptr ? leases : store_.get(), partitions, id, &clock_, o,
        [raw](std::shared_ptr<const Ownership> own) { raw->last = own; });
    return r;
  }
  // Renews each of `replicas` every 5 s of the clock for `d`.
  void RenewFor(absl::Duration d, const std::vector<Replica*>& replicas) {
    for (const absl::Time end = clock_.Now() + d; clock_.Now() < end;) {
      clock_.Advance(absl::Seconds(5));
      for (Replica* r : replicas) r->lease->Renew();
    }
  }

  store::testing::TempStore store_;
  SimulatedClock clock_{absl::FromUnixMillis(1'800'000'000'000)};
  // Leases timed by clock_, which a test can also take or make unreachable.
  store::testing::FakeLeaseStore fake_{&clock_};
};

TEST_F(PartitionLeaseTest, ALoneReplicaHoldsEveryPartitionUntilItsHoldLapses) {
  auto a = Start("a:7070");
  a->lease->Renew();
  ASSERT_NE(a->last, nullptr);
  EXPECT_EQ(a->last->partitions.size(), static_cast<size_t>(kCount));
  EXPECT_EQ(a->last->live_replicas, 1);
  // Valid for ttl minus one renewal interval on the local clock.
  EXPECT_EQ(a->last->valid_until_ms, clock_.NowMillis() + 60000 - 12000);
  for (int p = 0; p < kCount; ++p) EXPECT_EQ(a->last->epochs[p], 1);
}

TEST_F(PartitionLeaseTest, TheReplicasShareTheInstallationsPartitionCount) {
  auto a = Start("a:7070", absl::Seconds(10), &fake_, 8);
  auto b = Start("b:7070", absl::Seconds(10), &fake_, 8);
  a->lease->Renew();
  EXPECT_THAT(a->last->partitions, ::testing::ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  EXPECT_EQ(a->last->partition_count(), 8);
  EXPECT_EQ(fake_.Get("partition/8").name, "");  // No lease beyond the count.
  b->lease->Renew();
  a->lease->Renew();  // Hands b its share.
  b->lease->Renew();  // b takes it.
  a->lease->Renew();  // a reads b's epochs.
  // Every partition has one holder; jobs map onto them by the same count.
  EXPECT_EQ(a->last->partitions.size() + b->last->partitions.size(), 8u);
  for (int64_t job : {3, 11, 4096 + 5}) {
    EXPECT_NE(a->last->HoldsJob(job), b->last->HoldsJob(job)) << "job " << job;
    EXPECT_EQ(a->last->EpochOfJob(job), b->last->EpochOfJob(job)) << "job " << job;
  }
  EXPECT_EQ(a->last->HoldsJob(3), a->last->HoldsJob(11));  // Both in partition 3.
}

// Pod names of a Deployment never come back: the presence rows of replicas
// gone for longer than prune_departed_after (10 minutes) are deleted by
// the live ones; never a live or recently expired one, never a partition's.

TEST_F(PartitionLeaseTest, PresenceRowsOfReplicasGoneForLongArePrunedButNotPartitionRows) {
  auto gone = Start("gone:7070", absl::Seconds(10), &fake_);
  gone->lease->Renew();               // Holds every partition (epoch 1), then never renews again.
  clock_.Advance(absl::Minutes(11));  // The whole cluster was down meanwhile.
  auto a = Start("a:7070", absl::Seconds(10), &fake_);
  a->lease->Renew();
  EXPECT_EQ(fake_.Get("replica/gone:7070").name, "");  // Pruned.
  EXPECT_EQ(fake_.Get("replica/a:7070").holder, a->lease->holder());
  // Its partitions' rows, expired as long, stayed: their epochs only grow.
  ASSERT_EQ(a->last->partitions.size(), static_cast<size_t>(kCount));
  for (int p = 0; p < kCount; ++p) EXPECT_EQ(a->last->epochs[p], 2) << "partition " << p;
}

TEST_F(PartitionLeaseTest, LiveAndRecentlyDepartedReplicasKeepTheirPresenceRows) {
  auto a = Start("a:7070", absl::Seconds(10), &fake_);
  auto b = Start("b:7070", absl::Seconds(10), &fake_);
  auto crashed = Start("crashed:7070", absl::Seconds(10), &fake_);
  auto stopped = Start("stopped:7070", absl::Seconds(10), &fake_);
  for (auto* r : {a.get(), b.get(), crashed.get(), stopped.get()}) r->lease->Renew();
  stopped->lease->ReleaseAll();  // Gone now: its row expired at once.
  // crashed never renews again: its row expires 10 s from now.
  RenewFor(absl::Seconds(595), {a.get(), b.get()});  // 9:55 since.
  for (const char* id : {"a", "b", "crashed", "stopped"}) {
    EXPECT_NE(fake_.Get(absl::StrCat("replica/", id, ":7070")).name, "") << id;
  }
  RenewFor(absl::Seconds(10), {a.get(), b.get()});  // 10:05.
  EXPECT_EQ(fake_.Get("replica/stopped:7070").name, "");
  EXPECT_NE(fake_.Get("replica/crashed:7070").name, "");  // Expired 9:55 ago.
  RenewFor(absl::Seconds(10), {a.get(), b.get()});        // 10:15.
  EXPECT_EQ(fake_.Get("replica/crashed:7070").name, "");
  EXPECT_EQ(fake_.Get("replica/b:7070").holder, b->lease->holder());  // Live: kept.
  EXPECT_EQ(a->last->live_replicas, 2);
  EXPECT_EQ(a->last->partitions.size() + b->last->partitions.size(), static_cast<size_t>(kCount));
}

TEST_F(PartitionLeaseTest, AReplicaBackWithinThePruneAgeKeepsItsPresenceRow) {
  auto a = Start("a:7070", absl::Seconds(10), &fake_);
  auto pod = Start("pod:7070", absl::Seconds(10), &fake_);
  a->lease->Renew();
  pod->lease->Renew();
  const int64_t epoch = fake_.Get("replica/pod:7070").epoch;
  RenewFor(absl::Minutes(9), {a.get()});
  auto back = Start("pod:7070", absl::Seconds(10), &fake_);  // Restarted with the same id.
  RenewFor(absl::Minutes(5), {a.get(), back.get()});
  EXPECT_EQ(fake_.Get("replica/pod:7070").holder, back->lease->holder());
  EXPECT_EQ(fake_.Get("replica/pod:7070").epoch, epoch + 1);  // The same row, taken again.
  EXPECT_EQ(a->last->live_replicas, 2);
}

TEST_F(PartitionLeaseTest, HealthyOnlyWhileRenewedAndHoldingItsShare) {
  auto a = Start("a:7070", absl::Seconds(10));
  EXPECT_FALSE(a->lease->Health().ok());  // Nothing renewed yet.
  a->lease->Renew();
  EXPECT_TRUE(a->lease->Health().ok()) << a->lease->Health();
  // b's share is all held by a, which is not renewing (frozen) but whose
  // leases have not expired: b waits, ready, for a while; then says why not.
  auto b = Start("b:7070", absl::Seconds(10));
  b->lease->Renew();
  b->lease->Renew();
  EXPECT_TRUE(b->lease->Health().ok()) << b->lease->Health();
  clock_.Advance(absl::Seconds(7));  // a's leases, by the store's clock, still live.
  b->lease->Renew();
  EXPECT_TRUE(b->lease->Health().ok()) << b->lease->Health();
  clock_.Advance(absl::Seconds(14));
  b->lease->Renew();
  EXPECT_THAT(std::string(b->lease->Health().message()),
              ::testing::HasSubstr("partitions it should"));
  // Not renewed within its ttl (the store unreachable): not healthy either.
  EXPECT_FALSE(a->lease->Health().ok());
}

TEST_F(PartitionLeaseTest, ASecondReplicaGetsItsShareOnceTheFirstHandsItOver) {
  auto a = Start("a:7070");
  auto b = Start("b:7070");
  a->lease->Renew();
  b->lease->Renew();  // Registers b; a still holds everything.
  EXPECT_TRUE(b->last->partitions.empty());
  EXPECT_EQ(b->last->live_replicas, 2);
  a->lease->Renew();  // a sees b and gives b's share up.
  b->lease->Renew();  // b takes it.
  ASSERT_FALSE(a->last->partitions.empty());
  ASSERT_FALSE(b->last->partitions.empty());
  EXPECT_EQ(a->last->partitions.size() + b->last->partitions.size(), static_cast<size_t>(kCount));
  for (int p : b->last->partitions) {
    EXPECT_FALSE(a->last->Holds(p));
    EXPECT_EQ(b->last->epochs[p], 2);  // A new holder: a new epoch.
  }
  // Both know every partition's current epoch (admin fires carry it).
  a->lease->Renew();
  for (int p : b->last->partitions) EXPECT_EQ(a->last->epochs[p], 2);
}

TEST_F(PartitionLeaseTest, AStoppedReplicasPartitionsAreTakenAtOnce) {
  auto a = Start("a:7070");
  auto b = Start("b:7070");
  a->lease->Renew();
  b->lease->Renew();
  a->lease->Renew();
  b->lease->Renew();
  const size_t b_share = b->last->partitions.size();
  ASSERT_GT(b_share, 0u);
  b->lease->ReleaseAll();
  EXPECT_TRUE(b->last->partitions.empty());
  a->lease->Renew();
  EXPECT_EQ(a->last->partitions.size(), static_cast<size_t>(kCount));
}

TEST_F(PartitionLeaseTest, ARestartedReplicaTakesOverItsPredecessorAtOnceWithNewEpochs) {
  auto old = Start("a:7070");
  old->lease->Renew();
  auto restarted = Start("a:7070");  // Same id, new incarnation; old never released.
  restarted->lease->Renew();
  EXPECT_EQ(restarted->last->partitions.size(), static_cast<size_t>(kCount));
  EXPECT_NE(restarted->lease->holder(), old->lease->holder());
  for (int p = 0; p < kCount; ++p) EXPECT_EQ(restarted->last->epochs[p], 2);
}

TEST_F(PartitionLeaseTest, ACrashedReplicasPartitionsGoToTheOthersWhenItsLeasesExpire) {
  auto a = Start("a:7070", absl::Milliseconds(300));
  auto b = Start("b:7070", absl::Milliseconds(300));
  a->lease->Renew();
  b->lease->Renew();
  a->lease->Renew();
  b->lease->Renew();
  ASSERT_LT(a->last->partitions.size(), static_cast<size_t>(kCount));
  // b crashes (never renews again). Leases expire by the store's clock, so
  // this waits for real time to pass the ttl.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (a->last->partitions.size() < static_cast<size_t>(kCount) && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(50));
    a->lease->Renew();
  }
  EXPECT_EQ(a->last->partitions.size(), static_cast<size_t>(kCount));
  EXPECT_EQ(a->last->live_replicas, 1);
}

// A lease lost while its holder fires: the next renewal gives it up (the
// listener, which stops the loop firing it, hears so), and a holder cut off
// from the store stops firing before its leases can be taken.

TEST_F(PartitionLeaseTest, APartitionTakenOverBetweenRenewalsIsGivenUpAtTheNextRenewal) {
  auto a = Start("a:7070", absl::Seconds(10), &fake_);
  a->lease->Renew();
  ASSERT_TRUE(a->last->Holds(5));
  fake_.Steal("partition/5", "b:7070#1");  // A newer holder, whatever a thinks.
  a->lease->Renew();
  EXPECT_FALSE(a->last->Holds(5));
  EXPECT_EQ(a->last->partitions.size(), static_cast<size_t>(kCount - 1));
  EXPECT_EQ(a->last->epochs[5], 2);  // Its fires of that partition's jobs now carry the new epoch.
  EXPECT_EQ(fake_.Get("partition/5").holder, "b:7070#1");
  EXPECT_TRUE(a->lease->Health().ok())
      << a->lease->Health();  // Short of its share only briefly so far.
}

TEST_F(PartitionLeaseTest, AHolderCutOffFromTheStoreStopsFiringBeforeItsLeasesCanBeTaken) {
  // ttl 10 s, renewals every 2 s: a's hold is valid for 8 s after a
  // renewal; its leases expire 10 s after it, by the store's clock.
  auto a = Start("a:7070", absl::Seconds(10), &fake_);
  a->lease->Renew();
  const int64_t renewed = clock_.NowMillis();
  fake_.set_down(true);
  for (int s = 2; s <= 6; s += 2) {
    clock_.AdvanceTo(absl::FromUnixMillis(renewed + s * 1000));
    a->lease->Renew();
    EXPECT_EQ(a->last->partitions.size(), static_cast<size_t>(kCount)) << s << " s";
  }
  clock_.AdvanceTo(absl::FromUnixMillis(renewed + 8000));
  a->lease->Renew();
  EXPECT_TRUE(a->last->partitions.empty());  // Stopped firing: its hold lapsed.
  EXPECT_FALSE(a->lease->Health().ok());
  fake_.set_down(false);
  auto b = Start("b:7070", absl::Seconds(10), &fake_);
  b->lease->Renew();
  EXPECT_TRUE(b->last->partitions.empty());  // a's leases still live by the store's clock.
  clock_.AdvanceTo(absl::FromUnixMillis(renewed + 10'000));
  b->lease->Renew();
  EXPECT_EQ(b->last->partitions.size(), static_cast<size_t>(kCount));
  for (int p = 0; p < kCount; ++p) EXPECT_EQ(b->last->epochs[p], 2);
  EXPECT_TRUE(a->last->partitions.empty());
}

TEST_F(PartitionLeaseTest, AReplicaThatStopsRenewingLosesItsShareToTheOthersWithNewEpochs) {
  auto a = Start("a:7070", absl::Seconds(10), &fake_);
  auto b = Start("b:7070", absl::Seconds(10), &fake_);
  a->lease->Renew();
  b->lease->Renew();
  a->lease->Renew();
  b->lease->Renew();
  const std::vector<int> b_share = b->last->partitions;
  ASSERT_FALSE(b_share.empty());
  // b freezes (never renews again); a renews on.
  for (int s = 2; s <= 10; s += 2) {
    clock_.Advance(absl::Seconds(2));
    a->lease->Renew();
  }
  EXPECT_EQ(a->last->partitions.size(), static_cast<size_t>(kCount));
  EXPECT_EQ(a->last->live_replicas, 1);
  for (int p : b_share) EXPECT_EQ(a->last->epochs[p], 3) << "partition " << p;  // a, b, a again.
}

}  // namespace
}  // namespace gnomon::scheduler

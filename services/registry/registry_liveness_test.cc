// RegistryCore's liveness, as the schedulers routing to executors rely on
// it: join, beats and leave reach watchers at once; an executor whose beats
// stop is removed once missed_beats beat intervals have passed (within the
// expiry's next check, a quarter interval); an executor that moved to
// another replica keeps its row when the first replica removes its old
// registration; and a store outage neither ends sessions nor makes another
// replica's executors look gone. Replicas are RegistryCores sharing one
// SQLite store, each through its own FailingMembershipStore; time is a
// SimulatedClock, and each expiry pass is awaited through its store read.
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/testing/failing_membership_store.h"
#include "services/common/store/testing/temp_store.h"
#include "services/registry/registry_core.h"

namespace gnomon::registry {
namespace {

using google::protobuf::util::TimeUtil;
using store::testing::FailWhile;
using store::testing::StoreCallHook;

constexpr int64_t kStart = 1'800'000'000'000;
constexpr absl::Duration kPatience = absl::Seconds(60);  // Bounds a broken test only.
constexpr char kAddress[] = "10.0.0.7:9999";

// Beats every 2 s, removal after 3 missed; rows persisted every 2 s.
RegistryOptions Options(const std::string& replica,
                        absl::Duration remote_refresh = absl::ZeroDuration()) {
  RegistryOptions o;
  o.beat_interval = absl::Seconds(2);
  o.missed_beats = 3;
  o.persist_interval = absl::Seconds(2);
  o.remote_refresh = remote_refresh;
  o.replica_id = replica;
  return o;
}

v1::Register Registration() {
  v1::Register reg;
  reg.set_app_name("billing");
  reg.set_address(kAddress);
  reg.add_handlers("noop");
  reg.set_instance_id("instance-1");
  return reg;
}

v1::Beat Busy(int64_t job_id, int running) {
  v1::Beat beat;
  v1::JobBusy* busy = beat.add_busy_jobs();
  busy->set_job_id(job_id);
  busy->set_running(running);
  beat.set_running_runs(running);
  return beat;
}

// The kinds of the changes a watcher has been sent so far (without waiting).
std::vector<v1::ExecutorChangeKind> Changes(Watcher& w) {
  std::vector<v1::ExecutorChangeKind> kinds;
  while (std::optional<v1::WatchExecutorsResponse> m = w.Next(absl::ZeroDuration())) {
    if (m->has_change()) kinds.push_back(m->change().kind());
  }
  return kinds;
}

// Starts a replica's expiry (its own thread) and steps it: Step(d) moves the clock
// once the expiry waits, and returns when the pass that wakes is done — it
// has read the store (with remote_refresh = beat_interval / 4, every pass
// does) and waits for the clock again.
class Expiry {
 public:
  Expiry(RegistryCore* core, StoreCallHook* hook, SimulatedClock* clock)
      : core_(core), hook_(hook), clock_(clock) {
    core_->StartExpiry();
    reads_ = 1;  // The read at start.
    EXPECT_TRUE(hook_->AwaitCalls("ListExecutors", reads_, kPatience));
  }
  ~Expiry() { core_->Stop(); }
  void Step(absl::Duration d) {
    clock_->BlockUntilWaiters(1);
    clock_->Advance(d);
    EXPECT_TRUE(hook_->AwaitCalls("ListExecutors", ++reads_, kPatience));
    clock_->BlockUntilWaiters(1);  // The read has begun; this is its end.
  }

 private:
  RegistryCore* const core_;
  StoreCallHook* const hook_;
  SimulatedClock* const clock_;
  int reads_ = 0;
};

class RegistryLivenessTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(store_.status().ok()) << store_.status(); }
  std::vector<v1::ExecutorInfo> Rows() {
    absl::StatusOr<std::vector<v1::ExecutorInfo>> rows = store_->ListExecutors();
    EXPECT_TRUE(rows.ok()) << rows.status();
    return rows.value_or(std::vector<v1::ExecutorInfo>{});
  }

  store::testing::TempStore store_;
  StoreCallHook hook_a_, hook_b_;
  store::testing::FailingMembershipStore rows_a_{store_.get(), &hook_a_},
      rows_b_{store_.get(), &hook_b_};
  SimulatedClock clock_{absl::FromUnixMillis(kStart)};
};

TEST_F(RegistryLivenessTest, JoinBeatsAndLeaveReachWatchersAndTheStore) {
  RegistryCore core(&rows_a_, &clock_, Options("a"));
  std::shared_ptr<Watcher> watch = core.Watch({"billing"});
  ASSERT_TRUE(watch->Next(absl::ZeroDuration())->has_snapshot());
  absl::StatusOr<uint64_t> session = core.Join(Registration(), [] {});
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ(Changes(*watch), std::vector{v1::EXECUTOR_CHANGE_KIND_JOINED});
  ASSERT_EQ(Rows().size(), 1u);
  EXPECT_EQ(Rows()[0].registry_replica(), "a");

  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(core.Beat(*session, Busy(7, 1)).ok());  // Busy state changed: routing learns it.
  EXPECT_EQ(Changes(*watch), std::vector{v1::EXECUTOR_CHANGE_KIND_UPDATED});
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(Rows()[0].last_beat_time()),
            kStart);  // Persisted every 2 s.
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(core.Beat(*session, Busy(7, 1)).ok());  // Unchanged: nothing to tell.
  EXPECT_TRUE(Changes(*watch).empty());
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(Rows()[0].last_beat_time()), kStart + 2'000);

  core.Leave(*session, "deregistered");
  EXPECT_EQ(Changes(*watch), std::vector{v1::EXECUTOR_CHANGE_KIND_LEFT});
  EXPECT_TRUE(Rows().empty());
  EXPECT_THAT(core.Beat(*session, Busy(7, 0)), StatusIs(absl::StatusCode::kFailedPrecondition));
}

// An executor that reconnects (same app and address) before its old stream
// is noticed broken keeps its identity: the old stream is ended, and its
// late end removes nothing.
TEST_F(RegistryLivenessTest, AQuickReconnectReplacesTheOldSessionWithoutALeave) {
  RegistryCore core(&rows_a_, &clock_, Options("a"));
  std::atomic<bool> old_ended{false};
  absl::StatusOr<uint64_t> old = core.Join(Registration(), [&] { old_ended = true; });
  ASSERT_TRUE(old.ok()) << old.status();
  std::shared_ptr<Watcher> watch = core.Watch({});
  watch->Next(absl::ZeroDuration());  // The snapshot.
  clock_.Advance(absl::Milliseconds(300));
  absl::StatusOr<uint64_t> now = core.Join(Registration(), [] {});
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_TRUE(old_ended);
  EXPECT_THAT(core.Beat(*old, v1::Beat()), StatusIs(absl::StatusCode::kFailedPrecondition));
  core.Leave(*old, "stream cancelled");  // The old stream's handler ends.
  EXPECT_EQ(Changes(*watch), std::vector{v1::EXECUTOR_CHANGE_KIND_UPDATED});
  EXPECT_EQ(Rows().size(), 1u);
  EXPECT_TRUE(core.Beat(*now, v1::Beat()).ok());
}

TEST_F(RegistryLivenessTest, AnExecutorWhoseBeatsStopIsRemovedOnceMissedBeatsIntervalsHavePassed) {
  RegistryCore core(&rows_a_, &clock_, Options("a", absl::Milliseconds(500)));
  std::atomic<bool> ended{false};
  absl::StatusOr<uint64_t> session = core.Join(Registration(), [&] { ended = true; });
  ASSERT_TRUE(session.ok()) << session.status();
  Expiry expiry(&core, &hook_a_, &clock_);
  std::shared_ptr<Watcher> watch = core.Watch({"billing"});  // After the expiry's first read.
  watch->Next(absl::ZeroDuration());                         // The snapshot.
  for (int i = 0; i < 4; ++i) expiry.Step(absl::Milliseconds(500));
  ASSERT_TRUE(core.Beat(*session, v1::Beat()).ok());  // At 2 s: its last beat.
  for (int i = 0; i < 12; ++i) expiry.Step(absl::Milliseconds(500));
  // 6 s (3 intervals) after the last beat: not yet missed.
  EXPECT_TRUE(Changes(*watch).empty());
  EXPECT_FALSE(ended);
  ASSERT_EQ(Rows().size(), 1u);
  expiry.Step(absl::Milliseconds(500));  // The next check: gone, and its stream ended.
  EXPECT_EQ(Changes(*watch), std::vector{v1::EXECUTOR_CHANGE_KIND_LEFT});
  EXPECT_TRUE(ended);
  EXPECT_THAT(core.Beat(*session, v1::Beat()), StatusIs(absl::StatusCode::kFailedPrecondition));
  // Gone for the other replicas too, at their next read — not only once its
  // row is stale, which with a --beat-interval under 2 s comes later.
  EXPECT_TRUE(Rows().empty());
}

// The executor's stream to replica a broke and it registered with b while
// a was removing its old registration: b's row stays (RemoveExecutor is
// keyed by the registration), or every replica would route around a
// live executor until its next persisted beat.
TEST_F(RegistryLivenessTest, AnExecutorThatMovedToAnotherReplicaKeepsItsRowWhenTheFirstRemovesIt) {
  RegistryCore a(&rows_a_, &clock_, Options("a")), b(&rows_b_, &clock_, Options("b"));
  absl::StatusOr<uint64_t> at_a = a.Join(Registration(), [] {});
  ASSERT_TRUE(at_a.ok()) << at_a.status();
  absl::Notification removing, joined_b;
  hook_a_.Set(store::testing::HoldUntil("RemoveExecutor", &removing, &joined_b));
  clock_.Advance(absl::Milliseconds(40));  // The reconnect.
  std::thread leave([&] { a.Leave(*at_a, "stream broken"); });
  removing.WaitForNotification();
  ASSERT_TRUE(b.Join(Registration(), [] {}).ok());
  joined_b.Notify();
  leave.join();
  std::vector<v1::ExecutorInfo> rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].registry_replica(), "b");
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(rows[0].register_time()), kStart + 40);
}

// As above, but the executor registered with a and with b in the same
// millisecond, so both registrations have the same register time: a's
// removal must still leave the row b wrote (removal is keyed by the
// registration, not by its time).
TEST_F(RegistryLivenessTest, ARemovalLeavesAnotherReplicasRegistrationMadeInTheSameMillisecond) {
  RegistryCore a(&rows_a_, &clock_, Options("a")), b(&rows_b_, &clock_, Options("b"));
  absl::StatusOr<uint64_t> at_a = a.Join(Registration(), [] {});
  ASSERT_TRUE(at_a.ok()) << at_a.status();
  ASSERT_TRUE(b.Join(Registration(), [] {}).ok());  // The clock has not moved.
  a.Leave(*at_a, "stream broken");
  std::vector<v1::ExecutorInfo> rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].registry_replica(), "b");
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(rows[0].register_time()), kStart);
}

// Membership lives in the registry, not the store: while the store is down
// executors still join and beat (routing through this replica goes on), and
// once it is back their rows are written again for the other replicas.
TEST_F(RegistryLivenessTest, AStoreOutageDuringBeatsEndsNoSessionAndTheRowReturnsWithTheStore) {
  RegistryCore core(&rows_a_, &clock_, Options("a"));
  std::atomic<bool> down{true};
  hook_a_.Set(FailWhile(&down));
  std::shared_ptr<Watcher> watch = core.Watch({"billing"});
  watch->Next(absl::ZeroDuration());
  absl::StatusOr<uint64_t> session = core.Join(Registration(), [] {});
  ASSERT_TRUE(session.ok()) << session.status();
  for (int i = 1; i <= 5; ++i) {
    clock_.Advance(absl::Seconds(2));
    ASSERT_TRUE(core.Beat(*session, Busy(7, i % 2)).ok()) << i;
  }
  std::vector<v1::ExecutorChangeKind> expected(
      6, v1::EXECUTOR_CHANGE_KIND_UPDATED);  // Each beat changed it.
  expected[0] = v1::EXECUTOR_CHANGE_KIND_JOINED;
  EXPECT_EQ(Changes(*watch), expected);
  EXPECT_TRUE(Rows().empty());  // Never written.
  down = false;
  clock_.Advance(absl::Seconds(2));
  ASSERT_TRUE(core.Beat(*session, Busy(7, 0)).ok());
  std::vector<v1::ExecutorInfo> rows = Rows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(rows[0].last_beat_time()), clock_.NowMillis());
}

// Replica b sees replica a's executor through the store. An outage stops a
// persisting its beats and b reading; when the store is back every row is
// older than the staleness limit — but b keeps the executor while a has had
// no chance to persist a beat, so routing never sees an empty group. Once
// a's beats really stop, b drops it when its row goes stale.
TEST_F(RegistryLivenessTest, AStoreOutageDoesNotMakeAnotherReplicasExecutorLeave) {
  RegistryCore a(&rows_a_, &clock_, Options("a"));
  RegistryCore b(&rows_b_, &clock_, Options("b", absl::Milliseconds(500)));
  absl::StatusOr<uint64_t> session = a.Join(Registration(), [] {});
  ASSERT_TRUE(session.ok()) << session.status();
  Expiry expiry(&b, &hook_b_, &clock_);
  std::shared_ptr<Watcher> watch = b.Watch({"billing"});
  std::optional<v1::WatchExecutorsResponse> snapshot = watch->Next(absl::ZeroDuration());
  ASSERT_TRUE(snapshot && snapshot->snapshot().executors_size() == 1);

  std::atomic<bool> down{true};
  hook_a_.Set(FailWhile(&down));
  hook_b_.Set(FailWhile(&down));
  for (int i = 1; i <= 40; ++i) {  // 20 s: 10 s down, 10 s back.
    if (i == 21) down = false;
    expiry.Step(absl::Milliseconds(500));
    if (i % 4 == 0) ASSERT_TRUE(a.Beat(*session, v1::Beat()).ok());
  }
  EXPECT_TRUE(Changes(*watch).empty());

  // a's beats stop (its process froze): b drops the executor after 3
  // persist intervals without a persisted beat — not before.
  const int64_t last_persisted = TimeUtil::TimestampToMilliseconds(Rows()[0].last_beat_time());
  while (clock_.NowMillis() + 500 <= last_persisted + 6'000) {
    expiry.Step(absl::Milliseconds(500));
    ASSERT_TRUE(Changes(*watch).empty()) << clock_.NowMillis() - last_persisted;
  }
  expiry.Step(absl::Milliseconds(500));
  EXPECT_EQ(Changes(*watch), std::vector{v1::EXECUTOR_CHANGE_KIND_LEFT});
}

// Replica a's process dies (no Leave: its row stays) and a new process
// starts as replica a. The row is its predecessor's session, which nothing
// holds now: the new process does not count the executor as live until it
// registers again (routing to it, then failing runs once the row went stale,
// was the old behaviour) — while replica b, which cannot know, still does.
TEST_F(RegistryLivenessTest, ARestartedReplicaDoesNotCountItsPredecessorsRowsAsLive) {
  {
    RegistryCore dead(&rows_a_, &clock_, Options("a"));
    ASSERT_TRUE(dead.Join(Registration(), [] {}).ok());
  }  // Destroyed without Leave, as a killed process.
  ASSERT_EQ(Rows().size(), 1u);
  clock_.Advance(absl::Seconds(1));
  RegistryCore a(&rows_a_, &clock_, Options("a", absl::Milliseconds(500)));
  RegistryCore b(&rows_b_, &clock_, Options("b", absl::Milliseconds(500)));
  {
    Expiry expiry_a(&a, &hook_a_, &clock_);
    std::optional<v1::WatchExecutorsResponse> snapshot =
        a.Watch({"billing"})->Next(absl::ZeroDuration());
    ASSERT_TRUE(snapshot && snapshot->has_snapshot());
    EXPECT_EQ(snapshot->snapshot().executors_size(), 0);
  }
  Expiry expiry_b(&b, &hook_b_, &clock_);
  std::optional<v1::WatchExecutorsResponse> snapshot =
      b.Watch({"billing"})->Next(absl::ZeroDuration());
  ASSERT_TRUE(snapshot && snapshot->has_snapshot());
  EXPECT_EQ(snapshot->snapshot().executors_size(), 1);
}

}  // namespace
}  // namespace gnomon::registry

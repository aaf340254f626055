// StoreTest cases for pools of concurrency slots: a pool round-trips, its
// name is unique and a pool a job names cannot be deleted; runs inserted
// QUEUED are let go by GrantPoolSlots in priority order (then oldest) and
// never more than the pool's slots at once; a slot is freed once its run
// has ended (a minute later for a run failed as "executor lost"); a run of
// a partition another replica holds is left at the head; a queued run that
// is killed leaves the queue.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr int64_t kEpoch = 7;

v1::Pool Pool(const std::string& name, uint32_t slots) {
  v1::Pool p;
  p.set_name(name);
  p.set_description("the reporting database");
  p.set_slots(slots);
  return p;
}

class StorePoolTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    absl::StatusOr<v1::Group> g = store().CreateGroup(MakeGroup("pools"), 1);
    ASSERT_TRUE(g.ok()) << g.status();
    group_ = *g;
  }

  // A stopped job of group_ naming `pool` with `priority`.
  v1::Job JobIn(const std::string& pool, int32_t priority, const std::string& name) {
    v1::Job j = MakeJob(group_.id(), "report");
    j.clear_child_job_ids();
    j.set_name(name);
    j.set_pool(pool);
    j.set_priority(priority);
    absl::StatusOr<v1::Job> created = store().CreateJob(j, v1::JOB_STATE_STOPPED, kNever, 10);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? *created : j;
  }
  // Inserts a run of `job` queued for its pool at `slot_ms`; its id.
  int64_t Queue(const v1::Job& job, int64_t slot_ms) {
    v1::Run r = MakeRun(job, slot_ms);
    r.set_status(v1::RUN_STATUS_QUEUED);
    r.set_pool(job.pool());
    r.set_priority(job.priority());
    r.mutable_queued_time()->set_seconds(slot_ms / 1000);
    return Insert(r);
  }
  // Every job is ours, with kEpoch.
  std::vector<int64_t> Grant(const std::string& pool, int64_t now_ms) {
    return GrantAs(pool, now_ms, [](int64_t) -> std::optional<int64_t> { return kEpoch; });
  }
  std::vector<int64_t> GrantAs(const std::string& pool, int64_t now_ms,
                               const PoolStore::EpochOf& epoch_of) {
    absl::StatusOr<std::vector<v1::Run>> runs = store().GrantPoolSlots(pool, epoch_of, now_ms);
    EXPECT_TRUE(runs.ok()) << runs.status();
    if (!runs.ok()) return {};
    for (const v1::Run& r : *runs) {
      EXPECT_EQ(r.status(), v1::RUN_STATUS_PENDING) << r.id();
      EXPECT_EQ(r.trigger_time().seconds() * 1000 + r.trigger_time().nanos() / 1000000, now_ms);
      EXPECT_EQ(r.pool(), pool);
    }
    return Ids(*runs);
  }
  void End(int64_t run_id, v1::HandleCode code, int64_t now_ms) {
    absl::StatusOr<int64_t> n = store().FailRuns({run_id}, code, "ended", now_ms);
    ASSERT_TRUE(n.ok()) << n.status();
    ASSERT_EQ(*n, 1);
  }
  std::vector<int64_t> Running(const std::string& pool, int64_t now_ms) {
    absl::StatusOr<PoolQueue> q = store().ListPoolQueue(pool, 100, now_ms);
    EXPECT_TRUE(q.ok()) << q.status();
    return q.ok() ? Ids(q->running) : std::vector<int64_t>{};
  }
  std::vector<int64_t> Queued(const std::string& pool) {
    absl::StatusOr<PoolQueue> q = store().ListPoolQueue(pool, 100, 0);
    EXPECT_TRUE(q.ok()) << q.status();
    return q.ok() ? Ids(q->queued) : std::vector<int64_t>{};
  }
};

TEST_P(StorePoolTest, APoolRoundTripsItsNameIsUniqueAndANamedOneIsNotDeleted) {
  ASSERT_OK_AND_ASSIGN(created, store().CreatePool(Pool("reporting-db", 3), 1500));
  EXPECT_GT(created.id(), 0);
  EXPECT_EQ(created.slots(), 3u);
  EXPECT_EQ(created.description(), "the reporting database");
  EXPECT_EQ(created.running(), 0u);
  EXPECT_EQ(created.queued(), 0u);
  absl::StatusOr<v1::Pool> clash = store().CreatePool(Pool("reporting-db", 1), 1600);
  EXPECT_EQ(clash.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(clash.status().message(), "pool.name: a pool named 'reporting-db' already exists");

  ASSERT_OK_AND_ASSIGN(updated, store().UpdatePool(Pool("reporting-db", 5), 2000));
  EXPECT_EQ(updated.slots(), 5u);
  EXPECT_EQ(updated.id(), created.id());
  EXPECT_EQ(updated.update_time().seconds(), 2);
  EXPECT_EQ(store().UpdatePool(Pool("nope", 1), 2000).status().code(), absl::StatusCode::kNotFound);
  ASSERT_OK(store().CreatePool(Pool("api-quota", 1), 2100).status());
  ASSERT_OK_AND_ASSIGN(listed, store().ListPools(2200));
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].name(), "api-quota");
  EXPECT_EQ(listed[1].name(), "reporting-db");

  const v1::Job job = JobIn("reporting-db", 0, "nightly");
  absl::Status refused = store().DeletePool("reporting-db");
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(refused.message(), absl::StrCat("pool 'reporting-db' is named by job ", job.id()));
  ASSERT_OK(store().DeletePool("api-quota"));
  EXPECT_EQ(store().GetPool("api-quota", 0).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store().DeletePool("api-quota").code(), absl::StatusCode::kNotFound);
}

TEST_P(StorePoolTest, QueuedRunsGetTheSlotsByPriorityThenAgeAndNeverMoreThanTheSlots) {
  ASSERT_OK(store().CreatePool(Pool("db", 2), 1).status());
  const v1::Job low = JobIn("db", 0, "low");
  const v1::Job high = JobIn("db", 5, "high");
  const int64_t l1 = Queue(low, 1000);
  const int64_t l2 = Queue(low, 2000);
  const int64_t h1 = Queue(high, 3000);
  EXPECT_THAT(Queued("db"), ElementsAre(h1, l1, l2));
  ASSERT_OK_AND_ASSIGN(pools, store().ListQueuedPools({}));
  EXPECT_THAT(pools, ElementsAre("db"));

  EXPECT_THAT(Grant("db", 10000), ElementsAre(h1, l1));
  ASSERT_OK_AND_ASSIGN(run, store().GetRun(h1));
  EXPECT_EQ(run.fence_epoch(), kEpoch);
  EXPECT_EQ(run.priority(), 5);
  EXPECT_TRUE(run.has_queued_time());
  EXPECT_THAT(Grant("db", 10001), IsEmpty());              // Both slots held.
  EXPECT_THAT(Running("db", 10001), ElementsAre(l1, h1));  // Oldest slot, then run id, first.
  ASSERT_OK_AND_ASSIGN(pool, store().GetPool("db", 10001));
  EXPECT_EQ(pool.running(), 2u);
  EXPECT_EQ(pool.queued(), 1u);

  End(l1, v1::HANDLE_CODE_FAILURE, 11000);
  EXPECT_THAT(Grant("db", 11001), ElementsAre(l2));
  EXPECT_THAT(Running("db", 11001), ElementsAre(h1, l2));
  EXPECT_THAT(Queued("db"), IsEmpty());
  ASSERT_OK_AND_ASSIGN(none, store().ListQueuedPools({}));
  EXPECT_THAT(none, IsEmpty());

  // Fewer slots: nothing more goes until fewer than the new number run.
  ASSERT_OK(store().UpdatePool(Pool("db", 1), 12000).status());
  const int64_t l3 = Queue(low, 4000);
  EXPECT_THAT(Grant("db", 12001), IsEmpty());
  End(h1, v1::HANDLE_CODE_FAILURE, 12002);
  EXPECT_THAT(Grant("db", 12003), IsEmpty());  // l2 still holds the one slot.
  End(l2, v1::HANDLE_CODE_FAILURE, 12004);
  EXPECT_THAT(Grant("db", 12005), ElementsAre(l3));
}

TEST_P(StorePoolTest, ARunFailedAsExecutorLostKeepsItsSlotForAMinute) {
  ASSERT_OK(store().CreatePool(Pool("db", 1), 1).status());
  const v1::Job job = JobIn("db", 0, "job");
  const int64_t first = Queue(job, 1000);
  const int64_t second = Queue(job, 2000);
  EXPECT_THAT(Grant("db", 10000), ElementsAre(first));
  End(first, v1::HANDLE_CODE_EXECUTOR_LOST, 20000);
  EXPECT_THAT(Grant("db", 20001), IsEmpty());
  EXPECT_THAT(Running("db", 20001), ElementsAre(first));
  EXPECT_THAT(Grant("db", 20000 + kLostRunSlotHoldMs - 1), IsEmpty());
  EXPECT_THAT(Grant("db", 20000 + kLostRunSlotHoldMs), ElementsAre(second));
}

TEST_P(StorePoolTest, ARunAnotherReplicaHoldsIsLeftAtTheHeadAndNothingOvertakesIt) {
  ASSERT_OK(store().CreatePool(Pool("db", 1), 1).status());
  const v1::Job theirs = JobIn("db", 9, "theirs");
  const v1::Job ours = JobIn("db", 0, "ours");
  const int64_t t1 = Queue(theirs, 1000);
  const int64_t o1 = Queue(ours, 1000);
  const PoolStore::EpochOf only_ours = [&](int64_t job_id) -> std::optional<int64_t> {
    if (job_id == ours.id()) return kEpoch;
    return std::nullopt;
  };
  EXPECT_THAT(GrantAs("db", 5000, only_ours), IsEmpty());
  EXPECT_THAT(Queued("db"), ElementsAre(t1, o1));
  ASSERT_OK_AND_ASSIGN(mine, store().ListQueuedPools({PartitionOf(ours.id())}));
  EXPECT_THAT(mine, ElementsAre("db"));
  EXPECT_THAT(Grant("db", 5001), ElementsAre(t1));  // Their holder.
  End(t1, v1::HANDLE_CODE_SUCCESS, 6000);
  EXPECT_THAT(GrantAs("db", 6001, only_ours), ElementsAre(o1));
}

TEST_P(StorePoolTest, AQueuedRunThatIsKilledLeavesTheQueue) {
  ASSERT_OK(store().CreatePool(Pool("db", 1), 1).status());
  const v1::Job job = JobIn("db", 0, "job");
  const int64_t held = Queue(job, 1000);
  const int64_t killed = Queue(job, 2000);
  const int64_t next = Queue(job, 3000);
  EXPECT_THAT(Grant("db", 10000), ElementsAre(held));
  End(killed, v1::HANDLE_CODE_KILLED, 10001);
  ASSERT_OK_AND_ASSIGN(run, store().GetRun(killed));
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(Queued("db"), ElementsAre(next));
  End(held, v1::HANDLE_CODE_SUCCESS, 10002);
  EXPECT_THAT(Grant("db", 10003), ElementsAre(next));
}

TEST_P(StorePoolTest, RunsOfAPoolThatWasDeletedAreLetGoUnlimited) {
  ASSERT_OK(store().CreatePool(Pool("gone", 1), 1).status());
  const v1::Job job = JobIn("", 0, "job");
  v1::Job named = job;
  named.set_pool("gone");
  const int64_t a = Queue(named, 1000);
  const int64_t b = Queue(named, 2000);
  ASSERT_OK(store().DeletePool("gone"));
  EXPECT_THAT(Grant("gone", 5000), ElementsAre(a, b));
}

INSTANTIATE_TEST_SUITE_P(Backends, StorePoolTest, ::testing::Values("sqlite", "mysql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gnomon::store::testing

// PoolGranter over a real (SQLite) store, on a simulated clock: runs of a
// job naming a pool are recorded QUEUED (RunRecorder) and not in flight;
// two granters standing for two replicas, each holding some of the jobs'
// partitions, never let go more runs than the pool's slots, each only its
// own jobs', highest priority first; a run let go is in flight while it is
// handed to the sender; a granter whose hold lapsed lets nothing go.
#include "services/scheduler/pool_granter.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/in_flight_runs.h"
#include "services/scheduler/run_recorder.h"
#include "services/scheduler/testing/ownership.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr int64_t kNow = 1'800'000'000'000;

// Records what it is handed, and whether each run was in flight then.
class RecordingSender final : public RunResender {
 public:
  explicit RecordingSender(InFlightRuns* in_flight) : in_flight_(in_flight) {}
  void Resend(std::vector<v1::Run> runs, std::shared_ptr<const Ownership>) override {
    for (const v1::Run& r : runs) {
      sent.push_back(r.id());
      if (!in_flight_->Holds(r)) not_in_flight.push_back(r.id());
    }
  }
  std::vector<int64_t> sent;
  std::vector<int64_t> not_in_flight;

 private:
  InFlightRuns* const in_flight_;
};

class PoolGranterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    absl::StatusOr<v1::Group> group = store_.AddGroup("pool-test", "t", kNow);
    ASSERT_TRUE(group.ok()) << group.status();
    group_id_ = group->id();
    v1::Pool pool;
    pool.set_name("db");
    pool.set_slots(2);
    ASSERT_TRUE(store_->CreatePool(pool, kNow).ok());
  }

  std::shared_ptr<const v1::Job> Job(int32_t priority) {
    v1::Job j;
    j.set_group_id(group_id_);
    j.mutable_bean()->set_handler("h");
    j.set_pool("db");
    j.set_priority(priority);
    absl::StatusOr<v1::Job> job = store_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    EXPECT_TRUE(job.ok()) << job.status();
    return std::make_shared<const v1::Job>(job.ok() ? *job : j);
  }
  // Records `n` API fires of `job` as `recorder` does; their run ids.
  std::vector<int64_t> Fire(const std::shared_ptr<const v1::Job>& job, int n) {
    std::vector<FireSpec> fires(n);
    std::vector<RoutePlan> plans(n);
    for (int i = 0; i < n; ++i) {
      fires[i].job = job;
      plans[i].runs.push_back({0, 1, std::nullopt});
    }
    absl::StatusOr<RecordedFires> r = recorder_.Record(fires, plans);
    EXPECT_TRUE(r.ok()) << r.status();
    std::vector<int64_t> ids;
    if (!r.ok()) return ids;
    for (const RecordedRun& run : r->runs) {
      EXPECT_EQ(run.run.status(), v1::RUN_STATUS_QUEUED);
      EXPECT_FALSE(in_flight_.Holds(run.run)) << "a queued run is not being sent";
      ids.push_back(run.run.id());
    }
    return ids;
  }
  void End(int64_t run_id) {
    absl::StatusOr<int64_t> n =
        store_->FailRuns({run_id}, v1::HANDLE_CODE_FAILURE, "done", clock_.NowMillis());
    ASSERT_TRUE(n.ok() && *n == 1) << run_id;
  }
  std::shared_ptr<const Ownership> Holding(const std::vector<int64_t>& job_ids, int64_t epoch,
                                           int64_t until = kNow + 60'000) {
    std::vector<int> partitions;
    for (int64_t id : job_ids) partitions.push_back(testing::PartitionOf(id));
    std::sort(partitions.begin(), partitions.end());
    auto o = testing::Holding(partitions, until);
    for (int p : partitions) o->epochs[p] = epoch;
    return o;
  }

  store::testing::TempStore store_;
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  InFlightRuns in_flight_;
  RunRecorder recorder_{store_.get(), &clock_, &in_flight_};
  RecordingSender sender_a_{&in_flight_};
  RecordingSender sender_b_{&in_flight_};
  PoolGranter a_{store_.get(), &sender_a_, &clock_, &in_flight_};
  PoolGranter b_{store_.get(), &sender_b_, &clock_, &in_flight_};
  int64_t group_id_ = 0;
};

TEST_F(PoolGranterTest, TwoReplicasNeverLetGoMoreThanTheSlotsEachItsOwnJobsHighestFirst) {
  const auto low = Job(0);
  auto high = Job(5);
  // Different partitions (consecutive ids), one per replica.
  ASSERT_NE(testing::PartitionOf(low->id()), testing::PartitionOf(high->id()));
  a_.SetOwnership(Holding({low->id()}, 3));
  b_.SetOwnership(Holding({high->id()}, 4));
  const std::vector<int64_t> lows = Fire(low, 3);
  const std::vector<int64_t> highs = Fire(high, 2);

  // The head is both of high's (priority 5): only b lets them go.
  EXPECT_EQ(a_.Pass(), 0);
  EXPECT_EQ(b_.Pass(), 2);
  EXPECT_THAT(sender_b_.sent, ElementsAre(highs[0], highs[1]));
  EXPECT_THAT(sender_b_.not_in_flight, IsEmpty());
  absl::StatusOr<v1::Run> let_go = store_->GetRun(highs[0]);
  ASSERT_TRUE(let_go.ok());
  EXPECT_EQ(let_go->status(), v1::RUN_STATUS_PENDING);
  EXPECT_EQ(let_go->fence_epoch(), 4);
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(let_go->trigger_time()), kNow);
  EXPECT_EQ(a_.Pass() + b_.Pass(), 0);  // Both slots held.

  clock_.Advance(absl::Seconds(1));
  End(highs[0]);
  EXPECT_EQ(b_.Pass(), 0);  // Its head now is low's, a's to let go.
  EXPECT_EQ(a_.Pass(), 1);
  EXPECT_THAT(sender_a_.sent, ElementsAre(lows[0]));
  End(highs[1]);
  End(lows[0]);
  EXPECT_EQ(a_.Pass(), 2);
  EXPECT_THAT(sender_a_.sent, ElementsAre(lows[0], lows[1], lows[2]));
  EXPECT_THAT(sender_a_.not_in_flight, IsEmpty());
}

TEST_F(PoolGranterTest, AGranterHoldingNothingOrWhoseHoldLapsedLetsNothingGo) {
  const auto job = Job(0);
  Fire(job, 1);
  a_.SetOwnership(testing::Holding({}));
  EXPECT_EQ(a_.Pass(), 0);
  a_.SetOwnership(Holding({job->id()}, 1, /*until=*/kNow - 1));
  EXPECT_EQ(a_.Pass(), 0);
  a_.SetOwnership(Holding({job->id()}, 1));
  EXPECT_EQ(a_.Pass(), 1);
}

TEST_F(PoolGranterTest, WithoutOwnershipEveryJobIsThisReplicasAtEpochZero) {
  const auto job = Job(0);
  const std::vector<int64_t> ids = Fire(job, 3);
  EXPECT_EQ(a_.Pass(), 2);
  EXPECT_THAT(sender_a_.sent, UnorderedElementsAre(ids[0], ids[1]));
}

}  // namespace
}  // namespace gnomon::scheduler

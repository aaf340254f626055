#include "services/scheduler/redispatcher.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/in_flight_runs.h"
#include "services/scheduler/testing/ownership.h"

namespace gnomon::scheduler {
namespace {

using ::testing::UnorderedElementsAre;

class FakeResender final : public RunResender {
 public:
  void Resend(std::vector<v1::Run> runs, std::shared_ptr<const Ownership>) override {
    for (const v1::Run& r : runs) sent.push_back(r.id());
  }
  void Ask(std::vector<v1::Run> runs, std::shared_ptr<const Ownership>, InDoubtDone done) override {
    for (const v1::Run& r : runs) {
      asked.push_back(r.id());
      if (!hold_answers) done(r.id(), InDoubt::kUnknown);
    }
    answer = std::move(done);
  }
  std::vector<int64_t> sent;
  std::vector<int64_t> asked;
  // Whether the test answers (through `answer`, the last Ask's) for the
  // executors; else every run is answered kUnknown at once.
  bool hold_answers = false;
  InDoubtDone answer;
};

class RedispatcherTest : public ::testing::Test {
 protected:
  static constexpr int64_t kNow = 1'800'000'000'000;

  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    auto group = store_.AddGroup("redispatch", "t", kNow);
    ASSERT_TRUE(group.ok());
    v1::Job j;
    j.set_group_id(group->id());
    j.mutable_bean()->set_handler("h");
    auto job = store_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    ASSERT_TRUE(job.ok());
    job_ = *job;
  }
  // A PENDING run of the job, recorded under `epoch`.
  int64_t Pending(int64_t epoch) {
    v1::Run r;
    r.set_job_id(job_.id());
    r.set_group_id(job_.group_id());
    r.set_trigger_type(v1::TRIGGER_TYPE_API);
    r.mutable_trigger_time()->set_seconds(kNow / 1000);
    r.set_status(v1::RUN_STATUS_PENDING);
    r.set_fence_epoch(epoch);
    std::vector<v1::Run> runs = {r};
    EXPECT_TRUE(store_->InsertRuns(runs).ok());
    return runs[0].id();
  }
  std::shared_ptr<const Ownership> Holding(bool holds, int64_t epoch) {
    const int p = testing::PartitionOf(job_.id());
    auto o = testing::Holding(holds ? std::vector<int>{p} : std::vector<int>{}, kNow + 60'000);
    o->epochs[p] = epoch;
    return o;
  }

  store::testing::TempStore store_;
  v1::Job job_;
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  FakeResender resender_;
};

TEST_F(RedispatcherTest, ResendsOnlyPendingRunsRecordedUnderAnEarlierEpochOfAHeldPartition) {
  const int64_t predecessors = Pending(1);
  const int64_t refused_as_stale = Pending(2);
  Pending(3);  // Recorded by this holder: in flight here, not stranded.
  Redispatcher r(store_.get(), &resender_, &clock_, {});
  EXPECT_EQ(r.Scan(), 0);  // Holds nothing yet.
  r.SetOwnership(Holding(false, 3));
  EXPECT_EQ(r.Scan(), 0);
  r.SetOwnership(Holding(true, 3));
  EXPECT_EQ(r.Scan(), 0);  // Their earlier holder may still be sending them...
  clock_.Advance(absl::Seconds(3));
  EXPECT_EQ(r.Scan(), 2);  // ...not any more.
  EXPECT_THAT(resender_.sent, UnorderedElementsAre(predecessors, refused_as_stale));
}

// Within the grace the executors are asked about a predecessor's run, once;
// while their answers are awaited it is not resent, even past the grace, and
// one they hold is not resent either (its RUNNING outcome is on its way).
TEST_F(RedispatcherTest, APredecessorsRunIsAskedAboutOnceAndNotResentWhileAskedOrHeld) {
  const int64_t held = Pending(1);
  const int64_t unknown = Pending(1);
  resender_.hold_answers = true;
  Redispatcher r(store_.get(), &resender_, &clock_, {});
  r.SetOwnership(Holding(true, 2));
  EXPECT_EQ(r.Scan(), 0);
  EXPECT_THAT(resender_.asked, UnorderedElementsAre(held, unknown));
  EXPECT_EQ(r.Scan(), 0);
  EXPECT_EQ(resender_.asked.size(), 2u);  // Asked once.
  clock_.Advance(absl::Seconds(3));
  EXPECT_EQ(r.Scan(), 0);  // Past the grace, but the answers are awaited.
  resender_.answer(held, InDoubt::kHeld);
  resender_.answer(unknown, InDoubt::kUnknown);
  EXPECT_EQ(r.Scan(), 1);  // Unknown: resent as before the question.
  EXPECT_THAT(resender_.sent, UnorderedElementsAre(unknown));
}

TEST_F(RedispatcherTest, AResentRunStillPendingIsResentOnlyAfterAWhile) {
  const int64_t stranded = Pending(1);
  Redispatcher r(store_.get(), &resender_, &clock_, {});
  r.SetOwnership(Holding(true, 2));
  clock_.Advance(absl::Seconds(3));
  EXPECT_EQ(r.Scan(), 0);  // The executors are asked first (here nobody can tell)...
  EXPECT_THAT(resender_.asked, UnorderedElementsAre(stranded));
  EXPECT_EQ(r.Scan(), 1);  // ...then it is resent, its grace being over.
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(r.Scan(), 0);  // Its outcome is being recorded.
  clock_.Advance(absl::Seconds(10));
  EXPECT_EQ(r.Scan(), 1);
  EXPECT_THAT(resender_.sent, UnorderedElementsAre(stranded, stranded));
}

// What a recording leaves when its store call committed but reported
// failure: a PENDING run of the holder's own epoch that nothing here sends
// (the loop fired the slot again and found it taken).
TEST_F(RedispatcherTest, ARunOfTheCurrentEpochThatIsNotInFlightHereIsResent) {
  InFlightRuns in_flight;
  const int64_t stranded = Pending(3);
  const int64_t sending = Pending(3);
  in_flight.Sending(sending);
  Redispatcher r(store_.get(), &resender_, &clock_, {}, &in_flight);
  r.SetOwnership(Holding(true, 3));
  clock_.Advance(absl::Seconds(3));
  EXPECT_EQ(r.Scan(), 1);
  EXPECT_THAT(resender_.sent, UnorderedElementsAre(stranded));
}

TEST_F(RedispatcherTest, ARunBeingRecordedIsNotResentEvenAfterTheGrace) {
  InFlightRuns in_flight;
  // A slow recording: its store call has committed, its ids are not back yet.
  Pending(3);
  in_flight.BeginRecording(kNow / 1000 * 1000);  // Pending's trigger time.
  Redispatcher r(store_.get(), &resender_, &clock_, {}, &in_flight);
  r.SetOwnership(Holding(true, 3));
  clock_.Advance(absl::Seconds(10));
  EXPECT_EQ(r.Scan(), 0);
  in_flight.EndRecording(kNow / 1000 * 1000);  // Ended without handing it on.
  EXPECT_EQ(r.Scan(), 1);
}

// After this process started (HoldUntil): questions go out at once, a run
// nobody could answer for waits for the hold to end, however old it is.
TEST_F(RedispatcherTest, AfterAStartRunsAreAskedAboutAtOnceAndResentOnlyAfterTheHold) {
  const int64_t stranded = Pending(1);
  Redispatcher r(store_.get(), &resender_, &clock_, {});
  r.SetOwnership(Holding(true, 2));
  clock_.Advance(absl::Seconds(30));  // Long past its grace.
  r.HoldUntil(clock_.NowMillis() + 3000);
  EXPECT_EQ(r.Scan(), 0);
  EXPECT_THAT(resender_.asked, UnorderedElementsAre(stranded));
  EXPECT_EQ(r.Scan(), 0);
  clock_.Advance(absl::Seconds(3));
  EXPECT_EQ(r.Scan(), 1);
}

TEST_F(RedispatcherTest, NothingIsResentOnceTheHoldHasLapsed) {
  Pending(1);
  Redispatcher r(store_.get(), &resender_, &clock_, {});
  r.SetOwnership(Holding(true, 2));
  clock_.Advance(absl::Minutes(2));
  EXPECT_EQ(r.Scan(), 0);
}

}  // namespace
}  // namespace gnomon::scheduler

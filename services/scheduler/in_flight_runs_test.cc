#include "services/scheduler/in_flight_runs.h"

#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

v1::Run RunOf(int64_t id, int64_t trigger_ms) {
  v1::Run r;
  r.set_id(id);
  *r.mutable_trigger_time() = TimeUtil::MillisecondsToTimestamp(trigger_ms);
  return r;
}

TEST(InFlightRunsTest, ARunIsHeldFromSendingUntilItsOutcomeIsCommitted) {
  InFlightRuns in;
  EXPECT_FALSE(in.Holds(RunOf(1, 100)));
  in.Sending(1);
  EXPECT_TRUE(in.Holds(RunOf(1, 100)));
  in.Committed({1});
  EXPECT_FALSE(in.Holds(RunOf(1, 100)));
}

TEST(InFlightRunsTest, EveryRunWithTheTriggerTimeOfARecordingUnderWayIsHeld) {
  InFlightRuns in;
  in.BeginRecording(100);
  in.BeginRecording(100);  // Two recordings in the same millisecond.
  EXPECT_TRUE(in.Holds(RunOf(7, 100)));
  EXPECT_FALSE(in.Holds(RunOf(7, 101)));
  in.EndRecording(100);
  EXPECT_TRUE(in.Holds(RunOf(7, 100)));
  in.EndRecording(100);
  EXPECT_FALSE(in.Holds(RunOf(7, 100)));
}

// The scan read the run PENDING before its outcome was committed: it must
// still count as sent here until the scan ends.
TEST(InFlightRunsTest, AnOutcomeCommittedDuringAScanIsHeldUntilTheScanEnds) {
  InFlightRuns in;
  in.Sending(1);
  in.Sending(2);
  in.Committed({1});  // Before the scan: the scan's read sees it ended.
  in.BeginScan();
  in.Committed({2});
  EXPECT_FALSE(in.Holds(RunOf(1, 0)));
  EXPECT_TRUE(in.Holds(RunOf(2, 0)));
  in.EndScan();
  EXPECT_FALSE(in.Holds(RunOf(2, 0)));
}

TEST(InFlightRunsTest, OverlappingScansEachSeeTheOutcomesCommittedDuringThem) {
  // The redispatcher's scan and the run reaper's, on two threads.
  InFlightRuns in;
  in.Sending(7);
  in.BeginScan();  // The redispatcher reads PENDING runs (7 among them).
  in.BeginScan();  // The reaper starts its own scan.
  in.Committed({7});
  in.EndScan();                        // The reaper's ends first.
  EXPECT_TRUE(in.Holds(RunOf(7, 0)));  // The redispatcher still must not resend 7.
  in.EndScan();
  EXPECT_FALSE(in.Holds(RunOf(7, 0)));
}

TEST(InFlightRunsTest, AFencedOffRunIsNoLongerHeld) {
  InFlightRuns in;
  in.Sending(3);
  in.Dropped(3);
  EXPECT_FALSE(in.Holds(RunOf(3, 0)));
}

}  // namespace
}  // namespace gnomon::scheduler

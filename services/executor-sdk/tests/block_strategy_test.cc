// Block strategies as the specification of what a run of a busy job does.
#include "services/executor-sdk/src/block_strategy.h"

#include "gtest/gtest.h"

namespace gnomon::executor::internal {
namespace {

const JobLoad kIdle{0, 0};
const JobLoad kRunning{1, 0};
const JobLoad kQueuedOnly{0, 1};

TEST(BlockStrategyTest, SerialExecutionAlwaysQueues) {
  const BlockStrategy& s = BlockStrategyFor(v1::BLOCK_STRATEGY_SERIAL_EXECUTION);
  for (const JobLoad& load : {kIdle, kRunning, kQueuedOnly}) {
    EXPECT_EQ(s.Admit(7, 1, load).verdict, Admission::kQueue);
  }
}

TEST(BlockStrategyTest, UnspecifiedBehavesAsSerialExecution) {
  EXPECT_EQ(&BlockStrategyFor(v1::BLOCK_STRATEGY_UNSPECIFIED),
            &BlockStrategyFor(v1::BLOCK_STRATEGY_SERIAL_EXECUTION));
}

TEST(BlockStrategyTest, DiscardLaterRefusesWhileTheJobIsBusy) {
  const BlockStrategy& s = BlockStrategyFor(v1::BLOCK_STRATEGY_DISCARD_LATER);
  EXPECT_EQ(s.Admit(7, 1, kIdle).verdict, Admission::kQueue);
  for (const JobLoad& load : {kRunning, kQueuedOnly}) {
    Admission a = s.Admit(7, 2, load);
    EXPECT_EQ(a.verdict, Admission::kReject);
    EXPECT_EQ(a.reason, "job 7 is running and the block strategy is DISCARD_LATER");
  }
}

TEST(BlockStrategyTest, CoverEarlyReplacesWhatTheJobHas) {
  const BlockStrategy& s = BlockStrategyFor(v1::BLOCK_STRATEGY_COVER_EARLY);
  EXPECT_EQ(s.Admit(7, 1, kIdle).verdict, Admission::kQueue);
  Admission a = s.Admit(7, 9, kRunning);
  EXPECT_EQ(a.verdict, Admission::kCoverThenQueue);
  EXPECT_EQ(a.reason, "covered by run 9 (block strategy COVER_EARLY)");
}

}  // namespace
}  // namespace gnomon::executor::internal

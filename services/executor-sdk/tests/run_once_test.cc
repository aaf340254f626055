// A run is executed once per executor however often it is dispatched: a
// resent or re-dispatched RunRequest for a run that is queued, running or
// ended here is answered "already accepted" and not run again (a run ended
// by its timeout: run_manager_test.cc), while a run that was refused may be
// accepted later. The memory of ended runs is bounded by count (RecentRunIds).
#include <cstdint>
#include <optional>
#include <utility>

#include "gtest/gtest.h"
#include "services/executor-sdk/src/recent_run_ids.h"
#include "services/executor-sdk/src/run_manager.h"
#include "services/executor-sdk/tests/run_manager_fakes.h"

namespace gnomon::executor::internal {
namespace {

// A RunManager whose "gate" handler blocks until gate.release.
struct GatedManager {
  explicit GatedManager(RunManagerOptions options = {})
      : manager(std::move(options), Handlers({{"gate", gate.handler()}}), &sink, nullptr) {}
  RecordingSink sink;
  Gate gate;
  RunManager manager;
};

TEST(RecentRunIdsTest, RemembersTheLatestIdsUpToItsCapacity) {
  RecentRunIds recent(3);
  for (int64_t id : {1, 2, 3, 2}) recent.Add(id);  // 2 again keeps its place
  EXPECT_EQ(recent.size(), 3u);
  recent.Add(4);  // forgets 1, the oldest
  EXPECT_FALSE(recent.Contains(1));
  for (int64_t id : {2, 3, 4}) EXPECT_TRUE(recent.Contains(id)) << id;

  RecentRunIds none(0);
  none.Add(1);
  EXPECT_FALSE(none.Contains(1));
  EXPECT_EQ(none.size(), 0u);
}

TEST(RunOnceTest, AResentRunIsAnsweredWithItsStateWhileQueuedRunningAndEnded) {
  GatedManager gated;
  auto& [sink, gate, manager] = gated;
  DispatchOutcome first = manager.Submit(Req(1, 7, "gate"));
  ASSERT_TRUE(first.accepted);
  EXPECT_FALSE(first.already_accepted);
  ASSERT_TRUE(sink.WaitForStarted(1));
  ASSERT_TRUE(manager.Submit(Req(2, 7, "gate")).accepted);
  ASSERT_TRUE(manager.Submit(Req(3, 7, "gate")).accepted);

  // Running, and queued second behind it: each keeps its place.
  DispatchOutcome running = manager.Submit(Req(1, 7, "gate"));
  EXPECT_TRUE(running.accepted);
  EXPECT_TRUE(running.already_accepted);
  EXPECT_EQ(running.queue_position, 0u);
  DispatchOutcome queued = manager.Submit(Req(3, 7, "gate"));
  EXPECT_TRUE(queued.already_accepted);
  EXPECT_EQ(queued.queue_position, 2u);
  EXPECT_EQ(manager.Load(7).queued, 2u);  // not queued a second time

  gate.release.Notify();
  ASSERT_TRUE(sink.WaitForResults(3));
  // Ended: still answered, never run again, even by a block strategy that
  // would otherwise cover or refuse, and even while shutting down (a refusal
  // would send it to another executor).
  EXPECT_TRUE(manager.Submit(Req(1, 7, "gate", v1::BLOCK_STRATEGY_COVER_EARLY)).already_accepted);
  manager.StopAccepting();
  std::optional<DispatchOutcome> recalled = manager.Recall(2);
  ASSERT_TRUE(recalled.has_value());
  EXPECT_TRUE(recalled->accepted);
  EXPECT_TRUE(manager.Submit(Req(2, 7, "gate")).already_accepted);
  EXPECT_EQ(manager.Submit(Req(4, 7, "gate")).kind, v1::REJECT_KIND_SHUTTING_DOWN);
  EXPECT_FALSE(manager.Recall(4).has_value());
  manager.Shutdown(absl::Now() + kWait);
  EXPECT_EQ(sink.started(), 3u);
  for (int64_t id : {1, 2, 3}) EXPECT_EQ(sink.finishes(id), 1) << id;
}

TEST(RunOnceTest, RefusedRunsAreNotRememberedAndTheMemoryIsBounded) {
  RunManagerOptions options;
  options.run.max_concurrent_runs = 1;
  options.run.max_queued_runs = 1;
  options.run.remembered_runs = 2;
  GatedManager gated(options);
  auto& [sink, gate, manager] = gated;
  ASSERT_TRUE(manager.Submit(Req(1, 1, "gate")).accepted);
  ASSERT_TRUE(sink.WaitForStarted(1));
  // Refused by the block strategy, then by a full queue: neither is accepted.
  EXPECT_EQ(manager.Submit(Req(2, 1, "gate", v1::BLOCK_STRATEGY_DISCARD_LATER)).kind,
            v1::REJECT_KIND_BLOCK_STRATEGY);
  ASSERT_TRUE(manager.Submit(Req(3, 2, "gate")).accepted);
  EXPECT_EQ(manager.Submit(Req(4, 3, "gate")).kind, v1::REJECT_KIND_QUEUE_FULL);
  EXPECT_FALSE(manager.Recall(2).has_value());
  EXPECT_FALSE(manager.Recall(4).has_value());
  gate.release.Notify();
  ASSERT_TRUE(sink.WaitForResults(2));

  // Dispatched again once there is room: accepted as new runs and run.
  DispatchOutcome again = manager.Submit(Req(2, 1, "gate", v1::BLOCK_STRATEGY_DISCARD_LATER));
  ASSERT_TRUE(again.accepted);
  EXPECT_FALSE(again.already_accepted);
  ASSERT_TRUE(sink.Result(2));
  ASSERT_TRUE(manager.Submit(Req(4, 3, "gate")).accepted);
  ASSERT_TRUE(sink.Result(4));

  // Four accepted, two remembered: the two oldest are forgotten.
  EXPECT_FALSE(manager.Recall(1).has_value());
  EXPECT_FALSE(manager.Recall(3).has_value());
  EXPECT_TRUE(manager.Recall(2).has_value());
  EXPECT_TRUE(manager.Recall(4).has_value());
  manager.Shutdown(absl::Now() + kWait);
  for (int64_t id : {1, 2, 3, 4}) EXPECT_EQ(sink.finishes(id), 1) << id;
}

}  // namespace
}  // namespace gnomon::executor::internal

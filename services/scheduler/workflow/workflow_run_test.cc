#include "services/scheduler/workflow/workflow_run.h"

#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/scheduler/workflow/testing/regional.h"

namespace gnomon::scheduler::workflow {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

using testing::JobNode;

std::shared_ptr<const Dag> Regional() { return std::make_shared<const Dag>(testing::Regional()); }

std::vector<std::string> Names(const std::vector<NodeFire>& fires) {
  std::vector<std::string> out;
  for (const NodeFire& f : fires) out.push_back(f.node);
  return out;
}

const NodeResult kOk{200, ""};
NodeResult Output(std::string o) { return {200, std::move(o)}; }
const NodeResult kFailed{500, "boom"};

NodeState StateOf(const WorkflowRun& run, const std::string& node) { return run.Find(node)->state; }

TEST(WorkflowRunTest, FanOutThenFanInThenAConditionOnTheMergesOutput) {
  WorkflowRun run(Regional());
  EXPECT_THAT(Names(run.Start()), ElementsAre("extract_eu", "extract_us", "extract_apac"));
  EXPECT_THAT(run.ShardEnded("extract_eu", 1, 0, 1, kOk), IsEmpty());
  EXPECT_THAT(run.ShardEnded("extract_us", 1, 0, 1, kOk), IsEmpty());  // Waits for all three.
  EXPECT_THAT(Names(run.ShardEnded("extract_apac", 1, 0, 1, kOk)), ElementsAre("merge"));
  EXPECT_THAT(Names(run.ShardEnded("merge", 1, 0, 1, Output("42"))), ElementsAre("publish"));
  EXPECT_EQ(StateOf(run, "has_rows"), NodeState::kSucceeded);
  EXPECT_EQ(StateOf(run, "page"), NodeState::kBypassed);  // The merge did not fail.
  EXPECT_THAT(run.Inputs("has_rows"), ElementsAre(Pair("merge", "42")));
  EXPECT_EQ(run.outcome(), Outcome::kRunning);
  EXPECT_THAT(run.ShardEnded("publish", 1, 0, 1, kOk), IsEmpty());
  EXPECT_EQ(run.outcome(), Outcome::kSucceeded);
}

TEST(WorkflowRunTest, AConditionThatDoesNotHoldBypassesItsBranchToTheEnd) {
  WorkflowRun run(Regional());
  run.Start();
  for (const char* n : {"extract_eu", "extract_us", "extract_apac"})
    run.ShardEnded(n, 1, 0, 1, kOk);
  EXPECT_THAT(run.ShardEnded("merge", 1, 0, 1, Output("0")), IsEmpty());
  EXPECT_EQ(StateOf(run, "publish"), NodeState::kBypassed);
  EXPECT_EQ(run.outcome(), Outcome::kSucceeded);
}

TEST(WorkflowRunTest, AFailureEdgeRunsOnFailureAndMakesTheFailureHandled) {
  WorkflowRun run(Regional());
  run.Start();
  for (const char* n : {"extract_eu", "extract_us", "extract_apac"})
    run.ShardEnded(n, 1, 0, 1, kOk);
  EXPECT_THAT(Names(run.ShardEnded("merge", 1, 0, 1, kFailed)), ElementsAre("page"));
  EXPECT_EQ(StateOf(run, "has_rows"), NodeState::kBypassed);
  EXPECT_EQ(StateOf(run, "publish"), NodeState::kBypassed);
  run.ShardEnded("page", 1, 0, 1, kOk);
  EXPECT_EQ(run.outcome(), Outcome::kSucceeded);  // Someone was paged: handled.
}

TEST(WorkflowRunTest, AnUnhandledFailureFailsTheRunAndBypassesWhatWaitedForIt) {
  WorkflowRun run(Regional());
  run.Start();
  run.ShardEnded("extract_eu", 1, 0, 1, kFailed);
  run.ShardEnded("extract_us", 1, 0, 1, kOk);
  EXPECT_THAT(run.ShardEnded("extract_apac", 1, 0, 1, kOk), IsEmpty());
  EXPECT_EQ(StateOf(run, "merge"), NodeState::kBypassed);
  EXPECT_EQ(StateOf(run, "page"), NodeState::kBypassed);  // The merge never ran to fail.
  EXPECT_EQ(run.outcome(), Outcome::kFailed);
}

TEST(WorkflowRunTest, AShardedNodeEndsWhenAllItsShardsHave) {
  auto d = std::make_shared<Dag>();
  d->nodes = {JobNode("scan", 1), JobNode("report", 2)};
  d->edges = {{"scan", "report"}};
  WorkflowRun run(d);
  run.Start();
  EXPECT_THAT(run.ShardEnded("scan", 1, 2, 3, Output("c")), IsEmpty());
  EXPECT_THAT(run.ShardEnded("scan", 1, 0, 3, Output("a")), IsEmpty());
  EXPECT_THAT(run.ShardEnded("scan", 1, 0, 3, kFailed), IsEmpty());  // Shard 0 again: ignored.
  EXPECT_THAT(Names(run.ShardEnded("scan", 1, 1, 3, Output("b"))), ElementsAre("report"));
  EXPECT_THAT(run.Inputs("report"), ElementsAre(Pair("scan", "a\nb\nc")));
}

TEST(WorkflowRunTest, OneFailedShardFailsTheNodeWithItsCode) {
  auto d = std::make_shared<Dag>();
  d->nodes = {JobNode("scan", 1), JobNode("cleanup", 2)};
  d->edges = {{"scan", "cleanup", When::kCompletion}};
  WorkflowRun run(d);
  run.Start();
  run.ShardEnded("scan", 1, 0, 2, kOk);
  EXPECT_THAT(Names(run.ShardEnded("scan", 1, 1, 2, {504, ""})), ElementsAre("cleanup"));
  EXPECT_EQ(StateOf(run, "scan"), NodeState::kFailed);
  EXPECT_EQ(run.Find("scan")->handle_code, 504);
}

TEST(WorkflowRunTest, CancelEndsWhatIsLeftAndNamesWhatIsRunningToKill) {
  WorkflowRun run(Regional());
  run.Start();
  run.ShardEnded("extract_eu", 1, 0, 1, kOk);
  absl::StatusOr<std::vector<std::string>> running = run.Cancel();
  ASSERT_TRUE(running.ok());
  EXPECT_THAT(*running, UnorderedElementsAre("extract_us", "extract_apac"));
  EXPECT_EQ(StateOf(run, "merge"), NodeState::kCancelled);
  EXPECT_EQ(StateOf(run, "extract_eu"), NodeState::kSucceeded);
  EXPECT_THAT(run.ShardEnded("extract_us", 1, 0, 1, kOk), IsEmpty());  // Killed: ignored.
  EXPECT_EQ(run.outcome(), Outcome::kCancelled);
  EXPECT_EQ(run.Cancel().status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST(WorkflowRunTest, RerunFromAFailedNodeRunsItAndWhatFollowsAgainAsNewAttempts) {
  WorkflowRun run(Regional());
  run.Start();
  for (const char* n : {"extract_eu", "extract_us", "extract_apac"})
    run.ShardEnded(n, 1, 0, 1, kOk);
  run.ShardEnded("merge", 1, 0, 1, kFailed);
  run.ShardEnded("page", 1, 0, 1, kOk);
  ASSERT_EQ(run.outcome(), Outcome::kSucceeded);
  absl::StatusOr<std::vector<NodeFire>> again = run.RerunFrom("merge");
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].node, "merge");
  EXPECT_EQ((*again)[0].attempt, 2);
  EXPECT_EQ(StateOf(run, "page"), NodeState::kPending);
  EXPECT_EQ(StateOf(run, "extract_eu"), NodeState::kSucceeded);           // Before it: kept.
  EXPECT_THAT(run.ShardEnded("merge", 1, 0, 1, Output("5")), IsEmpty());  // The old attempt's.
  EXPECT_THAT(Names(run.ShardEnded("merge", 2, 0, 1, Output("5"))), ElementsAre("publish"));
  EXPECT_EQ(StateOf(run, "page"), NodeState::kBypassed);
}

TEST(WorkflowRunTest, RerunIsRefusedWhileANodeItResetsIsRunning) {
  WorkflowRun run(Regional());
  run.Start();
  run.ShardEnded("extract_eu", 1, 0, 1, kFailed);
  EXPECT_EQ(run.RerunFrom("extract_us").status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(run.RerunFrom("nope").status().code(), absl::StatusCode::kNotFound);
  absl::StatusOr<std::vector<NodeFire>> again = run.RerunFrom("extract_eu");  // Only it resets.
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_THAT(Names(*again), ElementsAre("extract_eu"));
}

TEST(WorkflowRunTest, SkipAndMarkSucceededLetChildrenGoOn) {
  WorkflowRun run(Regional());
  run.Start();
  run.ShardEnded("extract_eu", 1, 0, 1, kFailed);
  ASSERT_TRUE(run.Skip("extract_eu").ok());
  EXPECT_EQ(StateOf(run, "extract_eu"), NodeState::kSkipped);
  EXPECT_EQ(run.Skip("extract_us").status().code(), absl::StatusCode::kFailedPrecondition);
  run.ShardEnded("extract_us", 1, 0, 1, kOk);
  run.ShardEnded("extract_apac", 1, 0, 1, kOk);
  ASSERT_EQ(StateOf(run, "merge"), NodeState::kRunning);
  run.ShardEnded("merge", 1, 0, 1, kFailed);
  absl::StatusOr<std::vector<NodeFire>> next = run.MarkSucceeded("merge", "7");
  ASSERT_TRUE(next.ok()) << next.status();
  // The branch its failure bypassed runs now; the page fired on the failure still runs.
  EXPECT_THAT(Names(*next), ElementsAre("publish"));
  EXPECT_EQ(StateOf(run, "page"), NodeState::kRunning);
}

TEST(WorkflowRunTest, ARunRebuiltFromItsRecordsGoesOnWhereItWas) {
  WorkflowRun first(Regional());
  first.Start();
  first.ShardEnded("extract_eu", 1, 0, 1, kOk);
  first.ShardEnded("extract_us", 1, 0, 1, kOk);
  // The replica dies; the next holder reads the records back.
  WorkflowRun taken(Regional(), first.records(), first.cancelled());
  EXPECT_THAT(taken.Start(), IsEmpty());  // Nothing fires twice.
  EXPECT_THAT(Names(taken.ShardEnded("extract_apac", 1, 0, 1, kOk)), ElementsAre("merge"));
}

}  // namespace
}  // namespace gnomon::scheduler::workflow

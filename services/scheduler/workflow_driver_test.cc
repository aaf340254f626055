// WorkflowDriver over a real store: what it fires, and that two replicas
// reporting at once fire a node once.
#include "services/scheduler/workflow_driver.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/temp_store.h"

namespace gnomon::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr int64_t kNow = 1'800'000'000'000;

// Notes every fire; records nothing.
class NotingSink final : public FireSink {
 public:
  absl::StatusOr<std::vector<FireOutcome>> Fire(std::vector<FireSpec> fires) override {
    std::vector<FireOutcome> out(fires.size());
    for (FireSpec& f : fires) fired.push_back(std::move(f));
    return out;
  }
  std::vector<std::string> Nodes() const {
    std::vector<std::string> out;
    for (const FireSpec& f : fired) out.push_back(f.workflow_node);
    return out;
  }
  std::vector<FireSpec> fired;
};

// The store, with a hook run once before the next UpdateWorkflowRun: what
// another replica does between this one's read and its write.
class RacingStore final : public store::WorkflowStore {
 public:
  explicit RacingStore(store::WorkflowStore* inner) : inner_(inner) {}
  absl::StatusOr<v1::Workflow> CreateWorkflow(const v1::Workflow& w, int64_t next,
                                              int64_t now) override {
    return inner_->CreateWorkflow(w, next, now);
  }
  absl::StatusOr<v1::Workflow> GetWorkflow(int64_t id) override { return inner_->GetWorkflow(id); }
  absl::StatusOr<std::vector<v1::Workflow>> ListWorkflows(int64_t group) override {
    return inner_->ListWorkflows(group);
  }
  absl::StatusOr<v1::Workflow> UpdateWorkflow(const v1::Workflow& w, std::optional<int64_t> next,
                                              int64_t now) override {
    return inner_->UpdateWorkflow(w, next, now);
  }
  absl::StatusOr<std::vector<store::DueWorkflow>> ListDueWorkflows(
      int64_t until, int limit, const std::vector<int>& partitions) override {
    return inner_->ListDueWorkflows(until, limit, partitions);
  }
  absl::StatusOr<bool> AdvanceWorkflow(int64_t id, int64_t expected, int64_t next) override {
    return inner_->AdvanceWorkflow(id, expected, next);
  }
  absl::StatusOr<std::vector<v1::WorkflowRun>> ListRunningWorkflowRuns(
      int limit, const std::vector<int>& partitions) override {
    return inner_->ListRunningWorkflowRuns(limit, partitions);
  }
  absl::Status DeleteWorkflow(int64_t id) override { return inner_->DeleteWorkflow(id); }
  absl::StatusOr<v1::WorkflowRun> CreateWorkflowRun(const v1::WorkflowRun& r,
                                                    int64_t now) override {
    return inner_->CreateWorkflowRun(r, now);
  }
  absl::StatusOr<v1::WorkflowRun> GetWorkflowRun(int64_t id) override {
    return inner_->GetWorkflowRun(id);
  }
  absl::StatusOr<v1::WorkflowRun> UpdateWorkflowRun(const v1::WorkflowRun& r,
                                                    int64_t now) override {
    if (before_update) {
      std::function<void()> hook = std::move(before_update);
      before_update = nullptr;
      hook();
    }
    ++updates;
    return inner_->UpdateWorkflowRun(r, now);
  }
  absl::StatusOr<std::vector<v1::WorkflowRun>> ListWorkflowRuns(int64_t id, int limit) override {
    return inner_->ListWorkflowRuns(id, limit);
  }
  std::function<void()> before_update;
  int updates = 0;

 private:
  store::WorkflowStore* const inner_;
};

class WorkflowDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    absl::StatusOr<v1::Group> g = store_.AddGroup("flows", "token", kNow);
    ASSERT_TRUE(g.ok()) << g.status();
    group_ = *g;
  }
  int64_t Job(const std::string& handler) {
    v1::Job j;
    j.set_group_id(group_.id());
    j.mutable_bean()->set_handler(handler);
    absl::StatusOr<v1::Job> job = store_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    EXPECT_TRUE(job.ok()) << job.status();
    return job.ok() ? job->id() : 0;
  }
  // Two extracts, then merge; publish after the merge, page if it fails.
  int64_t Workflow() {
    v1::Workflow w;
    w.set_group_id(group_.id());
    w.set_name("regional");
    w.set_params("day=2026-11-29");
    for (const char* n : {"extract_eu", "extract_us", "merge", "publish", "page"}) {
      v1::WorkflowNode* node = w.add_nodes();
      node->set_name(n);
      node->set_job_id(Job(n));
    }
    auto edge = [&](const char* from, const char* to, v1::WorkflowEdgeWhen when) {
      v1::WorkflowEdge* e = w.add_edges();
      e->set_from(from);
      e->set_to(to);
      e->set_when(when);
    };
    edge("extract_eu", "merge", v1::WORKFLOW_EDGE_WHEN_SUCCESS);
    edge("extract_us", "merge", v1::WORKFLOW_EDGE_WHEN_SUCCESS);
    edge("merge", "publish", v1::WORKFLOW_EDGE_WHEN_SUCCESS);
    edge("merge", "page", v1::WORKFLOW_EDGE_WHEN_FAILURE);
    absl::StatusOr<v1::Workflow> created = store_->CreateWorkflow(w, store::kNever, kNow);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? created->id() : 0;
  }
  static workflow::NodeResult Ok(std::string output = "") { return {200, std::move(output)}; }

  store::testing::TempStore store_;
  v1::Group group_;
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  RacingStore racing_{store_.get()};
  NotingSink sink_;
  WorkflowDriver driver_{&racing_, store_.get(), &sink_, &clock_};
  // Another replica's driver over the same store.
  NotingSink other_sink_;
  WorkflowDriver other_{store_.get(), store_.get(), &other_sink_, &clock_};
};

TEST_F(WorkflowDriverTest, AStartFiresTheFirstNodesWithTheRunsParamsAndLinkOnce) {
  const int64_t id = Workflow();
  absl::StatusOr<v1::WorkflowRun> run = driver_.Start(id, v1::TRIGGER_TYPE_CRON, kNow, {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(sink_.Nodes(), ElementsAre("extract_eu", "extract_us"));
  const FireSpec& f = sink_.fired[0];
  EXPECT_EQ(f.workflow_run_id, run->id());
  EXPECT_EQ(f.workflow_attempt, 1);
  EXPECT_EQ(f.type, v1::TRIGGER_TYPE_CRON);
  EXPECT_EQ(f.params, "day=2026-11-29");
  EXPECT_EQ(run->nodes(0).state(), v1::WORKFLOW_NODE_STATE_RUNNING);
  EXPECT_EQ(run->nodes(2).state(), v1::WORKFLOW_NODE_STATE_PENDING);
  // The slot's run exists: a second start of it fires nothing.
  EXPECT_EQ(driver_.Start(id, v1::TRIGGER_TYPE_CRON, kNow, {}).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(sink_.fired.size(), 2u);
}

TEST_F(WorkflowDriverTest, EndedNodesMoveTheRunOnAndAResultTwiceFiresNothingMore) {
  absl::StatusOr<v1::WorkflowRun> run = driver_.Start(Workflow(), v1::TRIGGER_TYPE_API, 0, "p=1");
  ASSERT_TRUE(run.ok()) << run.status();
  sink_.fired.clear();
  ASSERT_TRUE(driver_.NodeEnded(run->id(), "extract_eu", 1, 0, 1, Ok()).ok());
  EXPECT_THAT(sink_.Nodes(), IsEmpty());  // merge waits for both.
  ASSERT_TRUE(driver_.NodeEnded(run->id(), "extract_us", 1, 0, 1, Ok()).ok());
  EXPECT_THAT(sink_.Nodes(), ElementsAre("merge"));
  EXPECT_EQ(sink_.fired[0].type, v1::TRIGGER_TYPE_PARENT);
  EXPECT_EQ(sink_.fired[0].params, "p=1");
  const int updates = racing_.updates;
  ASSERT_TRUE(driver_.NodeEnded(run->id(), "extract_us", 1, 0, 1, Ok()).ok());
  EXPECT_THAT(sink_.Nodes(), ElementsAre("merge"));
  EXPECT_EQ(racing_.updates, updates);  // Nothing changed: nothing written.
  absl::StatusOr<v1::WorkflowRun> failed =
      driver_.NodeEnded(run->id(), "merge", 1, 0, 1, {500, ""});
  ASSERT_TRUE(failed.ok()) << failed.status();
  EXPECT_THAT(sink_.Nodes(), ElementsAre("merge", "page"));
  absl::StatusOr<v1::WorkflowRun> done = driver_.NodeEnded(run->id(), "page", 1, 0, 1, Ok());
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->status(), v1::WORKFLOW_RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(done->nodes(3).state(), v1::WORKFLOW_NODE_STATE_BYPASSED);
  EXPECT_TRUE(done->has_end_time());
}

// The last two parents of a fan-in end on two replicas at once: both read
// the run with one parent pending; the second to write finds its change
// refused, reads again, and finds merge already fired by the first.
TEST_F(WorkflowDriverTest, TwoReplicasEndingTheLastParentsAtOnceFireTheChildOnce) {
  absl::StatusOr<v1::WorkflowRun> run = driver_.Start(Workflow(), v1::TRIGGER_TYPE_API, 0, {});
  ASSERT_TRUE(run.ok()) << run.status();
  sink_.fired.clear();
  racing_.before_update = [&] {
    ASSERT_TRUE(other_.NodeEnded(run->id(), "extract_us", 1, 0, 1, Ok()).ok());
  };
  ASSERT_TRUE(driver_.NodeEnded(run->id(), "extract_eu", 1, 0, 1, Ok()).ok());
  // The other replica's write went in first with extract_us alone; this one
  // redid its change on top and fired merge: once, here.
  EXPECT_THAT(other_sink_.Nodes(), IsEmpty());
  EXPECT_THAT(sink_.Nodes(), ElementsAre("merge"));
  absl::StatusOr<v1::WorkflowRun> stored = store_->GetWorkflowRun(run->id());
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->nodes(2).state(), v1::WORKFLOW_NODE_STATE_RUNNING);
  EXPECT_EQ(stored->nodes(2).attempt(), 1);
}

TEST_F(WorkflowDriverTest, ARunKeepsTheGraphItStartedWithAndADeletedJobsNodeFails) {
  const int64_t id = Workflow();
  absl::StatusOr<v1::WorkflowRun> run = driver_.Start(id, v1::TRIGGER_TYPE_API, 0, {});
  ASSERT_TRUE(run.ok()) << run.status();
  // The workflow loses its edges after the run started: the run keeps them.
  absl::StatusOr<v1::Workflow> w = store_->GetWorkflow(id);
  ASSERT_TRUE(w.ok());
  w->clear_edges();
  ASSERT_TRUE(store_->UpdateWorkflow(*w, std::nullopt, kNow).ok());
  // merge's job is deleted meanwhile: merge fails when it is due, and its
  // failure edge runs.
  ASSERT_TRUE(store_->DeleteJob(w->nodes(2).job_id(), /*purge_runs=*/true).ok());
  sink_.fired.clear();
  ASSERT_TRUE(driver_.NodeEnded(run->id(), "extract_eu", 1, 0, 1, Ok()).ok());
  absl::StatusOr<v1::WorkflowRun> after = driver_.NodeEnded(run->id(), "extract_us", 1, 0, 1, Ok());
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_THAT(sink_.Nodes(), ElementsAre("page"));
  absl::StatusOr<v1::WorkflowRun> stored = store_->GetWorkflowRun(run->id());
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->nodes(2).state(), v1::WORKFLOW_NODE_STATE_FAILED);
  EXPECT_EQ(stored->nodes(2).output(),
            "job " + std::to_string(w->nodes(2).job_id()) + " no longer exists");
}

TEST_F(WorkflowDriverTest, CancelNamesTheRunningNodesAndRerunFiresANewAttempt) {
  absl::StatusOr<v1::WorkflowRun> run = driver_.Start(Workflow(), v1::TRIGGER_TYPE_API, 0, {});
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_TRUE(driver_.NodeEnded(run->id(), "extract_eu", 1, 0, 1, {500, ""}).ok());
  ASSERT_TRUE(driver_.NodeEnded(run->id(), "extract_us", 1, 0, 1, Ok()).ok());
  absl::StatusOr<v1::WorkflowRun> failed = store_->GetWorkflowRun(run->id());
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ(failed->status(), v1::WORKFLOW_RUN_STATUS_FAILED);
  sink_.fired.clear();
  absl::StatusOr<v1::WorkflowRun> again = driver_.RerunFrom(run->id(), "extract_eu");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->status(), v1::WORKFLOW_RUN_STATUS_RUNNING);
  ASSERT_THAT(sink_.Nodes(), ElementsAre("extract_eu"));
  EXPECT_EQ(sink_.fired[0].workflow_attempt, 2);
  std::vector<std::string> running;
  absl::StatusOr<v1::WorkflowRun> cancelled = driver_.Cancel(run->id(), &running);
  ASSERT_TRUE(cancelled.ok()) << cancelled.status();
  EXPECT_THAT(running, ElementsAre("extract_eu"));
  EXPECT_EQ(cancelled->status(), v1::WORKFLOW_RUN_STATUS_CANCELLED);
}

}  // namespace
}  // namespace gnomon::scheduler

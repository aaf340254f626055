// Workflow runs through the real parts around the driver, on a simulated
// clock and a real store: node runs recorded by the RunRecorder (with their
// node, attempt and inputs), their results stored as an executor reports
// them, the follow-ups moving the workflow run on (after the job's
// retries), WorkflowScheduler firing slots and resuming runs a dead replica
// left half done.
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/followups.h"
#include "services/scheduler/run_recorder.h"
#include "services/scheduler/testing/recording_sink.h"
#include "services/scheduler/testing/runs.h"
#include "services/scheduler/workflow_driver.h"
#include "services/scheduler/workflow_scheduler.h"

namespace gnomon::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr int64_t kNow = 1'800'000'000'000;

// Fires nothing, as a replica that died between storing a change and firing.
class LostSink final : public FireSink {
 public:
  absl::StatusOr<std::vector<FireOutcome>> Fire(std::vector<FireSpec> fires) override {
    return std::vector<FireOutcome>(fires.size());
  }
};

class WorkflowRunsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    absl::StatusOr<v1::Group> g = store_.AddGroup("flows", "token", kNow);
    ASSERT_TRUE(g.ok()) << g.status();
    group_ = *g;
  }
  int64_t Job(const std::string& name, int retries = 0) {
    v1::Job j;
    j.set_group_id(group_.id());
    j.set_name(name);
    j.mutable_bean()->set_handler(name);
    j.mutable_retry()->set_max_retries(retries);  // At once: no backoff delay.
    absl::StatusOr<v1::Job> job = store_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    EXPECT_TRUE(job.ok()) << job.status();
    return job.ok() ? job->id() : 0;
  }
  // extract, then load if the extract succeeded; load is retried once.
  int64_t Workflow(v1::Schedule schedule = {}) {
    v1::Workflow w;
    w.set_group_id(group_.id());
    w.set_name("nightly");
    w.set_params("day=2026-11-29");
    *w.mutable_schedule() = schedule;
    v1::WorkflowNode* extract = w.add_nodes();
    extract->set_name("extract");
    extract->set_job_id(Job("extract"));
    v1::WorkflowNode* load = w.add_nodes();
    load->set_name("load");
    load->set_job_id(Job("load", /*retries=*/1));
    v1::WorkflowEdge* e = w.add_edges();
    e->set_from("extract");
    e->set_to("load");
    absl::StatusOr<v1::Workflow> created = store_->CreateWorkflow(w, store::kNever, kNow);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? created->id() : 0;
  }
  // The node runs of a workflow run, oldest first.
  std::vector<v1::Run> NodeRuns(int64_t workflow_run_id) {
    store::RunFilter f;
    f.workflow_run_id = workflow_run_id;
    f.limit = 100;
    absl::StatusOr<std::vector<v1::Run>> runs = store_->ListRuns(f);
    EXPECT_TRUE(runs.ok()) << runs.status();
    std::vector<v1::Run> out = runs.ok() ? *runs : std::vector<v1::Run>{};
    std::reverse(out.begin(), out.end());
    return out;
  }
  // The executor reports `run`'s end with `code` and `output`; the
  // follow-ups then run.
  void End(const v1::Run& run, v1::HandleCode code, const std::string& output = "") {
    v1::ReportItem item = testing::Result(run.id(), code, clock_.NowMillis());
    item.mutable_result()->set_output(output);
    ASSERT_TRUE(store_->ApplyReports({item}, group_.id()).ok());
    followups_.Tick();
  }
  v1::WorkflowRun Stored(int64_t id) {
    absl::StatusOr<v1::WorkflowRun> run = store_->GetWorkflowRun(id);
    EXPECT_TRUE(run.ok()) << run.status();
    return run.ok() ? *run : v1::WorkflowRun();
  }

  store::testing::TempStore store_;
  v1::Group group_;
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  RunRecorder recorder_{store_.get(), &clock_};
  testing::RecordingSink sink_{&recorder_};
  WorkflowDriver driver_{store_.get(), store_.get(), &sink_, &clock_, store_.get()};
  ScheduleLoop loop_{store_.get(), &sink_, &clock_, {}};
  Followups followups_{store_.get(), store_.get(), store_.get(), &sink_,  &loop_,
                       &clock_,      {},           nullptr,      &driver_};
};

TEST_F(WorkflowRunsTest, AParentsOutputReachesItsChildAndARetriedNodeEndsOnlyAfterItsRetry) {
  absl::StatusOr<v1::WorkflowRun> run = driver_.Start(Workflow(), v1::TRIGGER_TYPE_API, 0, {});
  ASSERT_TRUE(run.ok()) << run.status();
  std::vector<v1::Run> runs = NodeRuns(run->id());
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].workflow_node(), "extract");
  EXPECT_EQ(runs[0].params(), "day=2026-11-29");
  EXPECT_TRUE(runs[0].success_has_followups());  // Its end always moves the workflow run on.

  End(runs[0], v1::HANDLE_CODE_SUCCESS, "rows=42");
  runs = NodeRuns(run->id());
  ASSERT_EQ(runs.size(), 2u);
  const v1::Run& load = runs[1];
  EXPECT_EQ(load.workflow_node(), "load");
  EXPECT_EQ(load.trigger_type(), v1::TRIGGER_TYPE_PARENT);
  ASSERT_EQ(load.inputs_size(), 1);
  EXPECT_EQ(load.inputs(0).node(), "extract");
  EXPECT_EQ(load.inputs(0).output(), "rows=42");
  EXPECT_EQ(Stored(run->id()).nodes(0).output(), "rows=42");

  // load fails once: its job retries it (same node, attempt and inputs);
  // the workflow run waits for the retry.
  End(load, v1::HANDLE_CODE_FAILURE);
  runs = NodeRuns(run->id());
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[2].trigger_type(), v1::TRIGGER_TYPE_RETRY);
  EXPECT_EQ(runs[2].workflow_node(), "load");
  EXPECT_EQ(runs[2].workflow_attempt(), 1);
  ASSERT_EQ(runs[2].inputs_size(), 1);
  EXPECT_EQ(runs[2].inputs(0).output(), "rows=42");
  EXPECT_EQ(Stored(run->id()).status(), v1::WORKFLOW_RUN_STATUS_RUNNING);

  End(runs[2], v1::HANDLE_CODE_SUCCESS, "loaded");
  const v1::WorkflowRun done = Stored(run->id());
  EXPECT_EQ(done.status(), v1::WORKFLOW_RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(done.nodes(1).output(), "loaded");
  EXPECT_EQ(NodeRuns(run->id()).size(), 3u);
}

// A workflow's params template renders once, at the run's slot in the
// workflow's zone; its nodes (and their retries) get that text.
TEST_F(WorkflowRunsTest, AWorkflowsParamsTemplateRendersOnceAtItsSlot) {
  v1::Schedule daily;
  daily.mutable_cron()->set_expression("0 30 1 * * ?");
  daily.mutable_cron()->set_time_zone("Asia/Shanghai");
  const int64_t id = Workflow(daily);
  absl::StatusOr<v1::Workflow> w = store_->GetWorkflow(id);
  ASSERT_TRUE(w.ok()) << w.status();
  w->set_params("day=$[yyyyMMdd-1]");
  ASSERT_TRUE(store_->UpdateWorkflow(*w, std::nullopt, kNow).ok());
  // 2026-11-28 17:30 UTC is 01:30 on the 29th in Shanghai.
  const int64_t slot = absl::ToUnixMillis(
      absl::FromCivil(absl::CivilSecond(2026, 11, 28, 17, 30, 0), absl::UTCTimeZone()));
  absl::StatusOr<v1::WorkflowRun> run = driver_.Start(id, v1::TRIGGER_TYPE_CRON, slot, {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->params(), "day=20261128");
  clock_.AdvanceTo(clock_.Now() + absl::Hours(30));  // Later, the node still sees the slot's day.
  End(NodeRuns(run->id())[0], v1::HANDLE_CODE_SUCCESS);
  const std::vector<v1::Run> runs = NodeRuns(run->id());
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].params(), "day=20261128");
  EXPECT_EQ(runs[1].params(), "day=20261128");
}

TEST_F(WorkflowRunsTest, ANodeWhoseRetriesAreSpentFailsTheRun) {
  absl::StatusOr<v1::WorkflowRun> run = driver_.Start(Workflow(), v1::TRIGGER_TYPE_API, 0, {});
  ASSERT_TRUE(run.ok()) << run.status();
  End(NodeRuns(run->id())[0], v1::HANDLE_CODE_FAILURE);  // extract: no retries.
  const v1::WorkflowRun failed = Stored(run->id());
  EXPECT_EQ(failed.status(), v1::WORKFLOW_RUN_STATUS_FAILED);
  EXPECT_EQ(failed.nodes(1).state(), v1::WORKFLOW_NODE_STATE_BYPASSED);
  EXPECT_EQ(NodeRuns(run->id()).size(), 1u);
}

// A node's result may be stored by another replica, which cannot wake this
// one: while a workflow run is running the follow-ups look every 20 ms
// instead of every 100 ms, and go back to 100 ms once none is.
TEST_F(WorkflowRunsTest, TheFollowUpsLookOftenOnlyWhileAWorkflowRunIsRunning) {
  const int64_t workflow = Workflow();
  auto next_look_in = [&] { return followups_.Tick() - clock_.Now(); };
  EXPECT_EQ(next_look_in(), absl::Milliseconds(100));

  absl::StatusOr<v1::WorkflowRun> run = driver_.Start(workflow, v1::TRIGGER_TYPE_API, 0, {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(next_look_in(), absl::Milliseconds(100));  // Asked at most once a look.
  clock_.AdvanceTo(clock_.Now() + absl::Milliseconds(100));
  EXPECT_EQ(next_look_in(), absl::Milliseconds(20));

  End(NodeRuns(run->id())[0], v1::HANDLE_CODE_FAILURE);  // extract fails: the run fails.
  ASSERT_EQ(Stored(run->id()).status(), v1::WORKFLOW_RUN_STATUS_FAILED);
  // Asked again only once a second while looking often.
  clock_.AdvanceTo(clock_.Now() + absl::Milliseconds(500));
  EXPECT_EQ(next_look_in(), absl::Milliseconds(20));
  clock_.AdvanceTo(clock_.Now() + absl::Milliseconds(600));
  EXPECT_EQ(next_look_in(), absl::Milliseconds(100));
}

TEST_F(WorkflowRunsTest, AResumeFiresWhatADeadReplicaStoredButNeverFiredAndNothingTwice) {
  LostSink lost;
  WorkflowDriver dying{store_.get(), store_.get(), &lost, &clock_};
  absl::StatusOr<v1::WorkflowRun> run = dying.Start(Workflow(), v1::TRIGGER_TYPE_API, 0, {});
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->nodes(0).state(), v1::WORKFLOW_NODE_STATE_RUNNING);
  EXPECT_THAT(NodeRuns(run->id()), IsEmpty());

  absl::StatusOr<std::vector<std::string>> fired = driver_.Resume(run->id());
  ASSERT_TRUE(fired.ok()) << fired.status();
  EXPECT_THAT(*fired, ElementsAre("extract"));
  ASSERT_EQ(NodeRuns(run->id()).size(), 1u);
  fired = driver_.Resume(run->id());  // Recorded now: nothing more.
  ASSERT_TRUE(fired.ok()) << fired.status();
  EXPECT_THAT(*fired, IsEmpty());
  EXPECT_EQ(NodeRuns(run->id()).size(), 1u);
}

TEST_F(WorkflowRunsTest, TheSchedulerStartsOneRunPerSlotAndSkipsSlotsMissedByMore) {
  v1::Schedule every_minute;
  every_minute.mutable_fix_rate()->set_seconds(60);
  const int64_t id = Workflow(every_minute);
  absl::StatusOr<v1::Workflow> w = store_->GetWorkflow(id);
  ASSERT_TRUE(w.ok());
  w->set_state(v1::WORKFLOW_STATE_RUNNING);
  ASSERT_TRUE(store_->UpdateWorkflow(*w, kNow + 60'000, kNow).ok());
  WorkflowScheduler scheduler(store_.get(), &driver_, &clock_, {});
  WorkflowScheduler other(store_.get(), &driver_, &clock_, {});  // Another replica's.

  clock_.AdvanceTo(absl::FromUnixMillis(kNow + 60'000));
  scheduler.Tick();
  other.Tick();
  absl::StatusOr<std::vector<v1::WorkflowRun>> runs = store_->ListWorkflowRuns(id, 10);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].trigger_type(), v1::TRIGGER_TYPE_FIX_RATE);
  EXPECT_EQ(google::protobuf::util::TimeUtil::TimestampToMilliseconds((*runs)[0].scheduled_time()),
            kNow + 60'000);

  // Nobody fired for ten minutes: DO_NOTHING skips to the next slot from now.
  clock_.AdvanceTo(absl::FromUnixMillis(kNow + 60'000 + 600'000 + 1'000));
  scheduler.Tick();
  runs = store_->ListWorkflowRuns(id, 10);
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), 1u);
  absl::StatusOr<std::vector<store::DueWorkflow>> due =
      store_->ListDueWorkflows(kNow + 10 * 3'600'000, 10, {});
  ASSERT_TRUE(due.ok());
  ASSERT_EQ(due->size(), 1u);
  EXPECT_EQ((*due)[0].next_fire_ms, kNow + 60'000 + 660'000);
}

}  // namespace
}  // namespace gnomon::scheduler

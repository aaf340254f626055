// Workflows on two replicas on one store (MariaDB under scripts/test),
// while the replica holding most partitions is kill -9'ed in the middle of
// the workflow runs and restarted: every run still ends SUCCEEDED, every
// node ran exactly once per run (one run recorded, one handler invocation
// counted executor-side), and each node started only after all of its
// parents had ended.
#include <signal.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/cluster_load.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

using google::protobuf::util::TimeUtil;

constexpr int kReplicas = 2;
constexpr int kRuns = 12;
constexpr int kKills = 2;

class WorkflowKillClusterTest : public ::testing::Test {
 protected:
  // A stub to replica `i`, with the admin token on every call.
  std::unique_ptr<v1::JobAdmin::Stub> Admin(int i) {
    return v1::JobAdmin::NewStub(
        grpc::CreateChannel(cluster_.address(i), grpc::InsecureChannelCredentials()));
  }
  std::unique_ptr<grpc::ClientContext> Ctx() {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
    ctx->AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_.admin_token()));
    return ctx;
  }
  // A replica that is up.
  int Live() const {
    for (int i = 0; i < kReplicas; ++i) {
      if (cluster_.running(i)) return i;
    }
    return 0;
  }

  testing::GnomonCluster cluster_{testing::ClusterStoreFlags(), kReplicas};
};

TEST_F(WorkflowKillClusterTest, KillingAReplicaMidRunNeitherRepeatsNorLosesNorReordersANode) {
  ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
  testing::ClusterLoad load(&cluster_);
  ASSERT_TRUE(load.Start(2)) << cluster_.Output();

  // extract_eu and extract_us in parallel, merge once both succeeded, then
  // publish and archive in parallel: each node's handler sleeps 300 ms.
  const std::vector<std::string> nodes = {"extract_eu", "extract_us", "merge", "publish",
                                          "archive"};
  const std::vector<std::pair<std::string, std::string>> edges = {
      {"extract_eu", "merge"}, {"extract_us", "merge"}, {"merge", "publish"}, {"merge", "archive"}};
  v1::CreateWorkflowRequest create;
  v1::Workflow& w = *create.mutable_workflow();
  w.set_group_id(load.group().id());
  w.set_name("regional");
  w.set_params("300");
  for (const std::string& n : nodes) {
    v1::Job job;
    ASSERT_TRUE(cluster_.CtlJson({"job", "create", "--group", absl::StrCat(load.group().id()),
                                  "--name", n, "--handler", "slow", "--manual"},
                                 &job))
        << cluster_.Output();
    v1::WorkflowNode* node = w.add_nodes();
    node->set_name(n);
    node->set_job_name(n);
  }
  for (const auto& [from, to] : edges) {
    v1::WorkflowEdge* e = w.add_edges();
    e->set_from(from);
    e->set_to(to);
  }
  v1::Workflow created;
  grpc::Status s = Admin(0)->CreateWorkflow(Ctx().get(), create, &created);
  ASSERT_TRUE(s.ok()) << s.error_message();

  std::vector<int64_t> runs;
  for (int i = 0; i < kRuns; ++i) {
    v1::TriggerWorkflowRequest t;
    t.set_workflow_id(created.id());
    v1::WorkflowRun run;
    s = Admin(i % kReplicas)->TriggerWorkflow(Ctx().get(), t, &run);
    ASSERT_TRUE(s.ok()) << s.error_message();
    runs.push_back(run.id());
    cluster_.PollInterval(absl::Milliseconds(100));  // Runs at every stage when the kills come.
  }
  for (int kill = 0; kill < kKills; ++kill) {
    int busiest = 0;
    for (int i = 1; i < kReplicas; ++i) {
      if (cluster_.HeldPartitions(i) > cluster_.HeldPartitions(busiest)) busiest = i;
    }
    cluster_.Stop(busiest, SIGKILL);
    cluster_.PollInterval(absl::Milliseconds(500));  // Down for a while.
    ASSERT_TRUE(cluster_.StartReplica(busiest)) << cluster_.Output();
    cluster_.PollInterval(absl::Milliseconds(700));
  }

  // Every run ends.
  std::map<int64_t, v1::WorkflowRun> ended;
  const absl::Time deadline = absl::Now() + absl::Seconds(120);
  while (ended.size() < runs.size() && absl::Now() < deadline) {
    for (int64_t id : runs) {
      if (ended.count(id)) continue;
      v1::GetWorkflowRunRequest get;
      get.set_workflow_run_id(id);
      v1::WorkflowRun run;
      if (Admin(Live())->GetWorkflowRun(Ctx().get(), get, &run).ok() &&
          run.status() != v1::WORKFLOW_RUN_STATUS_RUNNING) {
        ended[id] = run;
      }
    }
    cluster_.PollInterval(absl::Milliseconds(250));
  }
  ASSERT_EQ(ended.size(), runs.size()) << "workflow runs still running\n" << cluster_.Output();

  const std::map<int64_t, int> invoked = load.Invocations();
  for (int64_t id : runs) {
    EXPECT_EQ(ended[id].status(), v1::WORKFLOW_RUN_STATUS_SUCCEEDED)
        << ended[id].ShortDebugString();
    // The graph the run keeps names its jobs, as the workflow does.
    ASSERT_EQ(ended[id].workflow().nodes_size(), static_cast<int>(nodes.size()));
    for (int i = 0; i < ended[id].workflow().nodes_size(); ++i) {
      EXPECT_EQ(ended[id].workflow().nodes(i).job_name(), nodes[i]);
    }
    v1::ListRunsRequest list;
    list.set_workflow_run_id(id);
    list.set_page_size(100);
    v1::ListRunsResponse node_runs;
    s = Admin(Live())->ListRuns(Ctx().get(), list, &node_runs);
    ASSERT_TRUE(s.ok()) << s.error_message();
    std::map<std::string, std::vector<v1::Run>> of_node;
    for (const v1::Run& r : node_runs.runs()) of_node[r.workflow_node()].push_back(r);
    for (const std::string& n : nodes) {
      ASSERT_EQ(of_node[n].size(), 1u) << "workflow run " << id << " node " << n;
      const v1::Run& r = of_node[n][0];
      EXPECT_EQ(r.status(), v1::RUN_STATUS_SUCCEEDED) << r.ShortDebugString();
      auto calls = invoked.find(r.id());
      EXPECT_EQ(calls == invoked.end() ? 0 : calls->second, 1)
          << "workflow run " << id << " node " << n << " run " << r.id() << " executions";
    }
    for (const auto& [from, to] : edges) {
      const v1::Run& parent = of_node[from][0];
      const v1::Run& child = of_node[to][0];
      EXPECT_GE(TimeUtil::TimestampToMilliseconds(child.trigger_time()),
                TimeUtil::TimestampToMilliseconds(parent.end_time()))
          << "workflow run " << id << ": " << to << " was fired before " << from << " ended";
    }
  }
}

}  // namespace
}  // namespace gnomon

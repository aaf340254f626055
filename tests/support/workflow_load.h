// WorkflowLoad: workflow runs for cluster tests and benches — a workflow of
// a ClusterLoad's group whose nodes each run one sample executor handler
// (`slow` unless told), runs triggered through any live replica, and an audit of what
// they did: each run's status, each node's runs recorded, its handler
// invocations counted executor-side, and whether a child was fired before
// a parent ended.
//
//   testing::WorkflowLoad flows(&cluster, &load);
//   ASSERT_TRUE(flows.Create("regional", {"a", "b", "c"}, {{"a", "c"}, {"b", "c"}}, "300"));
//   flows.Trigger();  ... kill replicas, stop the store ...
//   ASSERT_TRUE(flows.AwaitEnded(absl::Seconds(120)));
//   EXPECT_TRUE(flows.Audit().ExactlyOnce()) << flows.Audit();
//
// Thread safety: one test thread.
#ifndef GNOMON_TESTS_SUPPORT_WORKFLOW_LOAD_H_
#define GNOMON_TESTS_SUPPORT_WORKFLOW_LOAD_H_

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "tests/support/cluster_load.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon::testing {

struct WorkflowAudit {
  int runs = 0;
  int not_succeeded = 0;              // Runs that ended otherwise.
  int unnamed = 0;                    // Nodes of a run's graph without their job's name.
  int missing = 0;                    // (run, node) with no run recorded.
  int recorded_twice = 0;             // (run, node) with more than one.
  int executed_twice = 0;             // Node runs invoked more than once.
  int never_executed = 0;             // Node runs never invoked.
  int before_parent = 0;              // Children fired before a parent ended.
  std::vector<std::string> problems;  // The first few, for the failure message.

  bool ExactlyOnce() const {
    return not_succeeded == 0 && unnamed == 0 && missing == 0 && recorded_twice == 0 &&
           executed_twice == 0 && never_executed == 0 && before_parent == 0;
  }
};
std::ostream& operator<<(std::ostream& out, const WorkflowAudit& a);

class WorkflowLoad {
 public:
  WorkflowLoad(GnomonCluster* cluster, ClusterLoad* load) : cluster_(cluster), load_(load) {}

  // A `handler` job per node (named as the node) and the workflow over
  // them, run with `params` (for `slow`: the ms each node sleeps); false
  // (with a test failure) otherwise.
  bool Create(const std::string& name, const std::vector<std::string>& nodes,
              const std::vector<std::pair<std::string, std::string>>& edges,
              const std::string& params, const std::string& handler = "slow");
  // Starts a run through a live replica (round robin); false otherwise.
  bool Trigger();
  // Polls until every run triggered has ended; false after `limit`.
  bool AwaitEnded(absl::Duration limit);
  WorkflowAudit Audit();
  // The runs triggered, oldest first; those AwaitEnded saw end, by id.
  const std::vector<int64_t>& runs() const { return runs_; }
  const std::map<int64_t, v1::WorkflowRun>& ended() const { return ended_; }
  // A workflow run's node runs, newest first.
  std::vector<v1::Run> NodeRuns(int64_t workflow_run_id);

 private:
  std::unique_ptr<v1::JobAdmin::Stub> Admin();
  std::unique_ptr<grpc::ClientContext> Ctx() const;

  GnomonCluster* const cluster_;
  ClusterLoad* const load_;
  int64_t workflow_id_ = 0;
  std::vector<std::string> nodes_;
  std::vector<std::pair<std::string, std::string>> edges_;
  std::vector<int64_t> runs_;
  std::map<int64_t, v1::WorkflowRun> ended_;
  int next_replica_ = 0;
};

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_WORKFLOW_LOAD_H_

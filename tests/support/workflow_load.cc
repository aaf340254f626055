#include "tests/support/workflow_load.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"

namespace gnomon::testing {
namespace {

using google::protobuf::util::TimeUtil;

constexpr size_t kProblemsShown = 10;

void Note(WorkflowAudit& a, std::string problem) {
  if (a.problems.size() < kProblemsShown) a.problems.push_back(std::move(problem));
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const WorkflowAudit& a) {
  out << a.runs << " workflow runs: " << a.not_succeeded << " not succeeded, " << a.unnamed
      << " nodes unnamed; node runs missing " << a.missing << ", recorded twice "
      << a.recorded_twice << ", executed twice " << a.executed_twice << ", never executed "
      << a.never_executed << "; fired before a parent ended " << a.before_parent;
  for (const std::string& p : a.problems) out << "\n  " << p;
  return out;
}

std::unique_ptr<v1::JobAdmin::Stub> WorkflowLoad::Admin() {
  for (int tried = 0; tried < cluster_->replicas(); ++tried) {
    const int i = next_replica_++ % cluster_->replicas();
    if (cluster_->running(i)) {
      return v1::JobAdmin::NewStub(
          grpc::CreateChannel(cluster_->address(i), grpc::InsecureChannelCredentials()));
    }
  }
  return v1::JobAdmin::NewStub(
      grpc::CreateChannel(cluster_->address(0), grpc::InsecureChannelCredentials()));
}

std::unique_ptr<grpc::ClientContext> WorkflowLoad::Ctx() const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  ctx->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(10)));
  ctx->AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_->admin_token()));
  return ctx;
}

bool WorkflowLoad::Create(const std::string& name, const std::vector<std::string>& nodes,
                          const std::vector<std::pair<std::string, std::string>>& edges,
                          const std::string& params, const std::string& handler) {
  nodes_ = nodes;
  edges_ = edges;
  v1::CreateWorkflowRequest create;
  v1::Workflow& w = *create.mutable_workflow();
  w.set_group_id(load_->group().id());
  w.set_name(name);
  w.set_params(params);
  for (const std::string& n : nodes) {
    v1::Job job;
    if (!cluster_->CtlJson({"job", "create", "--group", absl::StrCat(load_->group().id()), "--name",
                            n, "--handler", handler, "--manual"},
                           &job)) {
      return false;
    }
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
  grpc::Status s = Admin()->CreateWorkflow(Ctx().get(), create, &created);
  EXPECT_TRUE(s.ok()) << s.error_message();
  workflow_id_ = created.id();
  return s.ok();
}

bool WorkflowLoad::Trigger() {
  v1::TriggerWorkflowRequest t;
  t.set_workflow_id(workflow_id_);
  v1::WorkflowRun run;
  grpc::Status s = Admin()->TriggerWorkflow(Ctx().get(), t, &run);
  EXPECT_TRUE(s.ok()) << s.error_message();
  if (s.ok()) runs_.push_back(run.id());
  return s.ok();
}

bool WorkflowLoad::AwaitEnded(absl::Duration limit) {
  const absl::Time deadline = absl::Now() + limit;
  while (ended_.size() < runs_.size() && absl::Now() < deadline) {
    for (int64_t id : runs_) {
      if (ended_.count(id)) continue;
      v1::GetWorkflowRunRequest get;
      get.set_workflow_run_id(id);
      v1::WorkflowRun run;
      if (Admin()->GetWorkflowRun(Ctx().get(), get, &run).ok() &&
          run.status() != v1::WORKFLOW_RUN_STATUS_RUNNING) {
        ended_[id] = run;
      }
    }
    if (ended_.size() < runs_.size()) cluster_->PollInterval(absl::Milliseconds(250));
  }
  return ended_.size() == runs_.size();
}

std::vector<v1::Run> WorkflowLoad::NodeRuns(int64_t workflow_run_id) {
  v1::ListRunsRequest list;
  list.set_workflow_run_id(workflow_run_id);
  list.set_page_size(1000);
  v1::ListRunsResponse out;
  grpc::Status s = Admin()->ListRuns(Ctx().get(), list, &out);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return {out.runs().begin(), out.runs().end()};
}

WorkflowAudit WorkflowLoad::Audit() {
  WorkflowAudit a;
  const std::map<int64_t, int> invoked = load_->Invocations();
  for (int64_t id : runs_) {
    ++a.runs;
    const v1::WorkflowRun& run = ended_[id];
    if (run.status() != v1::WORKFLOW_RUN_STATUS_SUCCEEDED) {
      ++a.not_succeeded;
      Note(a, run.ShortDebugString());
    }
    for (const v1::WorkflowNode& n : run.workflow().nodes()) a.unnamed += n.job_name() != n.name();
    std::map<std::string, std::vector<v1::Run>> of;
    for (v1::Run& r : NodeRuns(id)) of[r.workflow_node()].push_back(std::move(r));
    for (const std::string& n : nodes_) {
      const std::vector<v1::Run>& rs = of[n];
      if (rs.empty()) ++a.missing;
      if (rs.size() > 1) {
        ++a.recorded_twice;
        Note(a, absl::StrCat("workflow run ", id, " node ", n, ": ", rs.size(), " runs"));
      }
      for (const v1::Run& r : rs) {
        auto it = invoked.find(r.id());
        const int calls = it == invoked.end() ? 0 : it->second;
        a.executed_twice += calls > 1;
        a.never_executed += calls == 0;
        if (calls != 1) {
          Note(a, absl::StrCat("workflow run ", id, " node ", n, " run ", r.id(), ": ", calls,
                               " executions"));
        }
      }
    }
    for (const auto& [from, to] : edges_) {
      if (of[from].empty() || of[to].empty()) continue;
      if (TimeUtil::TimestampToMilliseconds(of[to][0].trigger_time()) <
          TimeUtil::TimestampToMilliseconds(of[from][0].end_time())) {
        ++a.before_parent;
        Note(a, absl::StrCat("workflow run ", id, ": ", to, " fired before ", from, " ended"));
      }
    }
  }
  return a;
}

}  // namespace gnomon::testing

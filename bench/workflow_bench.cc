// workflow_bench: what workflows cost on top of their jobs, on real
// processes — two gnomond replicas on a throwaway MariaDB, two sample
// executors, noop handlers.
//
//   chain       one workflow of N nodes in a line, run R times one after
//               the other: per edge, the time from the parent's end
//               (reported by the executor) to the child's dispatch — the
//               result stored, the follow-up read, the workflow run moved
//               on, the child recorded and routed (p50 / p99 / max).
//   concurrent  C runs of one 10-node workflow (a root, 8 nodes in
//               parallel, a join) triggered at once: how long until all
//               ended, how many succeeded, and per (run, node) how many runs
//               were recorded and how many handler invocations counted
//               executor-side (each must be exactly 1).
//
// Figures are printed, never asserted.
//
//   workflow_bench [--nodes=100] [--chain-runs=3] [--concurrent=1000] [--replicas=2]
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "bench/bench_args.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/cluster_load.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/throwaway_mariadb.h"

namespace gnomon::bench {
namespace {

using google::protobuf::util::TimeUtil;

struct Options {
  int nodes = 100;
  int chain_runs = 3;
  int concurrent = 1000;
  int replicas = 2;
};

class Bench {
 public:
  Bench(testing::GnomonCluster* cluster, testing::ClusterLoad* load)
      : cluster_(cluster),
        load_(load),
        admin_(v1::JobAdmin::NewStub(
            grpc::CreateChannel(cluster->address(0), grpc::InsecureChannelCredentials()))) {}

  std::unique_ptr<grpc::ClientContext> Ctx() const {
    auto ctx = std::make_unique<grpc::ClientContext>();
    ctx->set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(30)));
    ctx->AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_->admin_token()));
    return ctx;
  }

  // A noop job per node, and the workflow over them.
  int64_t CreateWorkflow(const std::string& name, const std::vector<std::string>& nodes,
                         const std::vector<std::pair<std::string, std::string>>& edges) {
    v1::CreateWorkflowRequest req;
    v1::Workflow& w = *req.mutable_workflow();
    w.set_group_id(load_->group().id());
    w.set_name(name);
    for (const std::string& n : nodes) {
      const std::string job = absl::StrCat(name, "-", n);
      v1::Job created;
      if (!cluster_->CtlJson({"job", "create", "--group", absl::StrCat(load_->group().id()),
                              "--name", job, "--handler", "noop", "--manual"},
                             &created)) {
        return 0;
      }
      v1::WorkflowNode* node = w.add_nodes();
      node->set_name(n);
      node->set_job_id(created.id());
    }
    for (const auto& [from, to] : edges) {
      v1::WorkflowEdge* e = w.add_edges();
      e->set_from(from);
      e->set_to(to);
    }
    v1::Workflow out;
    grpc::Status s = admin_->CreateWorkflow(Ctx().get(), req, &out);
    if (!s.ok()) std::fprintf(stderr, "CreateWorkflow: %s\n", s.error_message().c_str());
    return s.ok() ? out.id() : 0;
  }

  int64_t Trigger(int64_t workflow_id) {
    v1::TriggerWorkflowRequest t;
    t.set_workflow_id(workflow_id);
    v1::WorkflowRun run;
    grpc::Status s = admin_->TriggerWorkflow(Ctx().get(), t, &run);
    if (!s.ok()) std::fprintf(stderr, "TriggerWorkflow: %s\n", s.error_message().c_str());
    return s.ok() ? run.id() : 0;
  }

  // Polls until every run in `ids` has ended; the runs, by id.
  std::map<int64_t, v1::WorkflowRun> AwaitEnded(const std::vector<int64_t>& ids,
                                                absl::Duration limit) {
    std::map<int64_t, v1::WorkflowRun> ended;
    const absl::Time deadline = absl::Now() + limit;
    while (ended.size() < ids.size() && absl::Now() < deadline) {
      for (int64_t id : ids) {
        if (ended.count(id)) continue;
        v1::GetWorkflowRunRequest get;
        get.set_workflow_run_id(id);
        v1::WorkflowRun run;
        if (admin_->GetWorkflowRun(Ctx().get(), get, &run).ok() &&
            run.status() != v1::WORKFLOW_RUN_STATUS_RUNNING) {
          ended[id] = std::move(run);
        }
      }
      if (ended.size() < ids.size()) cluster_->PollInterval(absl::Milliseconds(200));
    }
    return ended;
  }

  // A workflow run's node runs.
  std::vector<v1::Run> NodeRuns(int64_t workflow_run_id) {
    v1::ListRunsRequest list;
    list.set_workflow_run_id(workflow_run_id);
    list.set_page_size(1000);
    v1::ListRunsResponse out;
    if (!admin_->ListRuns(Ctx().get(), list, &out).ok()) return {};
    return {out.runs().begin(), out.runs().end()};
  }

 private:
  testing::GnomonCluster* const cluster_;
  testing::ClusterLoad* const load_;
  std::unique_ptr<v1::JobAdmin::Stub> admin_;
};

double Pct(std::vector<int64_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return static_cast<double>(v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))]);
}

void Chain(Bench& b, const Options& o) {
  std::vector<std::string> nodes;
  std::vector<std::pair<std::string, std::string>> edges;
  for (int i = 0; i < o.nodes; ++i) {
    nodes.push_back(absl::StrCat("n", i));
    if (i > 0) edges.emplace_back(nodes[i - 1], nodes[i]);
  }
  const int64_t id = b.CreateWorkflow("chain", nodes, edges);
  if (id == 0) return;
  std::vector<int64_t> overhead_ms;
  int succeeded = 0;
  for (int r = 0; r < o.chain_runs; ++r) {
    const int64_t run = b.Trigger(id);
    std::map<int64_t, v1::WorkflowRun> ended = b.AwaitEnded({run}, absl::Minutes(10));
    if (ended.count(run) && ended[run].status() == v1::WORKFLOW_RUN_STATUS_SUCCEEDED) ++succeeded;
    std::map<std::string, v1::Run> of;
    for (v1::Run& x : b.NodeRuns(run)) of[x.workflow_node()] = std::move(x);
    for (const auto& [from, to] : edges) {
      if (!of.count(from) || !of.count(to)) continue;
      overhead_ms.push_back(TimeUtil::TimestampToMilliseconds(of[to].dispatch_time()) -
                            TimeUtil::TimestampToMilliseconds(of[from].end_time()));
    }
  }
  std::printf(
      "chain: %d nodes in a line, %d runs one after the other: %d succeeded; parent end -> child "
      "dispatch over %zu edges: p50 %.0f ms, p99 %.0f ms, max %.0f ms\n",
      o.nodes, o.chain_runs, succeeded, overhead_ms.size(), Pct(overhead_ms, 0.5),
      Pct(overhead_ms, 0.99), Pct(overhead_ms, 1.0));
}

void Concurrent(Bench& b, testing::ClusterLoad& load, const Options& o) {
  std::vector<std::string> nodes = {"root"};
  std::vector<std::pair<std::string, std::string>> edges;
  for (int i = 0; i < 8; ++i) {
    nodes.push_back(absl::StrCat("p", i));
    edges.emplace_back("root", nodes.back());
    edges.emplace_back(nodes.back(), "join");
  }
  nodes.push_back("join");
  const int64_t id = b.CreateWorkflow("fan", nodes, edges);
  if (id == 0) return;
  const absl::Time start = absl::Now();
  std::vector<int64_t> runs;
  for (int i = 0; i < o.concurrent; ++i) {
    if (const int64_t run = b.Trigger(id); run > 0) runs.push_back(run);
  }
  const absl::Duration triggered = absl::Now() - start;
  std::map<int64_t, v1::WorkflowRun> ended = b.AwaitEnded(runs, absl::Minutes(20));
  const absl::Duration took = absl::Now() - start;
  int succeeded = 0, twice_recorded = 0, missing = 0, executed_twice = 0, never_executed = 0;
  for (const auto& [run, r] : ended) succeeded += r.status() == v1::WORKFLOW_RUN_STATUS_SUCCEEDED;
  const std::map<int64_t, int> invoked = load.Invocations();
  for (int64_t run : runs) {
    std::map<std::string, int> per_node;
    for (const v1::Run& x : b.NodeRuns(run)) {
      ++per_node[x.workflow_node()];
      auto it = invoked.find(x.id());
      const int calls = it == invoked.end() ? 0 : it->second;
      executed_twice += calls > 1;
      never_executed += calls == 0;
    }
    for (const std::string& n : nodes) {
      missing += per_node[n] == 0;
      twice_recorded += per_node[n] > 1;
    }
  }
  std::printf(
      "concurrent: %d runs of a 10-node workflow (root, 8 in parallel, join) triggered in %s, "
      "all ended after %s: %zu started, %zu ended, %d succeeded; node runs missing %d, recorded "
      "twice %d, executed twice %d, never executed %d\n",
      o.concurrent, absl::FormatDuration(absl::Trunc(triggered, absl::Milliseconds(1))).c_str(),
      absl::FormatDuration(absl::Trunc(took, absl::Milliseconds(1))).c_str(), runs.size(),
      ended.size(), succeeded, missing, twice_recorded, executed_twice, never_executed);
}

}  // namespace
}  // namespace gnomon::bench

int main(int argc, char** argv) {
  using gnomon::bench::Bench;
  using gnomon::bench::Chain;
  using gnomon::bench::Concurrent;
  using gnomon::bench::Options;
  using gnomon::bench::ParseBenchArgs;
  using gnomon::bench::PositiveInt;
  Options o;
  if (!ParseBenchArgs(argc, argv,
                      "workflow_bench [--nodes=100] [--chain-runs=3] [--concurrent=1000] "
                      "[--replicas=2]",
                      [&](absl::string_view a) {
                        if (absl::ConsumePrefix(&a, "--nodes=")) return PositiveInt(a, o.nodes);
                        if (absl::ConsumePrefix(&a, "--chain-runs="))
                          return PositiveInt(a, o.chain_runs);
                        if (absl::ConsumePrefix(&a, "--concurrent="))
                          return PositiveInt(a, o.concurrent);
                        if (absl::ConsumePrefix(&a, "--replicas="))
                          return PositiveInt(a, o.replicas);
                        return false;
                      })) {
    return 2;
  }
  absl::StatusOr<std::unique_ptr<gnomon::testing::ThrowawayMariadb>> db =
      gnomon::testing::ThrowawayMariadb::Start();
  if (!db.ok()) {
    std::fprintf(stderr, "MariaDB: %s\n", db.status().ToString().c_str());
    return 1;
  }
  // No admin rate limit: the bench triggers its runs as fast as it can.
  gnomon::testing::GnomonCluster cluster(
      {"--store=" + (*db)->Url("gnomon_workflow_bench"), "--admin-rate-limit=0"}, o.replicas);
  if (!cluster.Start()) {
    std::fprintf(stderr, "%s\n", cluster.Output().c_str());
    return 1;
  }
  gnomon::testing::ClusterLoad load(&cluster, "workflow-bench");
  if (!load.Start(2)) return 1;
  std::printf("workflow_bench: %d gnomond replicas on MariaDB, 2 sample executors, noop handlers\n",
              o.replicas);
  Bench b(&cluster, &load);
  Chain(b, o);
  Concurrent(b, load, o);
  return 0;
}

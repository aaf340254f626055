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
#include "google/protobuf/util/time_util.h"
#include "tests/support/cluster_load.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/throwaway_mariadb.h"
#include "tests/support/workflow_load.h"

namespace gnomon::bench {
namespace {

using google::protobuf::util::TimeUtil;

struct Options {
  int nodes = 100;
  int chain_runs = 3;
  int concurrent = 1000;
  int replicas = 2;
};

double Pct(std::vector<int64_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return static_cast<double>(v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))]);
}

void Chain(testing::GnomonCluster& cluster, testing::ClusterLoad& load, const Options& o) {
  std::vector<std::string> nodes;
  std::vector<std::pair<std::string, std::string>> edges;
  for (int i = 0; i < o.nodes; ++i) {
    nodes.push_back(absl::StrCat("n", i));
    if (i > 0) edges.emplace_back(nodes[i - 1], nodes[i]);
  }
  testing::WorkflowLoad chain(&cluster, &load);
  if (!chain.Create("chain", nodes, edges, "", "noop")) return;
  std::vector<int64_t> overhead_ms;
  for (int r = 0; r < o.chain_runs; ++r) {
    if (!chain.Trigger() || !chain.AwaitEnded(absl::Minutes(10))) continue;
    std::map<std::string, v1::Run> of;
    for (v1::Run& x : chain.NodeRuns(chain.runs().back())) of[x.workflow_node()] = std::move(x);
    for (const auto& [from, to] : edges) {
      if (!of.count(from) || !of.count(to)) continue;
      overhead_ms.push_back(TimeUtil::TimestampToMilliseconds(of[to].dispatch_time()) -
                            TimeUtil::TimestampToMilliseconds(of[from].end_time()));
    }
  }
  const testing::WorkflowAudit audit = chain.Audit();
  std::printf(
      "chain: %d nodes in a line, %d runs one after the other: %d succeeded; parent end -> child "
      "dispatch over %zu edges: p50 %.0f ms, p99 %.0f ms, max %.0f ms\n",
      o.nodes, o.chain_runs, audit.runs - audit.not_succeeded, overhead_ms.size(),
      Pct(overhead_ms, 0.5), Pct(overhead_ms, 0.99), Pct(overhead_ms, 1.0));
}

void Concurrent(testing::GnomonCluster& cluster, testing::ClusterLoad& load, const Options& o) {
  std::vector<std::string> nodes = {"root"};
  std::vector<std::pair<std::string, std::string>> edges;
  for (int i = 0; i < 8; ++i) {
    nodes.push_back(absl::StrCat("p", i));
    edges.emplace_back("root", nodes.back());
    edges.emplace_back(nodes.back(), "join");
  }
  nodes.push_back("join");
  testing::WorkflowLoad fan(&cluster, &load);
  if (!fan.Create("fan", nodes, edges, "", "noop")) return;
  const absl::Time start = absl::Now();
  for (int i = 0; i < o.concurrent; ++i) fan.Trigger();
  const absl::Duration triggered = absl::Now() - start;
  fan.AwaitEnded(absl::Minutes(20));
  const absl::Duration took = absl::Now() - start;
  const testing::WorkflowAudit a = fan.Audit();
  std::printf(
      "concurrent: %d runs of a 10-node workflow (root, 8 in parallel, join) triggered in %s, "
      "all ended after %s: %zu started, %zu ended, %d succeeded; node runs missing %d, recorded "
      "twice %d, executed twice %d, never executed %d, fired before a parent ended %d\n",
      o.concurrent, absl::FormatDuration(absl::Trunc(triggered, absl::Milliseconds(1))).c_str(),
      absl::FormatDuration(absl::Trunc(took, absl::Milliseconds(1))).c_str(), fan.runs().size(),
      fan.ended().size(), a.runs - a.not_succeeded, a.missing, a.recorded_twice, a.executed_twice,
      a.never_executed, a.before_parent);
}

}  // namespace
}  // namespace gnomon::bench

int main(int argc, char** argv) {
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
  Chain(cluster, load, o);
  Concurrent(cluster, load, o);
  return 0;
}

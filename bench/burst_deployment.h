// BurstDeployment: the real processes of one benchmark configuration, on
// loopback: one or more gnomond replicas (all roles each) sharing one store,
// and sample executors registered with every replica's registry. Replica i
// (from 0) runs with --replica-id=gnomond-<i+1> (ReplicaId), so its partition
// leases read "gnomond-<i+1>#incarnation" and a restarted replica takes its
// predecessor's place.
//
//   BurstDeploymentOptions o;  // One replica on SQLite in a temp dir.
//   absl::StatusOr<std::unique_ptr<BurstDeployment>> d = BurstDeployment::Start(o);
//   ... create a group through (*d)->addresses()[0] with (*d)->admin_token() ...
//   absl::Status s = (*d)->StartExecutors("app", group_token);
//   (*d)->StopReplica(0);   // A restart: same address, same store,
//   s = (*d)->StartReplica(0);  // executors reconnect by themselves.
//   (*d)->KillReplica(1, SIGKILL);  // A crash.
//   (*d)->Stop();  // Bounded: SIGTERM, then SIGKILL after a grace.
//
// Every child dies with the bench (PR_SET_PDEATHSIG, see tests/support/subprocess.h).
// Thread safety: use from the thread that started it (the children's death
// signal follows the thread that forked them).
#ifndef GNOMON_BENCH_BURST_DEPLOYMENT_H_
#define GNOMON_BENCH_BURST_DEPLOYMENT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tests/support/subprocess.h"

namespace gnomon::bench {

struct BurstDeploymentOptions {
  int replicas = 1;
  // gnomond --store; empty means SQLite at dir()/gnomon.db.
  std::string store_url;
  // Extra gnomond flags for every replica.
  std::vector<std::string> gnomond_flags;
  int executors = 2;
  // Each executor's --max-concurrent-runs; 0 leaves the executor's default.
  int executor_capacity = 0;
  // Executor i appends each handler invocation's run id to invocations_file(i).
  bool count_invocations = false;
  // Every process serves /metrics on a free loopback port (--metrics-listen).
  bool metrics = false;
};

class BurstDeployment {
 public:
  // Starts the replicas one after another (the first applies migrations and
  // writes the admin token) and waits until each listens.
  static absl::StatusOr<std::unique_ptr<BurstDeployment>> Start(BurstDeploymentOptions options);
  ~BurstDeployment();

  // Starts the executors of `app`; executor i lists the registries starting
  // at replica i, so sessions spread over the replicas. Waits until each listens.
  absl::Status StartExecutors(const std::string& app, const std::string& access_token);
  // Executors first (their results flush), then the replicas; each gets
  // `grace` after SIGTERM before SIGKILL. Idempotent.
  void Stop(absl::Duration grace = absl::Seconds(15));
  // Stops replica i (SIGTERM, SIGKILL after `grace`); returns its exit code.
  int StopReplica(int i, absl::Duration grace = absl::Seconds(15));
  // Starts a stopped replica i again on its address and store, with the same
  // flags, and waits until it listens.
  absl::Status StartReplica(int i);
  // Sends `sig` (SIGKILL for a crash) to replica i and waits for it to exit.
  void KillReplica(int i, int sig);

  const std::vector<std::string>& addresses() const { return addresses_; }
  const std::string& admin_token() const { return admin_token_; }
  // Replica i's --replica-id, its process name: "gnomond-<i+1>".
  static std::string ReplicaId(int i);
  std::string invocations_file(int executor) const;
  // The /metrics URL of every process (with options.metrics), as each printed it.
  std::vector<std::string> metrics_urls() const;
  const std::string& dir() const { return dir_.path(); }
  std::string sqlite_path() const { return dir() + "/gnomon.db"; }

  struct Process {
    std::string name;  // "gnomond-1", "executor-2", ...
    testing::Subprocess* process;
  };
  // Replicas, then executors.
  std::vector<Process> processes() const;
  const std::vector<std::unique_ptr<testing::Subprocess>>& replicas() const { return replicas_; }

 private:
  explicit BurstDeployment(BurstDeploymentOptions options) : options_(std::move(options)) {}
  // Starts replica i listening on `listen` and waits until it does; returns
  // the address it listens on.
  absl::StatusOr<std::string> SpawnReplica(int i, const std::string& listen);

  BurstDeploymentOptions options_;
  testing::TempDir dir_;
  std::vector<std::unique_ptr<testing::Subprocess>> replicas_;
  std::vector<std::unique_ptr<testing::Subprocess>> executors_;
  std::vector<std::string> addresses_;
  std::string admin_token_;
};

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_BURST_DEPLOYMENT_H_

// ClusterLoad: the workload of a cluster test and the audit of its outcome.
//
// On a running GnomonCluster it creates one executor group, starts sample
// executors that append every handler invocation to a file of their own
// (executions counted independently of the store), and creates jobs with
// gnomonctl. Audit() then checks every (job, slot, shard) from each job's
// first recorded slot to its last: how many first attempts the store holds
// for it, how its last attempt ended, and how often each run reached a
// handler.
//
//   GnomonCluster cluster(StoreFlags(), 3);
//   ASSERT_TRUE(cluster.Start());
//   ClusterLoad load(&cluster);
//   ASSERT_TRUE(load.Start(2));  // the group, 2 executors every replica sees
//   load.CreateJob({"--handler", "noop", "--every", "200ms", "--misfire", "catch-up"});
//   ...  // disturb the cluster
//   load.StopJobs();
//   ASSERT_TRUE(load.AwaitSettled(absl::Seconds(60)));
//   const SlotAudit audit = load.Audit(200);
//   EXPECT_TRUE(audit.ExactlyOnce()) << audit;
//
// Thread safety: use from the test thread.
#ifndef GNOMON_TESTS_SUPPORT_CLUSTER_LOAD_H_
#define GNOMON_TESTS_SUPPORT_CLUSTER_LOAD_H_

#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gnomon/v1/admin.pb.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon::testing {

// What happened to every (job, slot, shard) of a ClusterLoad's jobs, from
// each job's first recorded slot to its last.
struct SlotAudit {
  int slots = 0;                      // (job, slot, shard) in the window.
  int missing = 0;                    // No run recorded for it.
  int repeated = 0;                   // More than one first attempt recorded for it.
  int misfired = 0;                   // Fired late under the misfire policy (TRIGGER_TYPE_MISFIRE).
  int not_succeeded = 0;              // Its last attempt did not succeed.
  int retried = 0;                    // More than one attempt.
  int executed_twice = 0;             // Runs (any attempt) whose handler ran more than once.
  int never_executed = 0;             // None of its attempts reached a handler.
  int fewest_slots = 0;               // Slots of the job with the fewest.
  int64_t earliest_last_slot_ms = 0;  // The last slot of the job that stopped first.
  // Runs that did not succeed, by status, handle code and message (its first 120 characters).
  std::map<std::string, int> failures;

  // Every slot recorded once, executed (at least one attempt reached a
  // handler, no run more than once) and succeeded in the end.
  bool ExactlyOnce() const {
    return missing == 0 && repeated == 0 && not_succeeded == 0 && never_executed == 0 &&
           executed_twice == 0;
  }
};
std::ostream& operator<<(std::ostream& out, const SlotAudit& audit);

// One handler invocation, as an executor's invocations file has it: its
// start and end instants in microseconds since the Unix epoch (one clock:
// the executors run on the test's machine); end_us is 0 if the handler had
// not returned (or its executor died first).
struct Execution {
  int64_t run_id = 0;
  int executor = 0;
  int64_t start_us = 0;
  int64_t end_us = 0;
};

class ClusterLoad {
 public:
  explicit ClusterLoad(GnomonCluster* cluster, std::string app = "cluster-app");

  // Creates the group, starts `executors` sample executors and waits until
  // every running replica's registry lists them (so none routes to an
  // empty group). False, with a test failure, otherwise.
  bool Start(int executors);
  // Stops executor `i` with `sig` (SIGKILL for a crash) and waits for it.
  void StopExecutor(int i, int sig);
  // Starts executor `i` again: same address, spool, run logs and invocations file.
  bool StartExecutor(int i);
  const std::string& executor_address(int i) const { return executors_[i].address; }
  Subprocess* executor(int i) { return executors_[i].process.get(); }
  // Waits until every running replica's registry lists `n` executors of the app.
  bool AwaitExecutorsOnEveryReplica(size_t n);

  // `gnomonctl job create --group G <flags> --start`; the job's id (0, with
  // a test failure, if it was refused).
  int64_t CreateJob(const std::vector<std::string>& flags);
  // Stops every job. A stop made through one replica reaches the replica
  // firing the job at its next pre-read (scheduling.md), so a job may still
  // fire for about a second after this returns; AwaitSettled waits that out.
  void StopJobs();
  const std::vector<int64_t>& jobs() const { return jobs_; }
  // The group Start created.
  const v1::Group& group() const { return group_; }
  std::vector<v1::Run> Runs(int64_t job_id) const;
  // Polls until no run of the jobs is PENDING or RUNNING, and (after
  // StopJobs) the stop has reached every replica; false if some run is
  // still active after `limit`.
  bool AwaitSettled(absl::Duration limit) const;
  // Run id -> handler invocations, over every executor's invocations file.
  std::map<int64_t, int> Invocations() const;
  // Every handler invocation, over every executor's invocations file, in
  // each file's order.
  std::vector<Execution> Executions() const;
  // Every (job, slot, shard) of the jobs, slots `period_ms` apart.
  SlotAudit Audit(int64_t period_ms) const;

 private:
  struct Executor {
    std::unique_ptr<Subprocess> process;
    std::string address;
    std::vector<std::string> flags;
  };

  GnomonCluster* const cluster_;
  const std::string app_;
  v1::Group group_;
  std::vector<Executor> executors_;
  std::vector<int64_t> jobs_;
  absl::Time stopped_ = absl::InfinitePast();  // When StopJobs returned.
};

// gnomond flags for a cluster test's store: a fresh database on
// GNOMON_TEST_MYSQL_URL when set, else none (the cluster's shared SQLite).
std::vector<std::string> ClusterStoreFlags();

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_CLUSTER_LOAD_H_

// GnomonCluster: one or more gnomond replicas (all roles, sharing one store:
// SQLite in a temp dir unless a --store flag is given) on free loopback
// ports, plus helpers to run gnomonctl against them and to start sample
// executors registered with every replica. Binary paths come from compile
// definitions GNOMOND_PATH, GNOMONCTL_PATH and SAMPLE_EXECUTOR_PATH.
//
//   GnomonCluster c;            // or GnomonCluster c({"--store=mysql://..."}, 3);
//   ASSERT_TRUE(c.Start());
//   v1::Group g;
//   ASSERT_TRUE(c.CtlJson({"group", "create", "app"}, &g));
//   ASSERT_TRUE(c.Restart(1, SIGKILL));  // replica 1 crashes and comes back
//
// Thread safety: use from the test thread.
#ifndef GNOMON_TESTS_SUPPORT_GNOMON_CLUSTER_H_
#define GNOMON_TESTS_SUPPORT_GNOMON_CLUSTER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gnomon/v1/admin.pb.h"
#include "google/protobuf/message.h"
#include "grpcpp/client_context.h"
#include "tests/support/subprocess.h"

namespace gnomon::testing {

class GnomonCluster {
 public:
  // Extra gnomond flags, e.g. {"--store=mysql://..."}; replica i runs with
  // --replica-id=replica-i.
  explicit GnomonCluster(std::vector<std::string> extra_flags = {}, int replicas = 1);

  // Starts every replica (the first creates the store and the admin token)
  // and waits until each listens. False (see Output()) on failure.
  bool Start();
  // Stops replica `i` with `sig` (SIGKILL for a crash) and starts it again
  // on the same address, identity and store.
  bool Restart(int i, int sig);
  bool Restart(int sig) { return Restart(0, sig); }
  // Stops replica `i` with `sig` and waits for it to exit.
  void Stop(int i, int sig);
  bool StartReplica(int i);
  int replicas() const { return static_cast<int>(replicas_.size()); }
  bool running(int i) const { return replicas_[i].running; }
  // Partitions replica `i` last said it holds ("holds N of M partitions").
  int HeldPartitions(int i) const;
  // Polls until the running replicas together hold every partition, each
  // some of them (as their last "holds N of M partitions" lines say); false
  // if they do not within `limit`.
  bool AwaitPartitionsShared(absl::Duration limit) const;
  const std::string& address(int i = 0) const { return replicas_[i].address; }
  // Every replica's address, comma-separated (an executor's --registry list).
  std::string addresses() const;
  // The base URL ("http://127.0.0.1:PORT") of replica `i`'s HTTP API, started
  // with --http-listen; waits for its log line; nullopt if none comes.
  std::optional<std::string> HttpUrl(int i = 0);
  const std::string& admin_token() const { return admin_token_; }
  // A call context carrying the admin token, with a deadline `timeout` away.
  std::unique_ptr<grpc::ClientContext> AdminContext(
      absl::Duration timeout = absl::Seconds(20)) const;
  const std::string& dir() const { return dir_.path(); }
  // Writes `text` to the file `name` in dir(); its path.
  std::string WriteFile(const std::string& name, const std::string& text) const;
  Subprocess* gnomond(int i = 0) { return replicas_[i].process.get(); }

  // gnomonctl with --server (the first running replica) and --token filled in.
  CommandResult Ctl(const std::vector<std::string>& args) const;
  // Global flags every later Ctl call passes too (e.g. --ca, --cert, --key).
  void set_ctl_flags(std::vector<std::string> flags) { ctl_flags_ = std::move(flags); }
  // gnomonctl ... -o json, parsed into `out`; false (with a gtest failure) otherwise.
  bool CtlJson(const std::vector<std::string>& args, google::protobuf::Message* out) const;

  // Triggers `job_id` (gnomonctl job trigger JOB `extra_args`...) until one
  // of its runs succeeds or `limit` passes (an executor that has just
  // started may not be routable yet); that run, or the last one seen.
  v1::Run TriggerUntilSucceeded(int64_t job_id, const std::vector<std::string>& extra_args = {},
                                absl::Duration limit = absl::Seconds(90)) const;

  std::unique_ptr<Subprocess> StartExecutor(const std::string& app, const std::string& token,
                                            std::vector<std::string> extra_flags = {}) const;
  // Polls `executor list --group group_id` until it lists `executors` online
  // (runs are routed to them from then on); false after `limit`, with the
  // last listing in `last` if given.
  bool AwaitOnline(int64_t group_id, int executors, absl::Duration limit = absl::Seconds(60),
                   v1::ListExecutorsResponse* last = nullptr) const;
  // The interval between two checks of a condition the test polls for with
  // a deadline (run records in the store); never used to wait for an event.
  void PollInterval(absl::Duration d) const;
  std::string Output() const;

 private:
  struct Replica {
    std::unique_ptr<Subprocess> process;
    bool running = false;
    std::string address;
    std::string listen = "127.0.0.1:0";
  };

  TempDir dir_;
  std::vector<std::string> extra_flags_;
  std::vector<std::string> ctl_flags_;
  std::vector<Replica> replicas_;
  std::string admin_token_;
};

// GNOMON_TEST_MYSQL_URL with a database name unique to this process and call
// (the store creates it), or nullopt when the variable is unset.
std::optional<std::string> FreshMysqlUrl();

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_GNOMON_CLUSTER_H_

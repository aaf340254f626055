// GnomonCluster: a gnomond (all roles, SQLite in a temp dir) on a free
// loopback port, plus helpers to run gnomonctl against it and to start sample
// executors. Binary paths come from compile definitions GNOMOND_PATH,
// GNOMONCTL_PATH and SAMPLE_EXECUTOR_PATH.
//
//   GnomonCluster c;
//   ASSERT_TRUE(c.Start());
//   v1::Group g;
//   ASSERT_TRUE(c.CtlJson({"group", "create", "app"}, &g));
//
// Thread safety: use from the test thread.
#ifndef GNOMON_TESTS_SUPPORT_GNOMON_CLUSTER_H_
#define GNOMON_TESTS_SUPPORT_GNOMON_CLUSTER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "google/protobuf/message.h"
#include "tests/support/subprocess.h"

namespace gnomon::testing {

class GnomonCluster {
 public:
  // Extra gnomond flags, e.g. {"--store=mysql://..."}.
  explicit GnomonCluster(std::vector<std::string> extra_flags = {});

  // Starts gnomond and waits until it listens. False (see Output()) on failure.
  bool Start();
  // Stops gnomond with `sig` (SIGKILL for a crash) and starts it again on the
  // same address and store.
  bool Restart(int sig);
  const std::string& address() const { return address_; }
  const std::string& admin_token() const { return admin_token_; }
  const std::string& dir() const { return dir_.path(); }
  Subprocess* gnomond() { return gnomond_.get(); }

  // gnomonctl with --server and --token filled in.
  CommandResult Ctl(const std::vector<std::string>& args) const;
  // gnomonctl ... -o json, parsed into `out`; false (with a gtest failure) otherwise.
  bool CtlJson(const std::vector<std::string>& args, google::protobuf::Message* out) const;

  std::unique_ptr<Subprocess> StartExecutor(const std::string& app, const std::string& token,
                                            std::vector<std::string> extra_flags = {}) const;
  // The interval between two checks of a condition the test polls for with
  // a deadline (run records in the store); never used to wait for an event.
  void PollInterval(absl::Duration d) const;
  std::string Output() const;

 private:
  TempDir dir_;
  std::vector<std::string> extra_flags_;
  std::unique_ptr<Subprocess> gnomond_;
  std::string address_;
  std::string admin_token_;
  std::string listen_ = "127.0.0.1:0";
};

// GNOMON_TEST_MYSQL_URL with a database name unique to this process and call
// (the store creates it), or nullopt when the variable is unset.
std::optional<std::string> FreshMysqlUrl();

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_GNOMON_CLUSTER_H_

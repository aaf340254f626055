// An executor behind a wall: it runs in a network namespace of its own,
// joined to the host by one veth pair, listening on nothing (as behind NAT,
// nothing could reach it). It connects out to gnomond and runs jobs end to
// end. Needs root (ip netns); skipped with a message elsewhere.
#include <unistd.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

using testing::RunCommand;

// A namespace with a veth pair to the host: host 10.231.X.1, namespace 10.231.X.2.
class Netns {
 public:
  Netns()
      : id_(::getpid() % 250 + 1),
        name_(absl::StrCat("gnomon-e2e-", ::getpid())),
        host_if_(absl::StrCat("gnh", ::getpid() % 100000)),
        ns_if_(absl::StrCat("gnn", ::getpid() % 100000)) {
    const std::string host_ip = absl::StrCat("10.231.", id_, ".1/30");
    const std::string ns_ip = absl::StrCat("10.231.", id_, ".2/30");
    for (const std::vector<std::string>& step : std::vector<std::vector<std::string>>{
             {"ip", "netns", "add", name_},
             {"ip", "netns", "exec", name_, "ip", "link", "set", "lo", "up"},
             {"ip", "link", "add", host_if_, "type", "veth", "peer", "name", ns_if_},
             {"ip", "link", "set", ns_if_, "netns", name_},
             {"ip", "addr", "add", host_ip, "dev", host_if_},
             {"ip", "link", "set", host_if_, "up"},
             {"ip", "netns", "exec", name_, "ip", "addr", "add", ns_ip, "dev", ns_if_},
             {"ip", "netns", "exec", name_, "ip", "link", "set", ns_if_, "up"}}) {
      testing::CommandResult r = RunCommand(step);
      if (r.exit_code != 0) {
        error_ = absl::StrCat(absl::StrJoin(step, " "), ": ", r.err);
        return;
      }
    }
  }
  ~Netns() {
    RunCommand({"ip", "link", "del", host_if_});
    RunCommand({"ip", "netns", "del", name_});
  }
  const std::string& error() const { return error_; }
  const std::string& name() const { return name_; }
  std::string host_ip() const { return absl::StrCat("10.231.", id_, ".1"); }

 private:
  const int id_;
  const std::string name_, host_if_, ns_if_;
  std::string error_;
};

TEST(NetnsExecutorE2E, AnExecutorThatListensOnNothingInItsOwnNamespaceRunsJobs) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a network namespace (ip netns)";
  Netns ns;
  if (!ns.error().empty()) GTEST_SKIP() << "no network namespace here: " << ns.error();
  testing::GnomonCluster cluster({"--listen=0.0.0.0:0"});
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  const std::string port = cluster.address().substr(cluster.address().rfind(':') + 1);
  const std::string gnomond = absl::StrCat(ns.host_ip(), ":", port);
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "walled-app"}, &group));

  testing::Subprocess executor({"ip", "netns", "exec", ns.name(), SAMPLE_EXECUTOR_PATH,
                                "--app=walled-app", absl::StrCat("--registry=", gnomond),
                                absl::StrCat("--spool-dir=", cluster.dir(), "/spool-w"),
                                absl::StrCat("--log-dir=", cluster.dir(), "/logs-w")},
                               {{"GNOMON_ACCESS_TOKEN", group.access_token()}});
  auto line = executor.WaitForLine("gnomon-sample-executor started as", absl::Seconds(30));
  ASSERT_TRUE(line) << executor.Output();
  const std::string name(absl::StripAsciiWhitespace(line->substr(line->rfind(' ') + 1)));

  // Nothing listens in the executor's namespace: there is nothing to dial.
  testing::CommandResult listening =
      RunCommand({"ip", "netns", "exec", ns.name(), "ss", "-H", "-l", "-t", "-n"});
  if (listening.exit_code == 0) {
    EXPECT_EQ(absl::StripAsciiWhitespace(listening.out), "") << listening.out;
  }

  v1::Job job;
  ASSERT_TRUE(cluster.CtlJson(
      {"job", "create", "--group", absl::StrCat(group.id()), "--handler", "demo", "--manual"},
      &job));
  const v1::Run ran = cluster.TriggerUntilSucceeded(job.id());
  EXPECT_EQ(ran.status(), v1::RUN_STATUS_SUCCEEDED) << cluster.Output() << executor.Output();
  EXPECT_EQ(ran.executor_address(), name);
}

}  // namespace
}  // namespace gnomon

// gnomond dials nothing an executor supplies. A registration may name any
// address (an internal service's host:port, say): gnomond never connects to
// it — runs routed to that "executor" wait for it to connect out, then fail
// saying it is not connected — so a registration is no port scan and the
// group's token goes nowhere. A real executor beside it, which connected
// out, runs its jobs.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/notification.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

// A TCP listener on 127.0.0.1 that never accepts: a connection to it shows
// up as a readable socket (the kernel completes the handshake).
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), len), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    EXPECT_EQ(::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len), 0);
    port_ = ntohs(a.sin_port);
  }
  ~Listener() { ::close(fd_); }
  int port() const { return port_; }
  bool Connected() const {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

TEST(DialNothingE2E, ARegisteredAddressIsNeverDialledAndItsRunsFailNotConnected) {
  testing::GnomonCluster cluster;
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "decoy-app"}, &group));
  Listener target;
  const std::string decoy = absl::StrCat("127.0.0.1:", target.port());

  // A session registering the listener's address, kept alive with beats.
  auto stub = v1::Registry::NewStub(
      grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.AddMetadata(std::string(kAppNameKey), "decoy-app");
  ctx.AddMetadata(std::string(kAccessTokenKey), group.access_token());
  auto session = stub->Session(&ctx);
  v1::SessionRequest reg;
  reg.mutable_register_()->set_app_name("decoy-app");
  reg.mutable_register_()->set_address(decoy);
  reg.mutable_register_()->set_instance_id("decoy-1");
  reg.mutable_register_()->set_capacity(4);
  reg.mutable_register_()->add_handlers("demo");
  ASSERT_TRUE(session->Write(reg));
  v1::SessionResponse registered;
  ASSERT_TRUE(session->Read(&registered)) << session->Finish().error_message();
  ASSERT_TRUE(registered.has_registered());
  absl::Notification done;
  std::thread beats([&] {
    v1::SessionRequest beat;
    beat.mutable_beat();
    v1::SessionResponse ack;
    while (!done.WaitForNotificationWithTimeout(absl::Milliseconds(500))) {
      if (!session->Write(beat) || !session->Read(&ack)) break;
    }
  });

  v1::Job job;
  ASSERT_TRUE(cluster.CtlJson({"job", "create", "--group", absl::StrCat(group.id()), "--handler",
                               "demo", "--manual", "--route", "first"},
                              &job));
  v1::TriggerJobResponse t;
  ASSERT_TRUE(cluster.CtlJson({"job", "trigger", absl::StrCat(job.id())}, &t));
  ASSERT_EQ(t.run_ids_size(), 1);
  v1::Run failed;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline && failed.id() == 0) {
    v1::ListRunsResponse runs;
    ASSERT_TRUE(cluster.CtlJson({"run", "list", "--job", absl::StrCat(job.id())}, &runs));
    for (const v1::Run& r : runs.runs()) {
      if (r.id() == t.run_ids(0) && r.status() == v1::RUN_STATUS_FAILED) failed = r;
    }
    cluster.PollInterval(absl::Milliseconds(100));
  }
  ASSERT_NE(failed.id(), 0) << cluster.Output();
  EXPECT_NE(failed.trigger_message().find(absl::StrCat("executor ", decoy, " is not connected")),
            std::string::npos)
      << failed.trigger_message();
  EXPECT_FALSE(target.Connected()) << "gnomond connected to the address a registration named";

  // A real executor of the group connects out and runs the job.
  auto executor = cluster.StartExecutor("decoy-app", group.access_token());
  auto line = executor->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30));
  ASSERT_TRUE(line) << executor->Output();
  const std::string name(absl::StripAsciiWhitespace(line->substr(line->rfind(' ') + 1)));
  const v1::Run ran = cluster.TriggerUntilSucceeded(job.id(), {"--executors", name});
  EXPECT_EQ(ran.status(), v1::RUN_STATUS_SUCCEEDED) << cluster.Output() << executor->Output();
  EXPECT_EQ(ran.executor_address(), name);
  EXPECT_FALSE(target.Connected());

  done.Notify();
  ctx.TryCancel();
  beats.join();
  session->Finish();
}

}  // namespace
}  // namespace gnomon

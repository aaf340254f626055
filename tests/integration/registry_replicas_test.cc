// Two registry replicas sharing one store: an executor connected to one of
// them is routable by a scheduler watching the other, and its death is seen
// there too (the Helm chart runs the registry with several replicas).
#include <signal.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

TEST(RegistryReplicas, ExecutorOnAnotherReplicaIsSeenAliveAndDead) {
  testing::GnomonCluster cluster;  // Replica A: all roles.
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "replica-app"}, &group));

  // Replica B: the registry role only, on the same store.
  testing::Subprocess b({GNOMOND_PATH, "--roles=registry", "--listen=127.0.0.1:0",
                         absl::StrCat("--store=sqlite:", cluster.dir(), "/gnomon.db")});
  auto line = b.WaitForLine("gnomond listening on", absl::Seconds(30));
  ASSERT_TRUE(line) << b.Output();
  std::string rest = line->substr(line->find(" on ") + 4);
  const std::string b_address = rest.substr(0, rest.find(' '));

  // Watch replica A, as A's scheduler does.
  auto registry = v1::Registry::NewStub(
      grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster.admin_token()));
  v1::WatchExecutorsRequest req;
  req.add_app_names("replica-app");
  auto watch = registry->WatchExecutors(&ctx, req);
  v1::WatchExecutorsResponse msg;
  ASSERT_TRUE(watch->Read(&msg));
  ASSERT_TRUE(msg.has_snapshot());

  // The executor registers with replica B.
  testing::Subprocess executor(
      {SAMPLE_EXECUTOR_PATH, "--app=replica-app", absl::StrCat("--registry=", b_address),
       absl::StrCat("--log-service=", cluster.address()),
       absl::StrCat("--schedulers=", cluster.address()),
       absl::StrCat("--spool-dir=", cluster.dir(), "/spool-b")},
      {{"GNOMON_ACCESS_TOKEN", group.access_token()}});
  auto listening = executor.WaitForLine("gnomon-sample-executor started as", absl::Seconds(30));
  ASSERT_TRUE(listening) << executor.Output();
  const std::string address(
      absl::StripAsciiWhitespace(listening->substr(listening->rfind(' ') + 1)));

  ASSERT_TRUE(watch->Read(&msg));
  ASSERT_TRUE(msg.has_change()) << msg.DebugString();
  EXPECT_EQ(msg.change().kind(), v1::EXECUTOR_CHANGE_KIND_JOINED);
  EXPECT_EQ(msg.change().executor().address(), address);

  // A's scheduler routes a run to it.
  v1::Job job;
  ASSERT_TRUE(cluster.CtlJson(
      {"job", "create", "--group", absl::StrCat(group.id()), "--handler", "demo", "--manual"},
      &job));
  v1::TriggerJobResponse triggered;
  ASSERT_TRUE(cluster.CtlJson({"job", "trigger", absl::StrCat(job.id())}, &triggered));
  v1::GetRunResponse run;
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (absl::Now() < deadline) {
    ASSERT_TRUE(cluster.CtlJson({"run", "get", absl::StrCat(triggered.run_ids(0))}, &run));
    if (run.run().status() == v1::RUN_STATUS_SUCCEEDED) break;
    cluster.PollInterval(absl::Milliseconds(100));
  }
  EXPECT_EQ(run.run().status(), v1::RUN_STATUS_SUCCEEDED) << run.DebugString();
  EXPECT_EQ(run.run().executor_address(), address);

  // kill -9: replica B drops it at once, replica A learns it from the store.
  executor.Kill(SIGKILL);
  executor.Wait();
  bool left = false;
  while (watch->Read(&msg)) {
    if (msg.has_change() && msg.change().kind() == v1::EXECUTOR_CHANGE_KIND_LEFT &&
        msg.change().executor().address() == address) {
      left = true;
      break;
    }
  }
  EXPECT_TRUE(left);
  ctx.TryCancel();
}

}  // namespace
}  // namespace gnomon

// Outbound requests an operator can aim (docs/security.md, "Outbound
// requests"), through a real gnomond with its default flags: alarm webhooks
// pointed at a loopback service and at the cloud metadata address are
// refused before anything is sent, recorded on the run as refused (not
// retried), and named by their origin only — the path, where Slack-style
// secrets live, appears neither on the run nor in gnomond's log.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "services/scheduler/alarm/testing/test_servers.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

using scheduler::alarm::loopback::HttpServer;

TEST(OutboundAttacks, WebhooksToLoopbackAndTheMetadataServiceAreRefusedUnsent) {
  HttpServer internal;  // A service on loopback that no webhook may reach.
  testing::GnomonCluster cluster;
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "ssrf-app"}, &group));
  auto executor = cluster.StartExecutor("ssrf-app", group.access_token());
  ASSERT_TRUE(executor->WaitForLine("started as", absl::Seconds(30))) << executor->Output();
  constexpr char kSecretPath[] = "/hooks/T0SECRET/B0SECRET";
  v1::Job job;
  ASSERT_TRUE(
      cluster.CtlJson({"job", "create", "--group", absl::StrCat(group.id()), "--handler", "fail",
                       "--manual", "--alarm-webhook", internal.Url(kSecretPath), "--alarm-webhook",
                       absl::StrCat("http://169.254.169.254", kSecretPath)},
                      &job));
  v1::Run run;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline && run.alarm_status().empty()) {
    // Until the executor is routable a trigger is refused; then one run.
    if (run.id() == 0) {
      v1::TriggerJobResponse t;
      if (cluster.CtlJson({"job", "trigger", absl::StrCat(job.id())}, &t)) run.set_id(t.run_ids(0));
    } else {
      v1::GetRunResponse got;
      ASSERT_TRUE(cluster.CtlJson({"run", "get", absl::StrCat(run.id())}, &got));
      if (got.run().status() == v1::RUN_STATUS_FAILED) run = got.run();
    }
    cluster.PollInterval(absl::Milliseconds(100));
  }
  ASSERT_FALSE(run.alarm_status().empty()) << cluster.Output();
  EXPECT_TRUE(absl::StartsWith(run.alarm_status(), "failed")) << run.alarm_status();
  EXPECT_TRUE(absl::StrContains(run.alarm_status(), "not allowed")) << run.alarm_status();
  EXPECT_TRUE(absl::StrContains(run.alarm_status(), "169.254.169.254")) << run.alarm_status();
  EXPECT_TRUE(internal.requests().empty()) << "a webhook reached a loopback service";
  EXPECT_FALSE(absl::StrContains(run.alarm_status(), "SECRET")) << run.alarm_status();
  EXPECT_FALSE(absl::StrContains(cluster.Output(), "SECRET")) << "a webhook's path was logged";
}

}  // namespace
}  // namespace gnomon

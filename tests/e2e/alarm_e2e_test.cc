// Alarms through real processes: a job whose runs fail, with one retry, sends
// one webhook POST and one mail — for the run that failed after its retries,
// not for every attempt (XXL-JOB mails every failed attempt) — and the
// delivery status is recorded on that run.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "services/scheduler/alarm/testing/test_servers.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

using scheduler::alarm::loopback::HttpServer;
using scheduler::alarm::loopback::SmtpSink;

TEST(AlarmE2E, FinallyFailedRunAlarmsOnceByWebhookAndMailAndRecordsIt) {
  HttpServer hook;
  SmtpSink smtp;
  testing::GnomonCluster cluster({absl::StrCat("--smtp-url=smtp://127.0.0.1:", smtp.port()),
                                  "--smtp-from=gnomon@example.test",
                                  // The receiver is on loopback, refused by default.
                                  "--alarm-webhook-allow=127.0.0.1"});
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "alarm-app"}, &group));
  auto executor = cluster.StartExecutor("alarm-app", group.access_token());
  ASSERT_TRUE(executor->WaitForLine("started as", absl::Seconds(30))) << executor->Output();

  v1::Job job;
  ASSERT_TRUE(cluster.CtlJson(
      {"job", "create", "--group", absl::StrCat(group.id()), "--handler", "fail", "--manual",
       "--retries", "1", "--retry-delay", "100ms", "--desc", "nightly billing", "--alarm-webhook",
       hook.Url("/gnomon-alarm"), "--alarm-email", "ops@example.test"},
      &job));
  // Trigger until a run reaches the executor (it may not be routable at once).
  v1::Run final_run;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline && final_run.id() == 0) {
    v1::TriggerJobResponse t;
    ASSERT_TRUE(cluster.CtlJson({"job", "trigger", absl::StrCat(job.id())}, &t));
    while (absl::Now() < deadline) {
      v1::ListRunsResponse runs;
      ASSERT_TRUE(cluster.CtlJson({"run", "list", "--job", absl::StrCat(job.id())}, &runs));
      bool chain_done = false;
      for (const v1::Run& r : runs.runs()) {
        if (r.first_run_id() == t.run_ids(0) && r.attempt() == 1 &&
            r.status() == v1::RUN_STATUS_FAILED) {
          if (!r.alarm_status().empty()) final_run = r;
          chain_done = true;
        }
      }
      if (final_run.id() != 0) break;
      if (chain_done) {
        cluster.PollInterval(absl::Milliseconds(100));  // Waiting for the alarm's status.
        continue;
      }
      cluster.PollInterval(absl::Milliseconds(100));
    }
  }
  ASSERT_NE(final_run.id(), 0) << cluster.Output();
  EXPECT_NE(final_run.alarm_status().find("sent"), std::string::npos) << final_run.alarm_status();
  EXPECT_NE(final_run.alarm_status().find("webhook"), std::string::npos)
      << final_run.alarm_status();
  EXPECT_NE(final_run.alarm_status().find("email"), std::string::npos) << final_run.alarm_status();

  // One POST and one mail, about the final attempt.
  const std::vector<HttpServer::Request> posts = hook.requests();
  ASSERT_EQ(posts.size(), 1u) << final_run.alarm_status();
  const HttpServer::Request& post = posts[0];
  EXPECT_EQ(post.method, "POST");
  EXPECT_EQ(post.target, "/gnomon-alarm");
  EXPECT_NE(post.body.find(absl::StrCat("\"run_id\":", final_run.id())), std::string::npos)
      << post.body;
  const std::vector<SmtpSink::Mail> mails = smtp.mails();
  ASSERT_EQ(mails.size(), 1u);
  const SmtpSink::Mail& mail = mails[0];
  ASSERT_EQ(mail.rcpt_to.size(), 1u);
  EXPECT_NE(mail.rcpt_to[0].find("ops@example.test"), std::string::npos);
  EXPECT_NE(mail.data.find(absl::StrCat("job ", job.id(), " failed: nightly billing")),
            std::string::npos)
      << mail.data;

  // The first attempt raised nothing.
  v1::GetRunResponse first;
  ASSERT_TRUE(cluster.CtlJson({"run", "get", absl::StrCat(final_run.first_run_id())}, &first));
  EXPECT_EQ(first.run().alarm_status(), "");
}

}  // namespace
}  // namespace gnomon

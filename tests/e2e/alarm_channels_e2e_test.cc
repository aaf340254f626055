// Alarm channels through real processes: a Slack-kind channel pointed at a
// local receiver is shown by its url's origin only and never its secret;
// TestAlarmChannel posts to it; a job naming it with alarm.on BOTH and an
// hour's silence alarms its first failure at once and folds the next ones
// (no second post within the silence), a job alarming on success posts
// when its run succeeds, a channel a job names is not deleted, and a job
// naming no such channel is refused.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/scheduler/alarm/testing/test_servers.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

using google::protobuf::util::TimeUtil;
using scheduler::alarm::loopback::HttpServer;

class AlarmChannelsE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    admin_ = v1::JobAdmin::NewStub(
        grpc::CreateChannel(cluster_.address(), grpc::InsecureChannelCredentials()));
    ASSERT_TRUE(cluster_.CtlJson({"group", "create", "chat-app"}, &group_));
    executor_ = cluster_.StartExecutor("chat-app", group_.access_token());
    ASSERT_TRUE(executor_->WaitForLine("started as", absl::Seconds(30))) << executor_->Output();
  }
  std::unique_ptr<grpc::ClientContext> Ctx() const { return cluster_.AdminContext(); }
  // The posts the receiver got whose body mentions `text`.
  std::vector<HttpServer::Request> PostsWith(const std::string& text) const {
    std::vector<HttpServer::Request> out;
    for (const HttpServer::Request& r : slack_.requests()) {
      if (absl::StrContains(r.body, text)) out.push_back(r);
    }
    return out;
  }
  // Waits (30 s at most) for `n` posts mentioning `text`.
  std::vector<HttpServer::Request> AwaitPosts(const std::string& text, size_t n) {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    std::vector<HttpServer::Request> got = PostsWith(text);
    while (got.size() < n && absl::Now() < deadline) {
      cluster_.PollInterval(absl::Milliseconds(100));
      got = PostsWith(text);
    }
    return got;
  }
  v1::Job ManualJob(const std::string& name, const std::string& handler, v1::AlarmOn on) {
    v1::CreateJobRequest create;
    v1::Job& j = *create.mutable_job();
    j.set_group_id(group_.id());
    j.set_name(name);
    j.mutable_bean()->set_handler(handler);
    j.mutable_alarm()->add_channels("ops-slack");
    j.mutable_alarm()->set_on(on);
    *j.mutable_alarm()->mutable_silence() = TimeUtil::SecondsToDuration(3600);
    v1::Job job;
    grpc::Status s = admin_->CreateJob(Ctx().get(), create, &job);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return job;
  }
  void Trigger(int64_t job_id) {
    v1::TriggerJobRequest t;
    t.set_job_id(job_id);
    v1::TriggerJobResponse out;
    grpc::Status s = admin_->TriggerJob(Ctx().get(), t, &out);
    EXPECT_TRUE(s.ok()) << s.error_message();
  }

  HttpServer slack_;
  // The receiver is on loopback, refused by default.
  testing::GnomonCluster cluster_{{"--alarm-webhook-allow=127.0.0.1"}};
  std::unique_ptr<v1::JobAdmin::Stub> admin_;
  v1::Group group_;
  std::unique_ptr<testing::Subprocess> executor_;
};

TEST_F(AlarmChannelsE2E, AChannelShowsNoSecretsTestsDeliversAndSilenceFoldsAFlood) {
  v1::CreateAlarmChannelRequest create;
  v1::AlarmChannel& c = *create.mutable_channel();
  c.set_name("ops-slack");
  c.set_kind(v1::SLACK);
  c.set_url(slack_.Url("/services/T000/B000/very-secret-path"));
  v1::AlarmChannel created;
  grpc::Status s = admin_->CreateAlarmChannel(Ctx().get(), create, &created);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(created.url(), absl::StrCat("http://127.0.0.1:", slack_.port(), "/..."));
  v1::ListAlarmChannelsResponse list;
  ASSERT_TRUE(admin_->ListAlarmChannels(Ctx().get(), {}, &list).ok());
  ASSERT_EQ(list.channels_size(), 1);
  EXPECT_EQ(list.channels(0).ShortDebugString().find("very-secret-path"), std::string::npos);

  v1::TestAlarmChannelRequest test;
  test.set_name("ops-slack");
  v1::TestAlarmChannelResponse tested;
  ASSERT_TRUE(admin_->TestAlarmChannel(Ctx().get(), test, &tested).ok());
  EXPECT_TRUE(tested.delivered()) << tested.error();
  ASSERT_EQ(PostsWith("a test message").size(), 1u);
  const HttpServer::Request first = PostsWith("a test message")[0];
  EXPECT_EQ(first.target, "/services/T000/B000/very-secret-path");
  EXPECT_TRUE(absl::StartsWith(first.body, "{\"text\":\"")) << first.body;

  // Failures: the first alarm at once, the next ones folded into the hour's silence.
  const v1::Job failing = ManualJob("flaky-import", "fail", v1::ALARM_ON_BOTH);
  Trigger(failing.id());
  ASSERT_EQ(AwaitPosts("flaky-import", 1).size(), 1u) << cluster_.Output();
  EXPECT_TRUE(absl::StrContains(PostsWith("flaky-import")[0].body, "failed"));
  Trigger(failing.id());
  Trigger(failing.id());
  // Both runs end (their alarms raised) without a post.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  int ended = 0;
  while (ended < 3 && absl::Now() < deadline) {
    cluster_.PollInterval(absl::Milliseconds(100));
    v1::ListRunsRequest lr;
    lr.set_job_id(failing.id());
    v1::ListRunsResponse runs;
    ASSERT_TRUE(admin_->ListRuns(Ctx().get(), lr, &runs).ok());
    ended = 0;
    for (const v1::Run& r : runs.runs()) ended += r.status() == v1::RUN_STATUS_FAILED;
  }
  ASSERT_EQ(ended, 3);
  cluster_.PollInterval(absl::Seconds(1));  // A post would come at once: none does.
  EXPECT_EQ(PostsWith("flaky-import").size(), 1u);

  // Successes alarm when asked to.
  const v1::Job done = ManualJob("nightly-report", "noop", v1::ALARM_ON_SUCCESS);
  Trigger(done.id());
  const std::vector<HttpServer::Request> ok = AwaitPosts("nightly-report", 1);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_TRUE(absl::StrContains(ok[0].body, "succeeded")) << ok[0].body;

  // The audit keeps the channel's url as its origin only, and no secret.
  v1::UpdateAlarmChannelRequest update;
  *update.mutable_channel() = created;
  update.mutable_channel()->set_url(slack_.Url("/services/T000/B000/rotated-path"));
  update.mutable_channel()->set_secret("never-shown");
  v1::AlarmChannel updated;
  ASSERT_TRUE(admin_->UpdateAlarmChannel(Ctx().get(), update, &updated).ok());
  EXPECT_TRUE(updated.has_secret());
  EXPECT_TRUE(updated.secret().empty());
  v1::ListAuditRequest audit_req;
  audit_req.set_object("alarm_channel/ops-slack");
  v1::ListAuditResponse audit;
  ASSERT_TRUE(admin_->ListAudit(Ctx().get(), audit_req, &audit).ok());
  ASSERT_EQ(audit.entries_size(), 2) << audit.ShortDebugString();  // Created, updated.
  for (const v1::AuditEntry& e : audit.entries()) {
    for (const char* secret : {"very-secret-path", "rotated-path", "never-shown"}) {
      EXPECT_EQ(e.ShortDebugString().find(secret), std::string::npos) << secret;
    }
  }

  // Named by a job: not deleted.
  v1::DeleteAlarmChannelRequest del;
  del.set_name("ops-slack");
  v1::DeleteAlarmChannelResponse deleted;
  s = admin_->DeleteAlarmChannel(Ctx().get(), del, &deleted);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION) << s.error_message();
  // Nor may a job name one that does not exist.
  v1::CreateJobRequest bad;
  *bad.mutable_job() = failing;
  bad.mutable_job()->clear_id();
  bad.mutable_job()->set_name("other");
  bad.mutable_job()->mutable_alarm()->set_channels(0, "nope");
  v1::Job refused;
  s = admin_->CreateJob(Ctx().get(), bad, &refused);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_TRUE(absl::StrContains(s.error_message(), "job.alarm.channels[0]")) << s.error_message();
}

}  // namespace
}  // namespace gnomon

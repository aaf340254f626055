#include "services/scheduler/alarm/webhook_channel.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/scheduler/alarm/testing/sample_alarm.h"
#include "services/scheduler/alarm/testing/test_servers.h"

namespace gnomon::scheduler::alarm {
namespace {

using loopback::HttpServer;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

// Webhooks to the test's servers on 127.0.0.1, which the default allow list
// refuses (as it refuses every loopback address).
WebhookOptions LoopbackAllowed(absl::Duration timeout) {
  WebhookOptions o;
  o.timeout = timeout;
  o.allow = *WebhookAllowList("127.0.0.1");
  return o;
}

// testing::SampleAlarm, its description ending in a newline (escaped in the JSON).
Alarm SampleAlarm() {
  Alarm a = testing::SampleAlarm();
  a.job.set_description("nightly \"report\"\n");
  return a;
}

TEST(AlarmJsonTest, HasEveryFieldWithRfc3339TimesAndNullForUnsetOnes) {
  Alarm a = SampleAlarm();
  EXPECT_EQ(AlarmJson(a),
            "{\"job_id\":42,\"job_description\":\"nightly \\\"report\\\"\\n\",\"run_id\":7,"
            "\"first_run_id\":5,\"attempt\":2,\"trigger_type\":\"TRIGGER_TYPE_RETRY\","
            "\"executor_address\":\"10.0.0.3:9999\",\"handle_code\":500,"
            "\"handle_message\":\"boom\",\"scheduled_time\":\"2026-01-02T03:04:05.000Z\","
            "\"end_time\":\"2026-01-02T03:04:06.250Z\",\"reason\":\"retries exhausted\","
            "\"failed_runs\":1,\"failed_since\":null,\"kind\":\"failed\"}");
  a.run.clear_scheduled_time();
  a.run.set_handle_message(std::string("a\x01") + "b");
  std::string json = AlarmJson(a);
  EXPECT_THAT(json, HasSubstr("\"scheduled_time\":null"));
  EXPECT_THAT(json, HasSubstr("\"handle_message\":\"a\\u0001b\""));
}

TEST(AlarmJsonTest, ASummarySaysHowManyRunsItStandsForAndSinceWhen) {
  Alarm a = SampleAlarm();
  a.failed_runs = 57;
  a.failed_since.set_seconds(1767322800);  // 2026-01-02T03:00:00Z
  EXPECT_THAT(
      AlarmJson(a),
      ::testing::EndsWith("\"reason\":\"retries exhausted\","
                          "\"failed_runs\":57,"
                          "\"failed_since\":\"2026-01-02T03:00:00.000Z\",\"kind\":\"failed\"}"));
  EXPECT_EQ(SummaryLine(a),
            "Run 7 is the latest of 57 failed runs of job 42 since 2026-01-02T03:00:00.000Z (their "
            "alarms were folded into this one while earlier alarms of the job were being "
            "delivered).");
  EXPECT_EQ(SummaryLine(SampleAlarm()), "");
}

TEST(WebhookChannelTest, PostsTheJsonDocumentToEveryUrl) {
  HttpServer server;
  Alarm a = SampleAlarm();
  a.job.mutable_alarm()->add_webhook_urls(server.Url("/hook/one"));
  a.job.mutable_alarm()->add_webhook_urls(server.Url("/hook/two"));
  WebhookChannel webhook(LoopbackAllowed(absl::Seconds(10)));
  EXPECT_TRUE(webhook.Wants(a.job));
  ASSERT_TRUE(webhook.Send(a).ok());
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].target, "/hook/one");
  EXPECT_EQ(requests[1].target, "/hook/two");
  for (const auto& r : requests) {
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.headers.at("content-type"), "application/json");
    EXPECT_EQ(r.body, AlarmJson(a));
  }
}

TEST(WebhookChannelTest, WantsOnlyJobsWithWebhookUrls) {
  WebhookChannel webhook(LoopbackAllowed(absl::Seconds(1)));
  v1::Job job;
  EXPECT_FALSE(webhook.Wants(job));
  job.mutable_alarm()->add_emails("ops@example.com");
  EXPECT_FALSE(webhook.Wants(job));
}

TEST(WebhookChannelTest, ANon2xxAnswerIsAnErrorNamingUrlAndStatus) {
  HttpServer server;
  server.SetStatuses({}, 500);
  Alarm a = SampleAlarm();
  a.job.mutable_alarm()->add_webhook_urls(server.Url("/hook"));
  WebhookChannel webhook(LoopbackAllowed(absl::Seconds(10)));
  absl::Status s = webhook.Send(a);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kUnavailable,
                          absl::StrCat(curl::UrlOrigin(server.Url("/hook")), ": HTTP 500")));
}

TEST(WebhookChannelTest, ATransportErrorNamesTheUrl) {
  Alarm a = SampleAlarm();
  std::string url = absl::StrCat("http://127.0.0.1:", loopback::UnusedPort(), "/hook");
  a.job.mutable_alarm()->add_webhook_urls(url);
  WebhookChannel webhook(LoopbackAllowed(absl::Seconds(10)));
  absl::Status s = webhook.Send(a);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kUnavailable,
                          AllOf(StartsWith(curl::UrlOrigin(url) + ": "), HasSubstr("onnect"))));
}

TEST(WebhookChannelTest, AnUnsupportedSchemeIsAPermanentError) {
  Alarm a = SampleAlarm();
  a.job.mutable_alarm()->add_webhook_urls("file:///etc/passwd");
  WebhookChannel webhook(LoopbackAllowed(absl::Seconds(1)));
  EXPECT_THAT(webhook.Send(a), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(WebhookChannelTest, CredentialsAndQueriesStayOutOfErrors) {
  Alarm a = SampleAlarm();
  a.job.mutable_alarm()->add_webhook_urls(
      absl::StrCat("http://user:secret@127.0.0.1:", loopback::UnusedPort(), "/hook?token=secret"));
  WebhookChannel webhook(LoopbackAllowed(absl::Seconds(10)));
  absl::Status s = webhook.Send(a);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), ::testing::Not(HasSubstr("secret")));
}

TEST(WebhookChannelTest, TheSecretPathOfAWebhookStaysOutOfErrors) {
  HttpServer server;
  server.SetStatuses({}, 500);
  Alarm a = SampleAlarm();
  a.job.mutable_alarm()->add_webhook_urls(server.Url("/services/T000/B000/XXXXsecret"));
  WebhookChannel webhook(LoopbackAllowed(absl::Seconds(10)));
  absl::Status s = webhook.Send(a);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), ::testing::Not(HasSubstr("secret")));
}

// Whoever may set a job's webhooks must not reach internal services through
// gnomond: loopback, link-local (cloud metadata) and private addresses are
// refused unless listed, by address or by a name resolving there. A refusal
// is permanent (not retried) and says how to allow it.
TEST(WebhookChannelTest, NonPublicDestinationsAreRefusedByDefault) {
  HttpServer server;
  WebhookOptions o;  // The default list.
  o.resolver = [](const std::string& host) -> absl::StatusOr<std::vector<curl::IpAddress>> {
    if (host == "rebind.example")
      return std::vector<curl::IpAddress>{*curl::IpAddress::Parse("127.0.0.1")};
    return absl::UnavailableError("no such host");
  };
  WebhookChannel webhook(std::move(o));
  for (const std::string& url :
       {server.Url("/hook"), std::string("http://169.254.169.254/latest/meta-data/"),
        std::string("http://10.0.0.7:8080/admin"), std::string("http://[::1]:9/x"),
        absl::StrCat("http://rebind.example:", server.port(), "/hook")}) {
    Alarm a = SampleAlarm();
    a.job.mutable_alarm()->add_webhook_urls(url);
    absl::Status s = webhook.Send(a);
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--alarm-webhook-allow")))
        << url;
  }
  EXPECT_TRUE(server.requests().empty());
}

}  // namespace
}  // namespace gnomon::scheduler::alarm

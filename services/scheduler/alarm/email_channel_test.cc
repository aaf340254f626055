#include "services/scheduler/alarm/email_channel.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/scheduler/alarm/testing/test_servers.h"

namespace gnomon::scheduler::alarm {
namespace {

using loopback::SmtpSink;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

Alarm SampleAlarm() {
  Alarm a;
  a.job.set_id(42);
  a.job.set_description("nightly report");
  a.job.mutable_alarm()->add_emails("ops@example.com");
  a.job.mutable_alarm()->add_emails("dev@example.com");
  a.run.set_id(7);
  a.run.set_first_run_id(5);
  a.run.set_attempt(2);
  a.run.set_trigger_type(v1::TRIGGER_TYPE_CRON);
  a.run.set_executor_address("10.0.0.3:9999");
  a.run.set_handle_code(500);
  // A lone "." line would end the SMTP DATA phase if it were not dot-stuffed.
  a.run.set_handle_message("first line\n.\n.hidden");
  a.run.mutable_end_time()->set_seconds(1767323045);
  a.reason = "retries exhausted";
  return a;
}

EmailOptions OptionsFor(const SmtpSink& sink, SimulatedClock* clock) {
  EmailOptions o;
  o.smtp_url = absl::StrCat("smtp://127.0.0.1:", sink.port());
  o.from = "gnomon@example.com";
  o.timeout = absl::Seconds(10);
  o.clock = clock;
  return o;
}

TEST(EmailChannelTest, SendsOneMailToEveryRecipient) {
  SmtpSink sink;
  SimulatedClock clock(absl::FromUnixSeconds(1767323050));
  EmailChannel email(OptionsFor(sink, &clock));
  Alarm a = SampleAlarm();
  ASSERT_TRUE(email.Wants(a.job));
  absl::Status s = email.Send(a);
  ASSERT_TRUE(s.ok()) << s;
  auto mails = sink.mails();
  ASSERT_EQ(mails.size(), 1u);
  const SmtpSink::Mail& m = mails[0];
  EXPECT_EQ(m.mail_from, "<gnomon@example.com>");
  EXPECT_THAT(m.rcpt_to, ElementsAre("<ops@example.com>", "<dev@example.com>"));
  EXPECT_THAT(m.data, HasSubstr("\r\nSubject: [gnomon] job 42 failed: nightly report\r\n"));
  EXPECT_THAT(m.data, HasSubstr("\r\nTo: ops@example.com, dev@example.com\r\n"));
  EXPECT_THAT(m.data, HasSubstr("From: <gnomon@example.com>\r\n"));
  EXPECT_THAT(m.data, HasSubstr("Date: Fri, 02 Jan 2026 03:04:10 +0000\r\n"));
  EXPECT_THAT(m.data, HasSubstr("Content-Type: text/plain; charset=utf-8\r\n"));
  // The body: every field, the multi-line message intact.
  size_t body = m.data.find("\r\n\r\n");
  ASSERT_NE(body, std::string::npos);
  std::string text = m.data.substr(body + 4);
  EXPECT_THAT(text, HasSubstr("job_id: 42\r\n"));
  EXPECT_THAT(text, HasSubstr("job_description: nightly report\r\n"));
  EXPECT_THAT(text, HasSubstr("run_id: 7\r\n"));
  EXPECT_THAT(text, HasSubstr("first_run_id: 5\r\n"));
  EXPECT_THAT(text, HasSubstr("attempt: 2\r\n"));
  EXPECT_THAT(text, HasSubstr("trigger_type: TRIGGER_TYPE_CRON\r\n"));
  EXPECT_THAT(text, HasSubstr("executor_address: 10.0.0.3:9999\r\n"));
  EXPECT_THAT(text, HasSubstr("handle_code: 500\r\n"));
  EXPECT_THAT(text, HasSubstr("handle_message: first line\r\n.\r\n.hidden\r\n"));
  EXPECT_THAT(text, HasSubstr("end_time: 2026-01-02T03:04:05.000Z\r\n"));
  EXPECT_THAT(text, HasSubstr("reason: retries exhausted\r\n"));
}

TEST(AlarmMailMessageTest, ASummarySaysHowManyRunsInTheSubjectAndTheBody) {
  Alarm a = SampleAlarm();
  a.failed_runs = 57;
  a.failed_since.set_seconds(1767322800);  // 2026-01-02T03:00:00Z
  std::string m = AlarmMailMessage(a, "gnomon@example.com", absl::FromUnixSeconds(0));
  EXPECT_THAT(m, HasSubstr("\r\nSubject: [gnomon] job 42 failed (57 runs): nightly report\r\n"));
  std::string body = m.substr(m.find("\r\n\r\n") + 4);
  EXPECT_THAT(body, ::testing::StartsWith(
                        "Run 7 of job 42 failed and will not be retried: retries exhausted\r\n"
                        "Run 7 is the latest of 57 failed runs of job 42 since "
                        "2026-01-02T03:00:00.000Z"));
  EXPECT_THAT(body, HasSubstr("\r\nfailed_runs: 57\r\n"));
  EXPECT_THAT(body, HasSubstr("\r\nfailed_since: 2026-01-02T03:00:00.000Z\r\n"));
  // The alarm of one run says nothing of the kind.
  m = AlarmMailMessage(SampleAlarm(), "gnomon@example.com", absl::FromUnixSeconds(0));
  EXPECT_THAT(m, HasSubstr("\r\nSubject: [gnomon] job 42 failed: nightly report\r\n"));
  EXPECT_THAT(m, Not(HasSubstr("latest of")));
  EXPECT_THAT(m, HasSubstr("\r\nfailed_runs: 1\r\n"));
}

TEST(EmailChannelTest, AuthenticatesWhenTheServerOffersAuth) {
  SmtpSink sink(/*offer_auth=*/true);
  SimulatedClock clock(absl::FromUnixSeconds(0));
  EmailOptions o = OptionsFor(sink, &clock);
  o.username = "alarm-user";
  o.password = "s3cret";
  EmailChannel email(o);
  absl::Status s = email.Send(SampleAlarm());
  ASSERT_TRUE(s.ok()) << s;
  auto mails = sink.mails();
  ASSERT_EQ(mails.size(), 1u);
  EXPECT_EQ(mails[0].auth_plain, std::string("\0alarm-user\0s3cret", 18));
}

TEST(EmailChannelTest, ARejectedRecipientIsAnErrorWithTheSmtpCode) {
  SmtpSink sink(/*offer_auth=*/false, /*reject_rcpt=*/true);
  SimulatedClock clock(absl::FromUnixSeconds(0));
  EmailChannel email(OptionsFor(sink, &clock));
  absl::Status s = email.Send(SampleAlarm());
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kUnavailable,
                          AllOf(HasSubstr(absl::StrCat("smtp://127.0.0.1:", sink.port(), ": ")),
                                HasSubstr("550"))));
  EXPECT_TRUE(sink.mails().empty());
}

TEST(EmailChannelTest, WantsJobsWithEmailsOnlyWhenConfigured) {
  Alarm a = SampleAlarm();
  EXPECT_FALSE(EmailChannel(EmailOptions{}).Wants(a.job));  // No smtp_url.
  EmailOptions o;
  o.smtp_url = "smtp://127.0.0.1:25";
  EmailChannel email(o);
  EXPECT_TRUE(email.Wants(a.job));
  a.job.mutable_alarm()->clear_emails();
  EXPECT_FALSE(email.Wants(a.job));
}

TEST(EmailChannelTest, AnAddressThatCouldInjectSmtpIsRefused) {
  SmtpSink sink;
  SimulatedClock clock(absl::FromUnixSeconds(0));
  EmailChannel email(OptionsFor(sink, &clock));
  Alarm a = SampleAlarm();
  a.job.mutable_alarm()->add_emails("x@example.com>\r\nRCPT TO:<evil@example.com");
  EXPECT_THAT(email.Send(a), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_TRUE(sink.mails().empty());
}

TEST(AlarmMailMessageTest, NonAsciiSubjectsAreEncodedAndNewlinesCannotAddHeaders) {
  Alarm a = SampleAlarm();
  a.job.set_description("nächtlicher Bericht");
  std::string m = AlarmMailMessage(a, "gnomon@example.com", absl::FromUnixSeconds(0));
  std::string expected_word = absl::StrCat(
      "=?UTF-8?B?", absl::Base64Escape("[gnomon] job 42 failed: nächtlicher Bericht"), "?=");
  EXPECT_THAT(m, HasSubstr("Subject: " + expected_word + "\r\n"));

  a.job.set_description("x\r\nBcc: victim@example.com");
  m = AlarmMailMessage(a, "gnomon@example.com", absl::FromUnixSeconds(0));
  std::string headers = m.substr(0, m.find("\r\n\r\n") + 2);
  EXPECT_THAT(headers,
              HasSubstr("Subject: [gnomon] job 42 failed: x  Bcc: victim@example.com\r\n"));
  EXPECT_THAT(headers, Not(HasSubstr("\r\nBcc:")));
}

TEST(AlarmMailMessageTest, LongLinesAreSplitBelowTheRfcLimit) {
  Alarm a = SampleAlarm();
  a.run.set_handle_message(std::string(5000, 'x'));
  std::string m = AlarmMailMessage(a, "gnomon@example.com", absl::FromUnixSeconds(0));
  size_t start = 0;
  while (start < m.size()) {
    size_t end = m.find("\r\n", start);
    ASSERT_NE(end, std::string::npos);
    EXPECT_LE(end - start, 998u);
    start = end + 2;
  }
}

}  // namespace
}  // namespace gnomon::scheduler::alarm

// gnomonctl alarm-channel ..., --alarm-channel/--alarm-on/--alarm-silence on
// jobs, apply of AlarmChannel documents and get alarm-channel(s), against
// the fake JobAdmin's in-memory channels (fake_alarm_channels.h), which
// answer as the server does: the url's origin only and never the secret.
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/cli_test_fixture.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace gnomon::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using Result = testing::CliResult;

constexpr char kDingTalkUrl[] = "https://oapi.dingtalk.com/robot/send?access_token=abc123";
constexpr char kSlackUrl[] = "https://hooks.slack.com/services/T0/B0/XXXX";
constexpr char kSecret[] = "SECd00dfeed";

class AlarmChannelCliTest : public testing::CliTest {
 protected:
  // Stores "ops-dingtalk" (a url and a signing secret) and "ops-slack".
  void SeedChannels() {
    servers_.state.Set([](testing::AdminState& s) {
      v1::CreateAlarmChannelRequest req;
      v1::AlarmChannel* c = req.mutable_channel();
      c->set_name("ops-dingtalk");
      c->set_kind(v1::DINGTALK);
      c->set_url(kDingTalkUrl);
      c->set_secret(kSecret);
      v1::AlarmChannel shown;
      EXPECT_TRUE(s.alarm_channels.CreateAlarmChannel(req, &shown).ok());
      c->set_name("ops-slack");
      c->set_kind(v1::SLACK);
      c->set_url(kSlackUrl);
      c->clear_secret();
      c->set_template_("{{job_name}} failed: {{reason}}");
      EXPECT_TRUE(s.alarm_channels.CreateAlarmChannel(req, &shown).ok());
    });
  }
  void ClearCalls() {
    servers_.state.Set([](testing::AdminState& s) { s.calls.clear(); });
  }
  std::vector<std::string> Methods() { return servers_.state.Methods(); }
  // As stored: the whole url and the secret.
  v1::AlarmChannel Stored(const std::string& name) {
    return servers_.state.Snapshot().alarm_channels.stored[name];
  }
};

TEST_F(AlarmChannelCliTest, UsageErrorsExitTwoWithoutCallingTheServer) {
  vars_["EMPTY_SECRET"] = "";
  files_["blank.txt"] = "\n";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"alarm-channel"},
           {"alarm-channel", "create"},
           {"alarm-channel", "create", "ops"},  // no --kind
           {"alarm-channel", "create", "ops", "--kind", "teams"},
           {"alarm-channel", "create", "a", "b", "--kind", "slack"},
           {"alarm-channel", "create", "ops", "--kind", "slack", "--url", ""},
           {"alarm-channel", "create", "ops", "--kind", "slack", "--secret", "x"},  // no such flag
           {"alarm-channel", "create", "ops", "--kind", "dingtalk", "--secret-env", "NO_SUCH_VAR"},
           {"alarm-channel", "create", "ops", "--kind", "dingtalk", "--secret-env", "EMPTY_SECRET"},
           {"alarm-channel", "create", "ops", "--kind", "dingtalk", "--secret-file", "nope.txt"},
           {"alarm-channel", "create", "ops", "--kind", "dingtalk", "--secret-file", "blank.txt"},
           {"alarm-channel", "create", "ops", "--kind", "dingtalk", "--secret-env", "EMPTY_SECRET",
            "--secret-file", "blank.txt"},
           {"alarm-channel", "create", "ops", "--kind", "slack", "--template", "x",
            "--template-file", "t.txt"},
           {"alarm-channel", "create", "ops", "--kind", "slack", "--template-file", "nope.txt"},
           {"alarm-channel", "get"},
           {"alarm-channel", "get", ""},
           {"alarm-channel", "list", "ops"},
           {"alarm-channel", "update", "ops"},
           {"alarm-channel", "update", "ops", "--kind", "pager"},
           {"alarm-channel", "delete"},
           {"alarm-channel", "test"},
           {"get", "alarm-channel"},
           {"get", "alarm-channels", "ops"},
           {"job", "create", "--group", "1", "--handler", "h", "--manual", "--alarm-on", "always"},
           {"job", "create", "--group", "1", "--handler", "h", "--manual", "--alarm-silence", "x"},
           {"job", "create", "--group", "1", "--handler", "h", "--manual", "--alarm-silence",
            "-5m"},
       }) {
    Result r = Run(args);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args) << r.err;
    EXPECT_THAT(r.err, HasSubstr("--help")) << r.err;
    EXPECT_THAT(r.out, IsEmpty());
  }
  EXPECT_THAT(Methods(), IsEmpty());
}

TEST_F(AlarmChannelCliTest, UsageErrorsSayWhatIsWrong) {
  vars_["EMPTY_SECRET"] = "";
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"alarm-channel", "create", "ops"},
            "an alarm channel needs --kind dingtalk|wecom|feishu|slack|telegram"},
           {{"alarm-channel", "create", "ops", "--kind", "Teams"},
            "--kind: unknown alarm channel kind 'teams'; use one of dingtalk, wecom, feishu, "
            "slack, telegram"},
           {{"alarm-channel", "create", "ops", "--kind", "dingtalk", "--secret-env", "NO_SUCH"},
            "--secret-env: environment variable NO_SUCH is not set"},
           {{"alarm-channel", "create", "ops", "--kind", "dingtalk", "--secret-env",
             "EMPTY_SECRET"},
            "--secret-env: environment variable EMPTY_SECRET is empty"},
           {{"alarm-channel", "create", "ops", "--kind", "dingtalk", "--secret-file", "nope"},
            "--secret-file: cannot read nope"},
           {{"alarm-channel", "create", "ops", "--kind", "slack", "--url", ""}, "--url is empty"},
           {{"alarm-channel", "update", "ops"},
            "nothing to change: give --kind, --url, --secret-env, --secret-file, --chat-id, "
            "--template or --template-file"},
           {{"job", "update", "7", "--alarm-on", "always"},
            "--alarm-on: unknown alarm-on value 'always'; use one of failure, success, both"},
       }) {
    Result r = Run(args);
    EXPECT_EQ(r.code, 2) << ::testing::PrintToString(args);
    EXPECT_THAT(r.err, HasSubstr(message)) << ::testing::PrintToString(args);
  }
}

TEST_F(AlarmChannelCliTest, HelpListsTheVerbsAndTheJobFlags) {
  Result r = Run({"alarm-channel", "--help"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* verb : {"create", "list", "get", "update", "delete", "test"}) {
    EXPECT_THAT(r.out, HasSubstr(absl::StrCat("alarm-channel ", verb, " "))) << verb;
  }
  r = Run({"alarm-channel", "create", "--help"});
  EXPECT_THAT(r.out, HasSubstr("--secret-env VAR"));
  EXPECT_THAT(r.out, HasSubstr("--secret-file PATH"));
  EXPECT_THAT(r.out, Not(HasSubstr("--secret ")));
  EXPECT_THAT(r.out, HasSubstr("Examples:"));
  r = Run({"job", "create", "--help"});
  EXPECT_THAT(r.out, HasSubstr("--alarm-channel NAME,..."));
  EXPECT_THAT(r.out, HasSubstr("--alarm-on WHEN"));
  EXPECT_THAT(r.out, HasSubstr("--alarm-silence DUR"));
}

TEST_F(AlarmChannelCliTest, CreateReadsTheSecretFromTheEnvironmentAndNeverPrintsIt) {
  vars_["DINGTALK_SECRET"] = kSecret;
  Result r =
      Run({"alarm-channel", "create", "ops-dingtalk", "--kind", "DingTalk", "--url", kDingTalkUrl,
           "--secret-env", "DINGTALK_SECRET", "--template", "{{job_name}}: {{reason}}"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("CreateAlarmChannel"));
  const v1::AlarmChannel sent =
      servers_.state.Last<v1::CreateAlarmChannelRequest>("CreateAlarmChannel").channel();
  EXPECT_EQ(sent.name(), "ops-dingtalk");
  EXPECT_EQ(sent.kind(), v1::DINGTALK);
  EXPECT_EQ(sent.url(), kDingTalkUrl);
  EXPECT_EQ(sent.secret(), kSecret);
  EXPECT_EQ(sent.template_(), "{{job_name}}: {{reason}}");
  EXPECT_EQ(r.out,
            "name:      ops-dingtalk\n"
            "kind:      dingtalk\n"
            "url:       https://oapi.dingtalk.com/... (its origin only)\n"
            "secret:    stored (never shown)\n"
            "chat id:   -\n"
            "template:  {{job_name}}: {{reason}}\n"
            "created:   2024-05-01T12:00:00.000+00:00\n"
            "updated:   2024-05-01T12:00:00.000+00:00\n");
  EXPECT_THAT(r.out + r.err, Not(HasSubstr(kSecret)));
  EXPECT_THAT(r.out + r.err, Not(HasSubstr("access_token")));

  // A Telegram bot's token from a file (its newline dropped), the template
  // from another; -o json shows what the API answers: no secret.
  files_["tg.token"] = "123456:ABC-DEF\n";
  files_["alarm.txt"] = "*{{job_name}}* failed\n{{reason}}\n";
  r = Run({"alarm-channel", "create", "oncall-tg", "--kind", "telegram", "--secret-file",
           "tg.token", "--chat-id", "-1001234567890", "--template-file", "alarm.txt", "-o",
           "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Stored("oncall-tg").secret(), "123456:ABC-DEF");
  EXPECT_EQ(Stored("oncall-tg").template_(), "*{{job_name}}* failed\n{{reason}}\n");
  EXPECT_EQ(Stored("oncall-tg").chat_id(), "-1001234567890");
  v1::AlarmChannel shown;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &shown).ok()) << r.out;
  EXPECT_TRUE(shown.has_secret());
  EXPECT_EQ(shown.secret(), "");
  EXPECT_THAT(r.out, Not(HasSubstr("123456:ABC-DEF")));

  // The server's refusals pass through with their exit class.
  r = Run({"alarm-channel", "create", "ops-dingtalk", "--kind", "slack", "--url", kSlackUrl});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err,
              HasSubstr("ALREADY_EXISTS: channel.name: an alarm channel is named 'ops-dingtalk'"));
}

TEST_F(AlarmChannelCliTest, ListShowsOriginsAndWhetherASecretIsStoredAndGetTheTemplate) {
  SeedChannels();
  ClearCalls();
  Result r = Run({"alarm-channel", "list"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("ListAlarmChannels"));
  EXPECT_EQ(r.out,
            "NAME          KIND      URL                            SECRET  CHAT  TEMPLATE\n"
            "ops-dingtalk  dingtalk  https://oapi.dingtalk.com/...  yes     -     default\n"
            "ops-slack     slack     https://hooks.slack.com/...    no      -     custom\n");

  r = Run({"alarm-channel", "list", "-o", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::ListAlarmChannelsResponse listed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &listed).ok()) << r.out;
  ASSERT_EQ(listed.channels_size(), 2);
  EXPECT_EQ(listed.channels(0).url(), "https://oapi.dingtalk.com/...");
  EXPECT_THAT(r.out, Not(HasSubstr(kSecret)));

  r = Run({"alarm-channel", "get", "ops-slack"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(servers_.state.Last<v1::GetAlarmChannelRequest>("GetAlarmChannel").name(), "ops-slack");
  EXPECT_THAT(r.out, HasSubstr("url:       https://hooks.slack.com/... (its origin only)\n"));
  EXPECT_THAT(r.out, HasSubstr("secret:    none\n"));
  EXPECT_THAT(r.out, HasSubstr("template:  {{job_name}} failed: {{reason}}\n"));

  r = Run({"alarm-channel", "get", "ops-dingtalk", "-o", "yaml"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("kind: DINGTALK\n"));
  EXPECT_THAT(r.out, Not(HasSubstr(kSecret)));

  r = Run({"alarm-channel", "get", "pager"});
  EXPECT_EQ(r.code, 3);  // NOT_FOUND
  EXPECT_THAT(r.err, HasSubstr("no alarm channel is named 'pager'"));
}

TEST_F(AlarmChannelCliTest, UpdateChangesTheGivenFieldsAndLeavesUrlAndSecretToTheServer) {
  SeedChannels();
  ClearCalls();
  Result r = Run({"alarm-channel", "update", "ops-dingtalk", "--template", "{{summary}}"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(Methods(), ElementsAre("GetAlarmChannel", "UpdateAlarmChannel"));
  v1::AlarmChannel sent =
      servers_.state.Last<v1::UpdateAlarmChannelRequest>("UpdateAlarmChannel").channel();
  EXPECT_EQ(sent.name(), "ops-dingtalk");
  EXPECT_EQ(sent.kind(), v1::DINGTALK);
  EXPECT_EQ(sent.template_(), "{{summary}}");
  // Not the origin Get showed: that would replace the stored url.
  EXPECT_EQ(sent.url(), "");
  EXPECT_EQ(sent.secret(), "");
  EXPECT_EQ(Stored("ops-dingtalk").url(), kDingTalkUrl);
  EXPECT_EQ(Stored("ops-dingtalk").secret(), kSecret);
  EXPECT_THAT(r.out, HasSubstr("template:  {{summary}}\n"));
  EXPECT_THAT(r.out, HasSubstr("secret:    stored (never shown)\n"));

  // A new url and secret replace the stored ones; '' is the default template.
  files_["new.secret"] = "SECnew\n";
  r = Run({"alarm-channel", "update", "ops-dingtalk", "--url",
           "https://oapi.dingtalk.com/robot/send?access_token=rotated", "--secret-file",
           "new.secret", "--template", ""});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Stored("ops-dingtalk").url(),
            "https://oapi.dingtalk.com/robot/send?access_token=rotated");
  EXPECT_EQ(Stored("ops-dingtalk").secret(), "SECnew");
  EXPECT_EQ(Stored("ops-dingtalk").template_(), "");
  EXPECT_THAT(r.out, HasSubstr("template:  default\n"));

  ClearCalls();
  r = Run({"alarm-channel", "update", "pager", "--chat-id", "1"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(Methods(), ElementsAre("GetAlarmChannel"));
}

TEST_F(AlarmChannelCliTest, DeleteIsRefusedWhileAJobNamesTheChannel) {
  SeedChannels();
  servers_.state.Set([](testing::AdminState& s) { s.alarm_channels.in_use.insert("ops-slack"); });
  Result r = Run({"alarm-channel", "delete", "ops-slack"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("FAILED_PRECONDITION: alarm channel 'ops-slack' is named by job 7"));
  EXPECT_EQ(Stored("ops-slack").name(), "ops-slack");

  servers_.state.Set([](testing::AdminState& s) { s.alarm_channels.in_use.clear(); });
  r = Run({"alarm-channel", "delete", "ops-slack"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "deleted alarm channel ops-slack\n");
  EXPECT_EQ(servers_.state.Last<v1::DeleteAlarmChannelRequest>("DeleteAlarmChannel").name(),
            "ops-slack");
  EXPECT_EQ(servers_.state.Snapshot().alarm_channels.stored.count("ops-slack"), 0u);
}

TEST_F(AlarmChannelCliTest, TestPrintsDeliveredOrTheServicesAnswerAndExitsOneWhenNotDelivered) {
  SeedChannels();
  Result r = Run({"alarm-channel", "test", "ops-dingtalk"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "delivered\n");
  EXPECT_EQ(servers_.state.Last<v1::TestAlarmChannelRequest>("TestAlarmChannel").name(),
            "ops-dingtalk");

  servers_.state.Set([](testing::AdminState& s) {
    s.alarm_channels.test_answer.set_delivered(false);
    s.alarm_channels.test_answer.set_error(
        "https://oapi.dingtalk.com/...: errcode 310000: sign not match");
  });
  r = Run({"alarm-channel", "test", "ops-dingtalk"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, IsEmpty());
  EXPECT_THAT(r.err, HasSubstr("not delivered: https://oapi.dingtalk.com/...: errcode 310000: "
                               "sign not match"));
  // -o json prints the answer, and still exits 1.
  r = Run({"alarm-channel", "test", "ops-dingtalk", "-o", "json"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("sign not match"));

  r = Run({"alarm-channel", "test", "pager"});
  EXPECT_EQ(r.code, 3);
}

TEST_F(AlarmChannelCliTest, JobsNameChannelsWhenToAlarmAndASilence) {
  SeedChannels();
  Result r = Run({"job", "create", "--group", "1", "--handler", "settle", "--every", "1m",
                  "--alarm-channel", "ops-dingtalk", "--alarm-channel", "ops-slack", "--alarm-on",
                  "Both", "--alarm-silence", "10m"});
  ASSERT_EQ(r.code, 0) << r.err;
  v1::AlarmTargets sent = servers_.state.Last<v1::CreateJobRequest>("CreateJob").job().alarm();
  EXPECT_THAT(sent.channels(), ElementsAre("ops-dingtalk", "ops-slack"));
  EXPECT_EQ(sent.on(), v1::ALARM_ON_BOTH);
  EXPECT_EQ(sent.silence().seconds(), 600);
  EXPECT_THAT(r.out, HasSubstr("alarm channels:  ops-dingtalk,ops-slack\n"));
  EXPECT_THAT(r.out, HasSubstr("alarm on:        both\n"));
  EXPECT_THAT(r.out, HasSubstr("alarm silence:   10m\n"));

  // A channel no one defined: the server's NOT_FOUND names the entry.
  r = Run({"job", "create", "--group", "1", "--handler", "settle", "--manual", "--alarm-channel",
           "ops-slack,pager"});
  EXPECT_EQ(r.code, 3);
  EXPECT_THAT(r.err, HasSubstr("job.alarm.channels[1]: no alarm channel is named 'pager' "
                               "(gnomonctl alarm-channel list)"));

  // update: only the given alarm flags change; '' and 0 clear.
  servers_.state.Set([&](testing::AdminState& s) {
    testing::SeedEtlMerge(s);
    *s.job.mutable_alarm() = sent;
    s.job.mutable_alarm()->add_emails("ops@example.test");
  });
  r = Run({"job", "update", "7", "--alarm-channel", "ops-slack", "--alarm-on", "failure"});
  ASSERT_EQ(r.code, 0) << r.err;
  sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job().alarm();
  EXPECT_THAT(sent.channels(), ElementsAre("ops-slack"));
  EXPECT_EQ(sent.on(), v1::ALARM_ON_FAILURE);
  EXPECT_EQ(sent.silence().seconds(), 600);
  EXPECT_THAT(sent.emails(), ElementsAre("ops@example.test"));
  r = Run({"job", "update", "7", "--alarm-channel", "", "--alarm-silence", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  sent = servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job().alarm();
  EXPECT_THAT(sent.channels(), IsEmpty());
  EXPECT_FALSE(sent.has_silence());
  EXPECT_EQ(sent.on(), v1::ALARM_ON_BOTH);  // The job's, kept.

  // job get: an unspecified `on` is FAILURE, as the server reads it.
  servers_.state.Set([](testing::AdminState& s) { s.job.clear_alarm(); });
  r = Run({"job", "get", "7"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("alarm channels:  -\n"));
  EXPECT_THAT(r.out, HasSubstr("alarm on:        failure\n"));
  EXPECT_THAT(r.out, HasSubstr("alarm silence:   -\n"));
}

// The channel document comes after the job naming it: applied first anyway.
constexpr char kOps[] = R"(kind: Job
app: etl
job:
  name: merge
  bean: {handler: merge}
  alarm:
    channels: [ops-slack]
    on: ALARM_ON_BOTH
    silence: 300s
---
kind: AlarmChannel
alarmChannel:
  name: ops-slack
  kind: SLACK
  url: https://hooks.slack.com/services/T0/B0/XXXX
)";

TEST_F(AlarmChannelCliTest, ApplyCreatesChannelsBeforeTheJobsThatNameThem) {
  servers_.state.Set([](testing::AdminState& s) { testing::SeedEtlMerge(s); });
  Result r = ApplyText(kOps);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "alarm-channel/ops-slack created\njob/etl/merge configured\n");
  EXPECT_THAT(Methods(), ElementsAre("GetAlarmChannel", "CreateAlarmChannel", "ListGroups",
                                     "GetJob", "UpdateJob"));
  EXPECT_EQ(Stored("ops-slack").url(), kSlackUrl);
  const v1::AlarmTargets sent =
      servers_.state.Last<v1::UpdateJobRequest>("UpdateJob").job().alarm();
  EXPECT_THAT(sent.channels(), ElementsAre("ops-slack"));
  EXPECT_EQ(sent.on(), v1::ALARM_ON_BOTH);
  EXPECT_EQ(sent.silence().seconds(), 300);

  // Again: the whole url cannot be compared with the origin the API shows,
  // so it is sent again; nothing else changes.
  servers_.state.Set([&](testing::AdminState& s) { *s.job.mutable_alarm() = sent; });
  r = ApplyText(kOps);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "alarm-channel/ops-slack configured\njob/etl/merge unchanged\n");
  EXPECT_EQ(Stored("ops-slack").url(), kSlackUrl);
  EXPECT_EQ(Stored("ops-slack").id(), 1);
}

TEST_F(AlarmChannelCliTest, GetAlarmChannelPrintsNoSecretAndAppliesBackKeepingUrlAndSecret) {
  SeedChannels();
  Result r = Run({"get", "alarm-channel", "ops-dingtalk"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("kind: AlarmChannel\n"));
  EXPECT_THAT(r.out, HasSubstr("  name: ops-dingtalk\n"));
  EXPECT_THAT(r.out, HasSubstr("  url: https://oapi.dingtalk.com/...\n"));
  EXPECT_THAT(r.out, HasSubstr("  has_secret: true\n"));
  EXPECT_THAT(r.out, Not(HasSubstr(kSecret)));
  EXPECT_THAT(r.out, Not(HasSubstr("createTime")));
  const std::string exported = r.out;
  r = ApplyText(exported);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "alarm-channel/ops-dingtalk unchanged\n");
  EXPECT_THAT(Methods(), ElementsAre("GetAlarmChannel", "ListGroups"));

  // An edit is sent without the url and secret: the stored ones stay.
  std::string edited = exported;
  edited.replace(edited.find("template: \"\""), 12, "template: \"{{summary}}\"");
  r = ApplyText(edited);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "alarm-channel/ops-dingtalk configured\n");
  const v1::AlarmChannel sent =
      servers_.state.Last<v1::UpdateAlarmChannelRequest>("UpdateAlarmChannel").channel();
  EXPECT_EQ(sent.url(), "");
  EXPECT_EQ(sent.secret(), "");
  EXPECT_EQ(Stored("ops-dingtalk").url(), kDingTalkUrl);
  EXPECT_EQ(Stored("ops-dingtalk").secret(), kSecret);
  EXPECT_EQ(Stored("ops-dingtalk").template_(), "{{summary}}");

  // A document with a secret sends it (apply cannot see the stored one).
  r = ApplyText(
      "kind: AlarmChannel\nalarmChannel: {name: ops-dingtalk, kind: DINGTALK, "
      "secret: SECother, template: \"{{summary}}\"}\n");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "alarm-channel/ops-dingtalk configured\n");
  EXPECT_EQ(Stored("ops-dingtalk").secret(), "SECother");
  EXPECT_EQ(Stored("ops-dingtalk").url(), kDingTalkUrl);

  r = Run({"get", "alarm-channels"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  name: ops-slack\n"));
  EXPECT_THAT(r.out, HasSubstr("---\n"));
  r = ApplyText(r.out);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "alarm-channel/ops-dingtalk unchanged\nalarm-channel/ops-slack unchanged\n");

  r = Run({"get", "alarm-channel", "pager"});
  EXPECT_EQ(r.code, 3);
}

TEST_F(AlarmChannelCliTest, ApplyRefusesBadChannelDocumentsBeforeAnythingChanges) {
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {"kind: AlarmChannel\nalarmChannel: {kind: SLACK}\n", "alarm_channel.name is required"},
           {"kind: AlarmChannel\napp: etl\nalarmChannel: {name: x}\n",
            "app: alarm channels belong to no group"},
           {"kind: AlarmChannel\nalarmChannel: {name: x}\n---\nkind: AlarmChannel\n"
            "alarmChannel: {name: x}\n",
            "alarm channel x is declared twice"},
           {"kind: AlarmChannel\nalarmChannel: {name: x, kind: PAGER}\n", "PAGER"},
       }) {
    Result r = ApplyText(text);
    EXPECT_EQ(r.code, 2) << text;
    EXPECT_THAT(r.err, HasSubstr(message)) << text;
    EXPECT_THAT(Methods(), IsEmpty()) << text;
  }
}

TEST_F(AlarmChannelCliTest, ApplyRefusesToCreateARobotFromTheOriginGetPrints) {
  // What `get alarm-channel` printed on another cluster: the origin only.
  for (const char* url : {"https://hooks.slack.com/...", "https://hooks.slack.com"}) {
    Result r = ApplyText(absl::StrCat(
        "kind: AlarmChannel\nalarm_channel: {name: ops, kind: SLACK, url: \"", url, "\"}\n"));
    EXPECT_EQ(r.code, 1);
    EXPECT_THAT(r.err, HasSubstr(absl::StrCat("alarm_channel.url: ", url, " is an origin only")));
    EXPECT_THAT(Methods(), ElementsAre("GetAlarmChannel"));
  }
  // Telegram's url is the Bot API's origin.
  Result r = ApplyText(
      "kind: AlarmChannel\nalarmChannel: {name: tg, kind: TELEGRAM, url: "
      "\"https://api.telegram.org\", secret: \"1:x\", chatId: \"42\"}\n");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "alarm-channel/tg created\n");
}

}  // namespace
}  // namespace gnomon::cli

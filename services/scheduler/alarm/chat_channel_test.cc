#include "services/scheduler/alarm/chat_channel.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/scheduler/alarm/testing/sample_alarm.h"
#include "services/scheduler/alarm/testing/test_servers.h"

namespace gnomon::scheduler::alarm {
namespace {

using testing::SampleAlarm;

using loopback::HttpServer;
using ::testing::HasSubstr;
using ::testing::Not;

// The alarm every test sends is testing::SampleAlarm; its text from the
// default template (as docs/alarms.md shows it):

constexpr char kSampleText[] =
    "[gnomon] job nightly-report (id 42) failed: retries exhausted\n"
    "run: 7 (attempt 2)\n"
    "executor: 10.0.0.3:9999\n"
    "handle code: 500\n"
    "message: boom\n"
    "scheduled: 2026-01-02T03:04:05.000Z";
// kSampleText as a JSON string.
constexpr char kSampleJson[] =
    R"("[gnomon] job nightly-report (id 42) failed: retries exhausted\nrun: 7 (attempt 2)\n)"
    R"(executor: 10.0.0.3:9999\nhandle code: 500\nmessage: boom\n)"
    R"(scheduled: 2026-01-02T03:04:05.000Z")";

// Signing time: 2026-01-02T03:04:10.123Z.
const absl::Time kNow = absl::FromUnixMillis(1767323050123);

// Signatures computed independently when this test was written, as the
// services document them (docs/alarms.md quotes the same examples):
//   printf '%s\n%s' 1767323050123 SEC0123456789abcdef |
//     openssl dgst -sha256 -hmac SEC0123456789abcdef -binary | base64
constexpr char kDingTalkSecret[] = "SEC0123456789abcdef";
constexpr char kDingTalkSign[] =
    "5kBeJJOKOyO16sCZuo%2FlbsE%2FzrLyIQNGOwCL2enGa%2FM%3D";  // urlencoded
//   key=$(printf '%s\n%s' 1767323050 feishu-secret-0123)
//   printf '' | openssl dgst -sha256 -hmac "$key" -binary | base64
constexpr char kFeishuSecret[] = "feishu-secret-0123";
constexpr char kFeishuSign[] = "NalraCdH9sLsAnitons+HXVL+w06WZITMs6yX5yQ77E=";

constexpr char kTelegramToken[] = "123456:ABC-def_ghi";

class ChatChannelTest : public ::testing::Test {
 protected:
  // Posts to the test's servers on 127.0.0.1, which the default allow list
  // refuses (as it refuses every loopback address).
  ChatOptions Options() {
    ChatOptions o;
    o.timeout = absl::Seconds(10);
    o.allow = *WebhookAllowList("127.0.0.1");
    o.clock = &clock_;
    return o;
  }
  FindAlarmChannel Find() {
    return [this](const std::string& name) -> absl::StatusOr<v1::AlarmChannel> {
      auto it = book_.find(name);
      if (it == book_.end()) return absl::NotFoundError(absl::StrCat("no channel ", name));
      return it->second;
    };
  }
  v1::AlarmChannel& Add(const std::string& name, v1::AlarmChannelKind kind, std::string url,
                        std::string secret = "") {
    v1::AlarmChannel& c = book_[name];
    c.set_name(name);
    c.set_kind(kind);
    c.set_url(std::move(url));
    c.set_secret(std::move(secret));
    return c;
  }
  // SampleAlarm for the named channels.
  static Alarm AlarmFor(std::vector<std::string> channels) {
    Alarm a = SampleAlarm();
    for (const std::string& c : channels) a.job.mutable_alarm()->add_channels(c);
    return a;
  }
  // `name (http://127.0.0.1:port/...): `, how errors name a channel.
  std::string Named(const std::string& name) const {
    return absl::StrCat(name, " (http://127.0.0.1:", server_.port(), "/...): ");
  }

  HttpServer server_;
  SimulatedClock clock_{kNow};
  std::map<std::string, v1::AlarmChannel> book_;
};

// ---- Templates ----

TEST(AlarmTextTest, TheDefaultTemplateSaysWhatFailedWhereAndWhen) {
  EXPECT_EQ(AlarmText("", SampleAlarm()), kSampleText);
  EXPECT_EQ(AlarmText(kDefaultAlarmTemplate, SampleAlarm()), kSampleText);
}

TEST(AlarmTextTest, ASummaryEndsWithItsSummaryLine) {
  Alarm a = SampleAlarm();
  a.failed_runs = 57;
  a.failed_since.set_seconds(1767322800);
  EXPECT_EQ(AlarmText("", a), absl::StrCat(kSampleText, "\n", SummaryLine(a)));
  a.kind = AlarmKind::kDeadlineMissed;
  a.reason = "not done 1h after its slot";
  EXPECT_THAT(AlarmText("", a),
              ::testing::StartsWith("[gnomon] job nightly-report (id 42) deadline_missed: not done "
                                    "1h after its slot\n"));
}

TEST(AlarmTextTest, EveryFieldHasAName) {
  Alarm a = SampleAlarm();
  a.failed_runs = 2;
  a.failed_since.set_seconds(1767322800);
  EXPECT_EQ(AlarmText("{{job_id}}|{{job_name}}|{{job_description}}|{{run_id}}|{{first_run_id}}|"
                      "{{attempt}}|{{trigger_type}}|{{executor_address}}|{{handle_code}}|"
                      "{{handle_message}}|{{scheduled_time}}|{{end_time}}|{{reason}}|"
                      "{{failed_runs}}|{{failed_since}}|{{kind}}|{{summary}}",
                      a),
            absl::StrCat("42|nightly-report|nightly \"report\"|7|5|2|TRIGGER_TYPE_RETRY|"
                         "10.0.0.3:9999|500|boom|2026-01-02T03:04:05.000Z|"
                         "2026-01-02T03:04:06.250Z|retries exhausted|2|2026-01-02T03:00:00.000Z|"
                         "failed|",
                         SummaryLine(a)));
}

TEST(AlarmTextTest, WhatNamesNoFieldStaysAsWritten) {
  Alarm a = SampleAlarm();
  EXPECT_EQ(AlarmText("{{colour}} {{ job_id }} {{job_id}} {{run_id", a),
            "{{colour}} {{ job_id }} 42 {{run_id");
  a.job.clear_name();
  EXPECT_EQ(AlarmText("{{job_name}}  \n\n", a), "job-42");
}

TEST(ValidateAlarmTemplateTest, AcceptsTheDefaultAndEveryField) {
  EXPECT_THAT(ValidateAlarmTemplate(kDefaultAlarmTemplate, "t"), IsOk());
  EXPECT_THAT(ValidateAlarmTemplate("", "t"), IsOk());
  EXPECT_THAT(ValidateAlarmTemplate("{{summary}} {{job_name}} {{first_run_id}} }} {", "t"), IsOk());
}

TEST(ValidateAlarmTemplateTest, NamesAnUnknownFieldByItsCharacter) {
  EXPECT_THAT(ValidateAlarmTemplate("Job failed {{colour}}", "alarm_channel.template"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "alarm_channel.template: unknown field {{colour}} at character 12"));
  // Characters, not bytes: "é" is two bytes of UTF-8.
  EXPECT_THAT(
      ValidateAlarmTemplate("Jéb failed {{colour}}", "t"),
      StatusIs(absl::StatusCode::kInvalidArgument, "t: unknown field {{colour}} at character 12"));
  EXPECT_THAT(ValidateAlarmTemplate("id {{ job_id }}", "t"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       "t: unknown field {{ job_id }} at character 4 (no spaces inside: "
                       "{{job_id}})"));
}

TEST(ValidateAlarmTemplateTest, RefusesAnUnclosedPlaceholder) {
  EXPECT_THAT(
      ValidateAlarmTemplate("run {{run_id}} {{attempt", "t"),
      StatusIs(absl::StatusCode::kInvalidArgument, "t: {{ at character 16 has no closing }}"));
}

// ---- Requests: what each service receives ----

TEST_F(ChatChannelTest, DingTalkSignsTheUrlWhenItHasASecret) {
  server_.SetAnswers({}, {200, R"({"errcode":0,"errmsg":"ok"})"});
  Add("ding", v1::DINGTALK, server_.Url("/robot/send?access_token=abc"), kDingTalkSecret);
  Add("ding-plain", v1::DINGTALK, server_.Url("/robot/send?access_token=abc"));
  ChatChannel chat(Find(), Options());
  ASSERT_THAT(chat.Send(AlarmFor({"ding", "ding-plain"})), IsOk());
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].headers.at("content-type"), "application/json");
  EXPECT_EQ(requests[0].path(), "/robot/send");
  EXPECT_EQ(requests[0].query(),
            absl::StrCat("access_token=abc&timestamp=1767323050123&sign=", kDingTalkSign));
  EXPECT_EQ(requests[1].query(), "access_token=abc");
  for (const auto& r : requests) {
    EXPECT_EQ(r.body, absl::StrCat(R"({"msgtype":"text","text":{"content":)", kSampleJson, "}}"));
  }
}

TEST(ChatFormatTest, DingTalkStartsAQueryWhenTheUrlHasNone) {
  v1::AlarmChannel c;
  c.set_url("https://robot.example/send");
  c.set_secret(kDingTalkSecret);
  EXPECT_EQ(
      FormatOf(v1::DINGTALK)->Request(c, "x", kNow).url,
      absl::StrCat("https://robot.example/send?timestamp=1767323050123&sign=", kDingTalkSign));
}

TEST_F(ChatChannelTest, WeComPostsTheTextMessage) {
  server_.SetAnswers({}, {200, R"({"errcode":0,"errmsg":"ok"})"});
  Add("wecom", v1::WECOM, server_.Url("/cgi-bin/webhook/send?key=k-1"));
  ChatChannel chat(Find(), Options());
  ASSERT_THAT(chat.Send(AlarmFor({"wecom"})), IsOk());
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, "/cgi-bin/webhook/send?key=k-1");
  EXPECT_EQ(requests[0].body,
            absl::StrCat(R"({"msgtype":"text","text":{"content":)", kSampleJson, "}}"));
}

TEST_F(ChatChannelTest, FeishuSignsTheBodyWhenItHasASecret) {
  server_.SetAnswers({}, {200, R"({"code":0,"data":{},"msg":"success"})"});
  Add("lark", v1::FEISHU, server_.Url("/open-apis/bot/v2/hook/h-1"), kFeishuSecret);
  Add("lark-plain", v1::FEISHU, server_.Url("/open-apis/bot/v2/hook/h-2"));
  ChatChannel chat(Find(), Options());
  ASSERT_THAT(chat.Send(AlarmFor({"lark", "lark-plain"})), IsOk());
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].target, "/open-apis/bot/v2/hook/h-1");
  EXPECT_EQ(requests[0].body,
            absl::StrCat(R"({"timestamp":"1767323050","sign":")", kFeishuSign,
                         R"(","msg_type":"text","content":{"text":)", kSampleJson, "}}"));
  EXPECT_EQ(requests[1].target, "/open-apis/bot/v2/hook/h-2");
  EXPECT_EQ(requests[1].body,
            absl::StrCat(R"({"msg_type":"text","content":{"text":)", kSampleJson, "}}"));
}

TEST_F(ChatChannelTest, SlackPostsTheText) {
  Add("slack", v1::SLACK, server_.Url("/services/T000/B000/XXXX"));
  ChatChannel chat(Find(), Options());
  ASSERT_THAT(chat.Send(AlarmFor({"slack"})), IsOk());  // HTTP 200 "ok"
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].target, "/services/T000/B000/XXXX");
  EXPECT_EQ(requests[0].body, absl::StrCat(R"({"text":)", kSampleJson, "}"));
}

TEST(ChatFormatTest, SlackMarkupInTheTextIsEscapedSoNobodyIsPinged) {
  v1::AlarmChannel c;
  c.set_url("https://hooks.slack.example/x");
  EXPECT_EQ(FormatOf(v1::SLACK)->Request(c, "<!channel> a & b <http://x|y>", kNow).body,
            R"({"text":"&lt;!channel&gt; a &amp; b &lt;http://x|y&gt;"})");
}

TEST_F(ChatChannelTest, TelegramPostsToTheBotsSendMessage) {
  server_.SetAnswers({}, {200, R"({"ok":true,"result":{"message_id":1}})"});
  Add("tg", v1::TELEGRAM, server_.Url("/"), kTelegramToken).set_chat_id("-1001234567890");
  Add("tg-channel", v1::TELEGRAM, server_.Url(""), kTelegramToken).set_chat_id("@ops_alarms");
  ChatChannel chat(Find(), Options());
  ASSERT_THAT(chat.Send(AlarmFor({"tg", "tg-channel"})), IsOk());
  auto requests = server_.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].target, "/bot123456:ABC-def_ghi/sendMessage");
  EXPECT_EQ(requests[0].body,
            absl::StrCat(R"({"chat_id":-1001234567890,"text":)", kSampleJson, "}"));
  EXPECT_EQ(requests[1].target, "/bot123456:ABC-def_ghi/sendMessage");
  EXPECT_EQ(requests[1].body,
            absl::StrCat(R"({"chat_id":"@ops_alarms","text":)", kSampleJson, "}"));
}

TEST(ChatFormatTest, TelegramDefaultsToTheBotApiAndKeepsTheTokenOneSegment) {
  v1::AlarmChannel c;
  c.set_secret("1:a/b?c");
  c.set_chat_id("42");
  EXPECT_EQ(FormatOf(v1::TELEGRAM)->Request(c, "x", kNow).url,
            "https://api.telegram.org/bot1:a%2Fb%3Fc/sendMessage");
}

TEST(ChatFormatTest, TextIsValidUtf8AndCutToWhatTheServiceTakes) {
  v1::AlarmChannel c;
  // A stray byte becomes U+FFFD.
  EXPECT_EQ(FormatOf(v1::SLACK)
                ->Request(c,
                          "a\xff"
                          "b",
                          kNow)
                .body,
            "{\"text\":\"a\xEF\xBF\xBD"
            "b\"}");
  // WeCom takes at most 2048 bytes: cut on a character boundary, then "…".
  std::string long_text(2040, 'x');
  for (int i = 0; i < 10; ++i) long_text += "\xC3\xA9";  // é
  const std::string body = FormatOf(v1::WECOM)->Request(c, long_text, kNow).body;
  EXPECT_EQ(body, absl::StrCat(R"({"msgtype":"text","text":{"content":")", std::string(2040, 'x'),
                               "\xC3\xA9\xC3\xA9\xE2\x80\xA6", R"("}})"));
}

TEST(ChatFormatTest, EveryKindHasAFormat) {
  for (v1::AlarmChannelKind kind : {v1::DINGTALK, v1::WECOM, v1::FEISHU, v1::SLACK, v1::TELEGRAM}) {
    ASSERT_NE(FormatOf(kind), nullptr) << kind;
    EXPECT_EQ(FormatOf(kind)->kind(), kind);
  }
  EXPECT_EQ(FormatOf(v1::ALARM_CHANNEL_KIND_UNSPECIFIED), nullptr);
  EXPECT_EQ(FormatOf(static_cast<v1::AlarmChannelKind>(99)), nullptr);
}

// ---- Answers: what is sent, what is retried, what never works ----

struct AnswerCase {
  v1::AlarmChannelKind kind;
  long http_code;
  std::string body;
  absl::StatusCode want;
  std::string message;  // Check's message exactly ("" when OK).
};

TEST(ChatFormatTest, EachServiceAnswerIsJudgedAsTheServiceDocumentsIt) {
  using C = absl::StatusCode;
  const std::vector<AnswerCase> cases = {
      {v1::DINGTALK, 200, R"({"errcode":0,"errmsg":"ok"})", C::kOk, ""},
      {v1::DINGTALK, 200, R"({"errcode":310000,"errmsg":"sign not match"})", C::kInvalidArgument,
       "errcode 310000: sign not match"},
      {v1::DINGTALK, 200, R"({"errcode":300001,"errmsg":"token is not exist"})",
       C::kInvalidArgument, "errcode 300001: token is not exist"},
      {v1::DINGTALK, 200, R"({"errcode":130101,"errmsg":"send too fast"})", C::kUnavailable,
       "errcode 130101: send too fast"},
      {v1::DINGTALK, 502, "<html>\nBad Gateway\n</html>", C::kUnavailable,
       "HTTP 502: <html> Bad Gateway </html>"},
      {v1::DINGTALK, 200, "<html>portal</html>", C::kUnavailable,
       "HTTP 200, an answer without errcode: <html>portal</html>"},
      {v1::WECOM, 200, R"({"errcode":0,"errmsg":"ok"})", C::kOk, ""},
      {v1::WECOM, 200, R"({"errcode":93000,"errmsg":"invalid webhook url"})", C::kInvalidArgument,
       "errcode 93000: invalid webhook url"},
      {v1::WECOM, 200, R"({"errcode":45009,"errmsg":"api freq out of limit"})", C::kUnavailable,
       "errcode 45009: api freq out of limit"},
      {v1::FEISHU, 200, R"({"StatusCode":0,"StatusMessage":"success","code":0,"msg":"success"})",
       C::kOk, ""},
      {v1::FEISHU, 200, R"({"StatusCode":0,"StatusMessage":"success"})", C::kOk, ""},
      {v1::FEISHU, 200, R"({"code":19021,"data":{},"msg":"sign match fail"})", C::kInvalidArgument,
       "code 19021: sign match fail"},
      {v1::FEISHU, 400, R"({"code":19024,"data":{},"msg":"Key Words Not Found"})",
       C::kInvalidArgument, "code 19024: Key Words Not Found"},
      {v1::FEISHU, 200, R"({"code":11232,"data":{},"msg":"frequency limited"})", C::kUnavailable,
       "code 11232: frequency limited"},
      {v1::FEISHU, 200, R"({"StatusCode":19021,"StatusMessage":"sign match fail"})",
       C::kInvalidArgument, "StatusCode 19021: sign match fail"},
      {v1::SLACK, 200, "ok", C::kOk, ""},
      {v1::SLACK, 404, "no_service", C::kInvalidArgument, "HTTP 404: no_service"},
      {v1::SLACK, 403, "invalid_token", C::kInvalidArgument, "HTTP 403: invalid_token"},
      {v1::SLACK, 410, "channel_is_archived", C::kInvalidArgument, "HTTP 410: channel_is_archived"},
      {v1::SLACK, 429, "rate_limited", C::kUnavailable, "HTTP 429: rate_limited"},
      {v1::SLACK, 500, "rollup_error", C::kUnavailable, "HTTP 500: rollup_error"},
      {v1::TELEGRAM, 200, R"({"ok":true,"result":{"message_id":1}})", C::kOk, ""},
      {v1::TELEGRAM, 401, R"({"ok":false,"error_code":401,"description":"Unauthorized"})",
       C::kInvalidArgument, "HTTP 401: Unauthorized"},
      {v1::TELEGRAM, 400,
       R"({"ok":false,"error_code":400,"description":"Bad Request: chat not found"})",
       C::kInvalidArgument, "HTTP 400: Bad Request: chat not found"},
      {v1::TELEGRAM, 403,
       R"({"ok":false,"error_code":403,"description":"Forbidden: bot was kicked"})",
       C::kInvalidArgument, "HTTP 403: Forbidden: bot was kicked"},
      {v1::TELEGRAM, 429,
       R"({"ok":false,"error_code":429,"description":"Too Many Requests: retry after 5"})",
       C::kUnavailable, "HTTP 429: Too Many Requests: retry after 5"},
      {v1::TELEGRAM, 502, "Bad Gateway", C::kUnavailable, "HTTP 502: Bad Gateway"},
  };
  for (const AnswerCase& c : cases) {
    absl::Status s = FormatOf(c.kind)->Check(c.http_code, c.body);
    EXPECT_EQ(s.code(), c.want) << v1::AlarmChannelKind_Name(c.kind) << " " << c.body << ": " << s;
    EXPECT_EQ(s.message(), c.message) << v1::AlarmChannelKind_Name(c.kind) << " " << c.body;
  }
}

TEST_F(ChatChannelTest, AFailureNamesTheChannelAndItsOriginAndIsPermanentOnlyIfAllAre) {
  server_.SetAnswers({{200, R"({"errcode":310000,"errmsg":"sign not match"})"},
                      {200, R"({"errcode":310000,"errmsg":"sign not match"})"}},
                     {200, R"({"errcode":130101,"errmsg":"send too fast"})"});
  Add("ding", v1::DINGTALK, server_.Url("/robot/send?access_token=abc"), kDingTalkSecret);
  ChatChannel chat(Find(), Options());
  EXPECT_THAT(chat.Send(AlarmFor({"ding"})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Named("ding") + "errcode 310000: sign not match"));
  EXPECT_THAT(chat.Send(AlarmFor({"ding", "ding"})),
              StatusIs(absl::StatusCode::kUnavailable,
                       absl::StrCat(Named("ding"), "errcode 310000: sign not match; ",
                                    Named("ding"), "errcode 130101: send too fast")));
}

TEST_F(ChatChannelTest, AnUnknownChannelIsAPermanentErrorAndTheOthersAreStillTried) {
  Add("slack", v1::SLACK, server_.Url("/services/T000/B000/XXXX"));
  ChatChannel chat(Find(), Options());
  EXPECT_THAT(
      chat.Send(AlarmFor({"gone", "slack"})),
      StatusIs(absl::StatusCode::kInvalidArgument, "gone: no alarm channel of that name exists"));
  EXPECT_EQ(server_.requests().size(), 1u);
}

TEST_F(ChatChannelTest, AStoreThatCannotAnswerIsRetried) {
  ChatChannel chat(
      [](const std::string&) -> absl::StatusOr<v1::AlarmChannel> {
        return absl::UnavailableError("store down");
      },
      Options());
  EXPECT_THAT(
      chat.Send(AlarmFor({"slack"})),
      StatusIs(absl::StatusCode::kUnavailable, "slack: cannot read the channel: store down"));
}

TEST_F(ChatChannelTest, TheChannelsTemplateIsUsed) {
  Add("slack", v1::SLACK, server_.Url("/services/T000/B000/XXXX"))
      .set_template_("{{job_name}} {{kind}} ({{handle_code}})");
  ChatChannel chat(Find(), Options());
  ASSERT_THAT(chat.Send(AlarmFor({"slack"})), IsOk());
  ASSERT_EQ(server_.requests().size(), 1u);
  EXPECT_EQ(server_.requests()[0].body, R"j({"text":"nightly-report failed (500)"})j");
}

TEST_F(ChatChannelTest, WantsOnlyJobsNamingChannels) {
  ChatChannel chat(Find(), Options());
  EXPECT_EQ(chat.name(), "chat");
  EXPECT_FALSE(chat.Wants(SampleAlarm().job));
  EXPECT_TRUE(chat.Wants(AlarmFor({"x"}).job));
}

TEST_F(ChatChannelTest, AnUnknownKindIsAPermanentError) {
  v1::AlarmChannel& c = Add("odd", v1::ALARM_CHANNEL_KIND_UNSPECIFIED, server_.Url("/x"));
  ChatChannel chat(Find(), Options());
  EXPECT_THAT(chat.SendTo(c, SampleAlarm()),
              StatusIs(absl::StatusCode::kInvalidArgument, Named("odd") + "unknown kind 0"));
  EXPECT_TRUE(server_.requests().empty());
}

// ---- Secrets ----

TEST_F(ChatChannelTest, TheTelegramTokenNeverAppearsInAnError) {
  // The server even echoes the token back, as a careless proxy might.
  server_.SetAnswers({}, {401, absl::StrCat(R"({"ok":false,"error_code":401,"description":")",
                                            "Unauthorized: /bot", kTelegramToken, R"("})")});
  Add("tg", v1::TELEGRAM, server_.Url(""), kTelegramToken).set_chat_id("1");
  Add("tg-down", v1::TELEGRAM, absl::StrCat("http://127.0.0.1:", loopback::UnusedPort()),
      kTelegramToken)
      .set_chat_id("1");
  Add("tg-refused", v1::TELEGRAM, "http://10.1.2.3:8081", kTelegramToken).set_chat_id("1");
  ChatChannel chat(Find(), Options());
  for (const char* name : {"tg", "tg-down", "tg-refused"}) {
    absl::Status s = chat.Send(AlarmFor({name}));
    EXPECT_FALSE(s.ok()) << name;
    EXPECT_THAT(std::string(s.message()), Not(HasSubstr(kTelegramToken))) << s;
    EXPECT_THAT(std::string(s.message()), Not(HasSubstr("ABC-def"))) << s;
    EXPECT_THAT(std::string(s.message()), Not(HasSubstr("sendMessage"))) << s;
  }
  EXPECT_THAT(chat.Send(AlarmFor({"tg"})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       Named("tg") + "HTTP 401: Unauthorized: /bot<secret>"));
  // Nor a part of it where the quote of the answer is cut short.
  server_.SetAnswers({}, {401, absl::StrCat(R"({"ok":false,"description":")", std::string(90, '.'),
                                            kTelegramToken, R"("})")});
  absl::Status cut = chat.Send(AlarmFor({"tg"}));
  EXPECT_THAT(cut, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("...<secret>")));
  EXPECT_THAT(std::string(cut.message()), Not(HasSubstr("123456")));
}

TEST_F(ChatChannelTest, TheSecretPathOrQueryOfAUrlStaysOutOfErrors) {
  server_.SetAnswers({}, {500, "oops"});
  Add("slack", v1::SLACK, server_.Url("/services/T000/B000/XXXXsecret"));
  Add("ding", v1::DINGTALK, server_.Url("/robot/send?access_token=tokensecret"), kDingTalkSecret);
  ChatChannel chat(Find(), Options());
  absl::Status s = chat.Send(AlarmFor({"slack", "ding"}));
  EXPECT_THAT(
      s, StatusIs(absl::StatusCode::kUnavailable, absl::StrCat(Named("slack"), "HTTP 500: oops; ",
                                                               Named("ding"), "HTTP 500: oops")));
  EXPECT_THAT(std::string(s.message()), Not(HasSubstr("secret")));
}

// ---- Where posts may go ----

// As for webhooks: whoever may configure a channel must not reach internal
// services through gnomond. A refusal is permanent and says how to allow it.
TEST_F(ChatChannelTest, TheAllowListRefusesNonPublicDestinations) {
  ChatOptions o = Options();
  o.allow = *WebhookAllowList(kDefaultWebhookAllow);
  Add("slack", v1::SLACK, server_.Url("/services/T000/B000/XXXX"));
  Add("metadata", v1::WECOM, "http://169.254.169.254/latest/meta-data/");
  Add("tg", v1::TELEGRAM, server_.Url(""), kTelegramToken).set_chat_id("1");
  ChatChannel chat(Find(), std::move(o));
  for (const char* name : {"slack", "metadata", "tg"}) {
    EXPECT_THAT(chat.Send(AlarmFor({name})),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--alarm-webhook-allow")))
        << name;
  }
  EXPECT_TRUE(server_.requests().empty());
}

TEST_F(ChatChannelTest, AnUnreachableServiceIsRetried) {
  Add("wecom", v1::WECOM, absl::StrCat("http://127.0.0.1:", loopback::UnusedPort(), "/send?key=k"));
  ChatChannel chat(Find(), Options());
  EXPECT_THAT(chat.Send(AlarmFor({"wecom"})),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("wecom (http://127.0.0.1:")));
}

}  // namespace
}  // namespace gnomon::scheduler::alarm

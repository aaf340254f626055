// docs/alarms.md shows the default alarm template, the text it renders for
// an example alarm, the request each kind of alarm channel receives for it
// (signatures included) and the fields a template may name; this checks the
// page says what the code does. The blocks it reads follow a marker line
// "<!-- alarms_doc_test: NAME -->".
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "services/scheduler/alarm/chat_channel.h"
#include "services/scheduler/alarm/testing/sample_alarm.h"

#ifndef GNOMON_SOURCE_DIR
#error "GNOMON_SOURCE_DIR must name the source tree"
#endif

namespace gnomon::scheduler::alarm {
namespace {

std::string Page() {
  std::ifstream in(std::string(GNOMON_SOURCE_DIR) + "/docs/alarms.md");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The fenced block after each "<!-- alarms_doc_test: NAME -->", by NAME
// (its lines joined by '\n', no final line end).
std::map<std::string, std::string> Blocks(const std::string& page) {
  std::map<std::string, std::string> blocks;
  std::istringstream in(page);
  std::string line, name, block;
  enum { kText, kMarked, kInBlock } state = kText;
  static const std::regex kMarker(R"(^<!-- alarms_doc_test: ([a-z-]+) -->$)");
  while (std::getline(in, line)) {
    std::smatch m;
    if (state == kText && std::regex_match(line, m, kMarker)) {
      name = m[1].str();
      state = kMarked;
    } else if (state == kMarked && line.rfind("```", 0) == 0) {
      block.clear();
      state = kInBlock;
    } else if (state == kInBlock && line == "```") {
      blocks[name] = block;
      state = kText;
    } else if (state == kInBlock) {
      absl::StrAppend(&block, block.empty() ? "" : "\n", line);
    }
  }
  return blocks;
}

// The page's example: run 7 of job nightly-report (id 42), attempt 2, on
// 10.0.0.3:9999, handle code 500 "boom", scheduled 2026-01-02T03:04:05Z.
Alarm PageAlarm() { return scheduler::alarm::testing::SampleAlarm(); }

std::string Shown(v1::AlarmChannelKind kind, const std::string& url, const std::string& secret,
                  const std::string& chat_id, absl::Time now) {
  v1::AlarmChannel c;
  c.set_kind(kind);
  c.set_url(url);
  c.set_secret(secret);
  c.set_chat_id(chat_id);
  ChatRequest r = FormatOf(kind)->Request(c, AlarmText("", PageAlarm()), now);
  return absl::StrCat("POST ", r.url, "\n", r.body);
}

TEST(AlarmsDocTest, TheDefaultTemplateAndItsExampleAreThePages) {
  const std::map<std::string, std::string> blocks = Blocks(Page());
  ASSERT_TRUE(blocks.count("default-template")) << "cannot read docs/alarms.md";
  EXPECT_EQ(blocks.at("default-template"), kDefaultAlarmTemplate);
  ASSERT_TRUE(blocks.count("example-text"));
  EXPECT_EQ(blocks.at("example-text"), AlarmText("", PageAlarm()));
}

TEST(AlarmsDocTest, EachKindReceivesWhatThePageShows) {
  const std::map<std::string, std::string> blocks = Blocks(Page());
  // The page's times: 2026-01-02T03:04:10.123Z.
  const absl::Time now = absl::FromUnixMillis(1767323050123);
  const std::map<std::string, std::string> want = {
      {"dingtalk",
       Shown(v1::DINGTALK, "https://oapi.dingtalk.com/robot/send?access_token=ACCESS_TOKEN",
             "SEC0123456789abcdef", "", now)},
      {"wecom",
       Shown(v1::WECOM, "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=KEY", "", "", now)},
      {"feishu", Shown(v1::FEISHU, "https://open.feishu.cn/open-apis/bot/v2/hook/HOOK_ID",
                       "feishu-secret-0123", "", now)},
      {"slack", Shown(v1::SLACK, "https://hooks.slack.com/services/T000/B000/XXXX", "", "", now)},
      {"telegram", Shown(v1::TELEGRAM, "", "123456:ABC-def_ghi", "-1001234567890", now)},
  };
  for (const auto& [name, request] : want) {
    ASSERT_TRUE(blocks.count(name)) << "docs/alarms.md has no block " << name;
    EXPECT_EQ(blocks.at(name), request) << "docs/alarms.md, " << name;
  }
}

TEST(AlarmsDocTest, TheFieldsTableListsEveryFieldATemplateMayName) {
  static const std::regex kRow(R"(^\| `\{\{([a-z_]+)\}\}` \|)");
  std::set<std::string> listed;
  std::istringstream in(Page());
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, kRow)) listed.insert(m[1].str());
  }
  std::set<std::string> known = {"job_name", "summary"};
  for (const AlarmField& f : AlarmFields(Alarm{})) known.insert(f.name);
  EXPECT_EQ(listed, known);
  for (const std::string& name : listed) {
    EXPECT_TRUE(ValidateAlarmTemplate(absl::StrCat("{{", name, "}}"), "t").ok()) << name;
  }
}

TEST(AlarmsDocTest, ThePagesRefusedTemplateIsRefusedAsItSays) {
  EXPECT_NE(Page().find("`channel.template: unknown field {{colour}} at character 12`"),
            std::string::npos);
  EXPECT_EQ(ValidateAlarmTemplate("Job failed {{colour}}", "channel.template").message(),
            "channel.template: unknown field {{colour}} at character 12");
}

}  // namespace
}  // namespace gnomon::scheduler::alarm

// The log line formats (text and JSON) and the JSON string escaping they
// share with the alarm documents: every JSON line parses, whatever bytes
// the message holds.
#include "services/common/client/log.h"

#include <string>

#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "services/common/client/json_text.h"

namespace gnomon {
namespace {

using logging::Format;
using logging::FormatLine;
using logging::Level;

constexpr char kTime[] = "2026-11-22T02:45:46.123Z";

TEST(LogFormat, TextIsTimeLevelLetterAndMessage) {
  EXPECT_EQ(FormatLine(Format::kText, Level::WARNING, kTime, "gnomond", "store: slow"),
            "2026-11-22T02:45:46.123Z W store: slow\n");
  EXPECT_EQ(FormatLine(Format::kText, Level::DEBUG, kTime, "gnomond", "x"),
            "2026-11-22T02:45:46.123Z D x\n");
}

TEST(LogFormat, JsonIsOneObjectPerLineThatParsesWhateverTheMessageHolds) {
  const std::string message = "run 7 said \"hi\"\n\tthen \x01, caf\xc3\xa9, and \xff\xfe bytes";
  const std::string line = FormatLine(Format::kJson, Level::ERROR, kTime, "gnomond", message);
  ASSERT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line";
  google::protobuf::Struct parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(line, &parsed).ok()) << line;
  const auto& f = parsed.fields();
  EXPECT_EQ(f.at("time").string_value(), kTime);
  EXPECT_EQ(f.at("level").string_value(), "ERROR");
  EXPECT_EQ(f.at("program").string_value(), "gnomond");
  EXPECT_EQ(f.at("message").string_value(),
            "run 7 said \"hi\"\n\tthen \x01, caf\xc3\xa9, and \xef\xbf\xbd\xef\xbf\xbd bytes");
}

TEST(LogFormat, OnlyTextAndJsonAreFormats) {
  Format f = Format::kText;
  EXPECT_TRUE(logging::ParseFormat("json", &f));
  EXPECT_EQ(f, Format::kJson);
  EXPECT_TRUE(logging::ParseFormat("text", &f));
  EXPECT_EQ(f, Format::kText);
  EXPECT_FALSE(logging::ParseFormat("JSON", &f));
  EXPECT_FALSE(logging::ParseFormat("", &f));
}

TEST(JsonText, EscapesQuotesBackslashesAndControlsAndReplacesBytesThatAreNotUtf8) {
  std::string out;
  AppendJsonString(&out, "a\"b\\c\r\x7f\x1f");
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\r\x7f\\u001f\"");
  out.clear();
  // An overlong '/', a surrogate, a cut sequence: each byte U+FFFD.
  AppendJsonString(&out, "\xc0\xaf|\xed\xa0\x80|\xe2\x82");
  EXPECT_EQ(out, "\"\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\"");
  EXPECT_EQ(Utf8CharLength("\xf0\x9f\x98\x80", 0), 4u);
  EXPECT_EQ(Utf8CharLength("a", 0), 1u);
  EXPECT_EQ(Utf8CharLength("\xf4\x90\x80\x80", 0), 0u);  // Past U+10FFFF.
}

}  // namespace
}  // namespace gnomon

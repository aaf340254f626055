#include "services/common/schedule/param_template.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace gnomon::schedule {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

absl::TimeZone Zone(const std::string& name) {
  absl::TimeZone z;
  EXPECT_TRUE(absl::LoadTimeZone(name, &z)) << name;
  return z;
}

absl::Time Utc(int y, int mo, int d, int h, int mi, int s = 0) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), absl::UTCTimeZone());
}

std::string Render(const std::string& text, absl::Time at, const std::string& zone) {
  absl::StatusOr<std::string> out = RenderParams(text, at, Zone(zone));
  EXPECT_TRUE(out.ok()) << text << ": " << out.status();
  return out.ok() ? *out : "";
}

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<ParamTemplate> t = ParamTemplate::Parse(text);
  EXPECT_FALSE(t.ok()) << text;
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(t.status().message());
}

// 2026-11-29 00:30:15.250 UTC is Sunday 08:30:15.250 in Shanghai.
const absl::Time kSlot = Utc(2026, 11, 29, 0, 30, 15) + absl::Milliseconds(250);

TEST(ParamTemplateTest, DatesAreTheSlotsInTheZoneMovedByWholeDaysOrFractions) {
  EXPECT_EQ(Render("day=$[yyyyMMdd-1]", kSlot, "Asia/Shanghai"), "day=20261128");
  EXPECT_EQ(Render("$[yyyy-MM-dd HH:mm:ss.SSS]", kSlot, "Asia/Shanghai"),
            "2026-11-29 08:30:15.250");
  EXPECT_EQ(Render("$[yyyy-MM-dd]", kSlot, "America/Los_Angeles"), "2026-11-28");
  EXPECT_EQ(Render("$[yy/M/d H:m:s]", kSlot, "UTC"), "26/11/29 0:30:15");
  EXPECT_EQ(Render("$[HHmmss-1/24]", kSlot, "Asia/Shanghai"), "073015");
  EXPECT_EQ(Render("$[HH:mm+90/24/60]", kSlot, "Asia/Shanghai"), "10:00");
  EXPECT_EQ(Render("$[yyyyMMdd+7*2]", kSlot, "Asia/Shanghai"), "20261213");
  EXPECT_EQ(Render("from $[yyyyMMdd-7] to $[yyyyMMdd]", kSlot, "UTC"), "from 20261122 to 20261129");
}

TEST(ParamTemplateTest, FunctionsMoveByMonthsAndWeeks) {
  EXPECT_EQ(Render("$[add_months(yyyyMMdd,-1)]", kSlot, "UTC"), "20261029");
  EXPECT_EQ(Render("$[add_months(yyyy-MM-dd, 12*2)]", kSlot, "UTC"), "2028-11-29");
  // The day is clamped to the shorter month.
  EXPECT_EQ(Render("$[add_months(yyyy-MM-dd,-1)]", Utc(2026, 3, 31, 12, 0), "UTC"), "2026-02-28");
  EXPECT_EQ(Render("$[month_first_day(yyyy-MM-dd,-1)]", kSlot, "UTC"), "2026-10-01");
  EXPECT_EQ(Render("$[month_last_day(yyyy-MM-dd,-1)]", kSlot, "UTC"), "2026-10-31");
  EXPECT_EQ(Render("$[month_last_day(yyyy-MM-dd,3)]", kSlot, "UTC"), "2027-02-28");
  // 2026-11-29 is a Sunday: its week is Monday 23rd to Sunday 29th.
  EXPECT_EQ(Render("$[week_first_day(yyyy-MM-dd,0)]", kSlot, "UTC"), "2026-11-23");
  EXPECT_EQ(Render("$[week_last_day(yyyy-MM-dd,0)]", kSlot, "UTC"), "2026-11-29");
  EXPECT_EQ(Render("$[week_first_day(yyyy-MM-dd,-1)]", kSlot, "UTC"), "2026-11-16");
  EXPECT_EQ(Render("$[this_day(yyyy-MM-dd)] $[last_day(yyyy-MM-dd)]", kSlot, "UTC"),
            "2026-11-29 2026-11-28");
}

TEST(ParamTemplateTest, AcrossADstChangeWholeDaysKeepTheWallClockAndFractionsTheInstant) {
  // 2026-03-29 03:30 CEST (Berlin sprang forward at 02:00 that night).
  const absl::Time after = Utc(2026, 3, 29, 1, 30);
  EXPECT_EQ(Render("$[yyyy-MM-dd HH:mm-1]", after, "Europe/Berlin"), "2026-03-28 03:30");
  EXPECT_EQ(Render("$[yyyy-MM-dd HH:mm-1/24]", after, "Europe/Berlin"), "2026-03-29 01:30");
}

TEST(ParamTemplateTest, TextWithoutExpressionsQuotesAndEscapesStayAsWritten) {
  EXPECT_EQ(Render("{\"a\": 1, \"cost\": \"$5\"}", kSlot, "UTC"), "{\"a\": 1, \"cost\": \"$5\"}");
  EXPECT_EQ(Render("path=$$[0].id day=$[yyyy]", kSlot, "UTC"), "path=$[0].id day=2026");
  EXPECT_EQ(Render("$[yyyy'W'MM' o''clock']", kSlot, "UTC"), "2026W11 o'clock");
  EXPECT_FALSE(ParamTemplate::HasExpressions("no dates here"));
}

TEST(ParamTemplateTest, ErrorsPointAtTheOffendingCharacter) {
  EXPECT_EQ(ErrorOf("x=$[yyyyMMQdd]"),
            "at character 11: unknown pattern letter 'Q' (yyyy yy MM M dd d HH H mm m ss s SSS; "
            "quote other letters as '...')");
  EXPECT_EQ(ErrorOf("day=$[yyyyMMdd"), "at character 5: '$[' is not closed by ']'");
  EXPECT_EQ(ErrorOf("$[]"), "at character 3: empty expression in '$[...]'");
  EXPECT_THAT(ErrorOf("$[0].id"), HasSubstr("no date field in '$[...]' (write '$$[' for"));
  EXPECT_EQ(ErrorOf("$[yyyyMMdd-1/0]"), "at character 14: division by zero in the offset");
  EXPECT_THAT(ErrorOf("$[yyy]"), HasSubstr("at character 3: 3 of 'y' in a row"));
  EXPECT_THAT(ErrorOf("ab$[nope(yyyy,1)]"), HasSubstr("at character 5: unknown function"));
  EXPECT_THAT(ErrorOf("$[add_months(yyyy)]"), HasSubstr("expected ',' and a number"));
  EXPECT_THAT(ErrorOf("$[add_months(yyyy,x)]"), HasSubstr("at character 19: expected a number"));
  EXPECT_THAT(ErrorOf("$[yyyy-9999999]"), HasSubstr("beyond 100000 days"));
  EXPECT_THAT(ErrorOf("$[yyyy'T]"), HasSubstr("at character 7: quote not closed"));
}

TEST(ParamTemplateTest, AnErrorNamesTheFieldAndNeverQuotesALongTemplate) {
  const std::string long_text = std::string(5000, 'a') + "$[yyyyQ]";
  absl::Status s = ValidateParams("job.params", long_text);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("job.params: at character 5007: unknown pattern letter 'Q'"));
  EXPECT_THAT(s.message(), Not(HasSubstr("aaaa")));
  EXPECT_TRUE(ValidateParams("job.params", "plain").ok());
}

}  // namespace
}  // namespace gnomon::schedule

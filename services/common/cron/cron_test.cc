// Parser and next-fire unit tests. Agreement with Quartz over thousands of
// generated cases is in cron_quartz_test.cc; DST policy in cron_dst_test.cc.
#include "services/common/cron/cron.h"

#include <string>
#include <vector>

#include "absl/time/civil_time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"

namespace gnomon::cron {
namespace {

using ::testing::HasSubstr;

absl::Time Utc(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), absl::UTCTimeZone());
}

// The next `n` fires after `from` in UTC.
std::vector<absl::Time> Next(const std::string& expr, absl::Time from, int n) {
  absl::StatusOr<CronExpression> e = CronExpression::Parse(expr);
  EXPECT_TRUE(e.ok()) << expr << ": " << e.status();
  std::vector<absl::Time> out;
  if (!e.ok()) return out;
  for (int i = 0; i < n; ++i) {
    std::optional<absl::Time> t = e->NextAfter(from, absl::UTCTimeZone());
    if (!t) break;
    out.push_back(*t);
    from = *t;
  }
  return out;
}

std::string ParseError(const std::string& expr) {
  absl::StatusOr<CronExpression> e = CronExpression::Parse(expr);
  if (e.ok()) return "accepted";
  EXPECT_THAT(e, StatusIs(absl::StatusCode::kInvalidArgument)) << expr;
  return std::string(e.status().message());
}

TEST(CronParseTest, KeepsText) {
  absl::StatusOr<CronExpression> e = CronExpression::Parse("0 15 10 ? * 6#3");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->text(), "0 15 10 ? * 6#3");
}

// A message quotes at most 32 bytes of what it was given, escaped.
TEST(CronParseTest, LongOrBinaryTextIsQuotedShort) {
  EXPECT_EQ(ParseError("0 0 12 ? * MON" + std::string(1 << 20, '!')),
            "day-of-week: unexpected text \"" + std::string(32, '!') + "…\" in \"MON" +
                std::string(29, '!') + "…\"");
  EXPECT_EQ(ParseError("0 0 12 ? * MO\x01"), "day-of-week: unknown name \"MO\" in \"MO\\x01\"");
}

TEST(CronParseTest, TrailingGarbageNamesFieldAndText) {
  EXPECT_EQ(ParseError("0 0 12 ? * MON!"), "day-of-week: unexpected text \"!\" in \"MON!\"");
  EXPECT_EQ(ParseError("12abc * * * * ?"), "seconds: unexpected text \"abc\" in \"12abc\"");
  EXPECT_EQ(ParseError("0 1.5 * * * ?"), "minutes: unexpected text \".5\" in \"1.5\"");
  EXPECT_EQ(ParseError("0 0 12 ? * SUNDAY"), "day-of-week: unknown name \"SUNDAY\" in \"SUNDAY\"");
  EXPECT_EQ(ParseError("0 0 12 ? * 5#2,6"), "day-of-week: unexpected text \",6\" in \"5#2,6\"");
  EXPECT_EQ(ParseError("0 0 12 15W,16 * ?"),
            "day-of-month: unexpected text \"W,16\" in \"15W,16\"");
  EXPECT_EQ(ParseError("0 0 12 ? * 7L-2"), "day-of-week: unexpected text \"L-2\" in \"7L-2\"");
}

TEST(CronParseTest, FieldCount) {
  EXPECT_THAT(ParseError("0 0 12 * *"), HasSubstr("expected 6 or 7 fields"));
  EXPECT_THAT(ParseError(""), HasSubstr("got 0"));
  EXPECT_THAT(ParseError("0 0 12 * * ? 2030 extra"),
              HasSubstr("unexpected text \"extra\" after the year"));
}

TEST(CronParseTest, OutOfRange) {
  EXPECT_EQ(ParseError("60 * * * * ?"), "seconds: value 60 is out of range 0-59 in \"60\"");
  EXPECT_THAT(ParseError("0 0 24 * * ?"), HasSubstr("hours: value 24"));
  EXPECT_THAT(ParseError("0 0 0 0 * ?"), HasSubstr("day-of-month: value 0"));
  EXPECT_THAT(ParseError("0 0 0 32 * ?"), HasSubstr("day-of-month: value 32"));
  EXPECT_THAT(ParseError("0 0 0 1 13 ?"), HasSubstr("month: value 13"));
  EXPECT_THAT(ParseError("0 0 0 ? * 0"), HasSubstr("day-of-week: value 0"));
  EXPECT_THAT(ParseError("0 0 0 ? * 8"), HasSubstr("day-of-week: value 8"));
  EXPECT_THAT(ParseError("0 0 0 ? * 6#6"), HasSubstr("day-of-week: occurrence 6"));
  EXPECT_THAT(ParseError("0 0 0 L-31 * ?"), HasSubstr("offset 31"));
  EXPECT_THAT(ParseError("0 0 0 L-31W * ?"), HasSubstr("offset 31"));
  EXPECT_THAT(ParseError("0 0 0 L-W * ?"), HasSubstr("day-of-month: missing number"));
  EXPECT_THAT(ParseError("0 0 0 L-3WW * ?"), HasSubstr("day-of-month: unexpected text"));
  EXPECT_THAT(ParseError("0 0 0 L-3W,5 * ?"), HasSubstr("day-of-month"));
  EXPECT_THAT(ParseError("0/60 * * * * ?"), HasSubstr("seconds: step 60"));
  EXPECT_THAT(ParseError("0/0 * * * * ?"), HasSubstr("seconds: step 0"));
  EXPECT_THAT(ParseError("0 0 0 1 1 ? 2030-2025"), HasSubstr("year: range 2030-2025 is reversed"));
  EXPECT_THAT(ParseError("0 0 0 1 1 ? 1969"), HasSubstr("year: value 1969"));
}

TEST(CronParseTest, DayFieldsNeedExactlyOneQuestionMark) {
  EXPECT_THAT(ParseError("0 0 0 * * *"), HasSubstr("exactly one of them must be '?'"));
  EXPECT_THAT(ParseError("0 0 0 ? * ?"), HasSubstr("only one of them may be '?'"));
  EXPECT_THAT(ParseError("0 0 ? * * ?"), HasSubstr("hours: '?' is allowed only"));
  EXPECT_THAT(ParseError("0 0 0 1 * ?,MON"), HasSubstr("day-of-week: '?' must stand alone"));
  EXPECT_THAT(ParseError("0 0 0 1 * ??"), HasSubstr("day-of-week: '?' must stand alone"));
}

TEST(CronParseTest, RejectsWhatQuartzIgnoresOrMisreads) {
  EXPECT_THAT(ParseError("0 0 0 ? * MON-FRI/2"), HasSubstr("step is not supported after a name"));
  EXPECT_THAT(ParseError("0 0 0 ? * MON-5"), HasSubstr("mixes a name and a number"));
  EXPECT_THAT(ParseError("1,,2 * * * * ?"), HasSubstr("empty list item"));
  EXPECT_THAT(ParseError("*,1 * * * * ?"), HasSubstr("'*' must stand alone"));
  EXPECT_THAT(ParseError("/5 * * * * ?"), HasSubstr("seconds: unexpected text"));
  EXPECT_THAT(ParseError("0 0 0 1-5W * ?"), HasSubstr("day-of-month"));
  EXPECT_THAT(ParseError("0 0 0 L,15 * ?"), HasSubstr("day-of-month"));
  EXPECT_THAT(ParseError("0 0 0 ? * 2L,3"), HasSubstr("day-of-week"));
  EXPECT_THAT(ParseError("0 0 0 ? * 1-3L"), HasSubstr("day-of-week"));
  EXPECT_THAT(ParseError("0 0 0 W * ?"), HasSubstr("day-of-month"));
  EXPECT_THAT(ParseError("1- * * * * ?"), HasSubstr("seconds: missing range end"));
  EXPECT_THAT(ParseError("0 0 0 1 JANUARY ?"), HasSubstr("month: unknown name \"JANUARY\""));
  EXPECT_THAT(ParseError("0 0 0 1 * MON"), HasSubstr("exactly one"));
  EXPECT_THAT(ParseError("0 0 0 MON * ?"), HasSubstr("day-of-month: unknown name"));
  EXPECT_THAT(ParseError("0\n0 0 1 * ?"), HasSubstr("seconds"));
}

TEST(CronParseTest, CaseInsensitiveAndWhitespace) {
  EXPECT_EQ(Next("0 0 12 ? jan mon-fri", Utc(2024, 1, 1), 1),
            Next("0 0 12 ? JAN MON-FRI", Utc(2024, 1, 1), 1));
  EXPECT_EQ(Next("  0\t0 12 lw * ?  ", Utc(2024, 1, 1), 1),
            std::vector<absl::Time>{Utc(2024, 1, 31, 12)});
  EXPECT_EQ(Next("00 00 12 ? * fri#2", Utc(2024, 1, 1), 1),
            std::vector<absl::Time>{Utc(2024, 1, 12, 12)});
}

TEST(CronNextTest, StrictlyAfterWholeSeconds) {
  EXPECT_EQ(Next("* * * * * ?", Utc(2024, 1, 1), 1),
            std::vector<absl::Time>{Utc(2024, 1, 1, 0, 0, 1)});
  EXPECT_EQ(Next("* * * * * ?", Utc(2024, 1, 1) + absl::Milliseconds(999), 1),
            std::vector<absl::Time>{Utc(2024, 1, 1, 0, 0, 1)});
  EXPECT_EQ(Next("* * * * * ?", Utc(2024, 1, 1) - absl::Milliseconds(1), 1),
            std::vector<absl::Time>{Utc(2024, 1, 1)});
}

TEST(CronNextTest, EveryFiveSeconds) {
  EXPECT_EQ(Next("*/5 * * * * ?", Utc(2024, 1, 1, 23, 59, 57), 2),
            (std::vector<absl::Time>{Utc(2024, 1, 2), Utc(2024, 1, 2, 0, 0, 5)}));
}

TEST(CronNextTest, WrappingRanges) {
  EXPECT_EQ(Next("0 0 22-2 * * ?", Utc(2024, 1, 1, 3), 5),
            (std::vector<absl::Time>{Utc(2024, 1, 1, 22), Utc(2024, 1, 1, 23), Utc(2024, 1, 2, 0),
                                     Utc(2024, 1, 2, 1), Utc(2024, 1, 2, 2)}));
  EXPECT_EQ(Next("0 0 0 1 NOV-FEB ?", Utc(2024, 3, 1), 4),
            (std::vector<absl::Time>{Utc(2024, 11, 1), Utc(2024, 12, 1), Utc(2025, 1, 1),
                                     Utc(2025, 2, 1)}));
  // 2024-01-05 is a Friday: FRI, SAT, SUN, MON.
  EXPECT_EQ(Next("0 0 0 ? * FRI-MON", Utc(2024, 1, 4), 5),
            (std::vector<absl::Time>{Utc(2024, 1, 5), Utc(2024, 1, 6), Utc(2024, 1, 7),
                                     Utc(2024, 1, 8), Utc(2024, 1, 12)}));
  EXPECT_EQ(Next("50-10/5 * * * * ?", Utc(2024, 1, 1, 0, 0, 11), 3),
            (std::vector<absl::Time>{Utc(2024, 1, 1, 0, 0, 50), Utc(2024, 1, 1, 0, 0, 55),
                                     Utc(2024, 1, 1, 0, 1, 0)}));
}

TEST(CronNextTest, LastDays) {
  EXPECT_EQ(
      Next("0 0 12 L-3 * ?", Utc(2024, 1, 1), 3),
      (std::vector<absl::Time>{Utc(2024, 1, 28, 12), Utc(2024, 2, 26, 12), Utc(2024, 3, 28, 12)}));
  // 2024-03-31 is a Sunday, 2024-08-31 a Saturday.
  EXPECT_EQ(Next("0 0 0 LW * ?", Utc(2024, 3, 1), 1), std::vector<absl::Time>{Utc(2024, 3, 29)});
  EXPECT_EQ(Next("0 0 0 LW 8 ?", Utc(2024, 3, 1), 1), std::vector<absl::Time>{Utc(2024, 8, 30)});
  // Last Friday.
  EXPECT_EQ(Next("0 0 0 ? * 6L", Utc(2024, 1, 1), 2),
            (std::vector<absl::Time>{Utc(2024, 1, 26), Utc(2024, 2, 23)}));
  // L alone in day-of-week is Saturday.
  EXPECT_EQ(Next("0 0 0 ? * L", Utc(2024, 1, 1), 1), std::vector<absl::Time>{Utc(2024, 1, 6)});
}

// L-nW: the weekday nearest to day (last - n), as Quartz computes it, never
// leaving the month (tests/quartz also compares these with Quartz itself).
TEST(CronNextTest, NearestWeekdayToLastDayMinusN) {
  // 2024-01-28 (31 - 3) is a Sunday: Monday the 29th. 2024-02-26 (29 - 3, a
  // leap February) is a Monday. 2024-08-28 is a Wednesday.
  EXPECT_EQ(Next("0 0 0 L-3W * ?", Utc(2024, 1, 1), 3),
            (std::vector<absl::Time>{Utc(2024, 1, 29), Utc(2024, 2, 26), Utc(2024, 3, 28)}));
  EXPECT_EQ(Next("0 0 0 L-3W 8 ?", Utc(2024, 1, 1), 1), std::vector<absl::Time>{Utc(2024, 8, 28)});
  // 2025-08-30 (31 - 1) is a Saturday: Friday the 29th; 2025-03-30 a Sunday:
  // Monday the 31st.
  EXPECT_EQ(Next("0 0 0 L-1W 8 ?", Utc(2025, 1, 1), 1), std::vector<absl::Time>{Utc(2025, 8, 29)});
  EXPECT_EQ(Next("0 0 0 L-1W 3 ?", Utc(2025, 1, 1), 1), std::vector<absl::Time>{Utc(2025, 3, 31)});
  // February: 2025-02-25 (28 - 3) is a Tuesday; 2026-02-25 a Wednesday.
  EXPECT_EQ(Next("0 0 0 L-3W 2 ?", Utc(2025, 1, 1), 2),
            (std::vector<absl::Time>{Utc(2025, 2, 25), Utc(2026, 2, 25)}));
  // L-n is the 1st: Saturday the 1st goes forward to Monday the 3rd
  // (2025-02-01), Sunday the 1st to Monday the 2nd (2026-02-01), a weekday
  // stays (2021-02-01, Monday). Leap years: 2024-02-02 (29 - 27) is a Friday.
  EXPECT_EQ(Next("0 0 0 L-27W 2 ?", Utc(2021, 1, 1), 6),
            (std::vector<absl::Time>{Utc(2021, 2, 1), Utc(2022, 2, 1), Utc(2023, 2, 1),
                                     Utc(2024, 2, 2), Utc(2025, 2, 3), Utc(2026, 2, 2)}));
  EXPECT_EQ(Next("0 0 0 L-28W 2 ?", Utc(2024, 1, 1), 2),  // only leap Februaries have a 1st
            (std::vector<absl::Time>{Utc(2024, 2, 1), Utc(2028, 2, 1)}));
  EXPECT_EQ(Next("0 0 0 L-30W * ?", Utc(2024, 1, 1), 3),  // 31-day months only
            (std::vector<absl::Time>{Utc(2024, 3, 1), Utc(2024, 5, 1), Utc(2024, 7, 1)}));
  // L-0W is LW; the offset is case-insensitive.
  EXPECT_EQ(Next("0 0 0 L-0W * ?", Utc(2020, 1, 1), 24), Next("0 0 0 LW * ?", Utc(2020, 1, 1), 24));
  EXPECT_EQ(Next("0 0 0 l-3w * ?", Utc(2020, 1, 1), 24),
            Next("0 0 0 L-3W * ?", Utc(2020, 1, 1), 24));
}

TEST(CronNextTest, NearestWeekday) {
  // 2024-06-01 is a Saturday: 1W moves forward to Monday the 3rd.
  EXPECT_EQ(Next("0 0 0 1W 6 ?", Utc(2024, 1, 1), 1), std::vector<absl::Time>{Utc(2024, 6, 3)});
  // 2024-06-15 is a Saturday: 15W is Friday the 14th.
  EXPECT_EQ(Next("0 0 0 15W 6 ?", Utc(2024, 1, 1), 1), std::vector<absl::Time>{Utc(2024, 6, 14)});
  // 2024-03-31 is a Sunday: 31W is Friday the 29th (never crosses the month).
  EXPECT_EQ(Next("0 0 0 31W 3 ?", Utc(2024, 1, 1), 1), std::vector<absl::Time>{Utc(2024, 3, 29)});
  // Quartz: 31W in a 30-day month fires on the 30th only when the 31st would
  // be a Saturday (2021-05-01 was one), otherwise not that month.
  EXPECT_EQ(Next("0 0 0 31W 4 ?", Utc(2021, 1, 1), 1), std::vector<absl::Time>{Utc(2021, 4, 30)});
  EXPECT_EQ(Next("0 0 0 31W 4 ?", Utc(2022, 1, 1), 1), std::vector<absl::Time>{Utc(2027, 4, 30)});
}

TEST(CronNextTest, NthWeekday) {
  // Third Friday at 10:15.
  EXPECT_EQ(Next("0 15 10 ? * 6#3", Utc(2024, 1, 1), 2),
            (std::vector<absl::Time>{Utc(2024, 1, 19, 10, 15), Utc(2024, 2, 16, 10, 15)}));
  // A fifth Thursday exists only in some months.
  EXPECT_EQ(Next("0 0 0 ? * 5#5", Utc(2024, 1, 1), 3),
            (std::vector<absl::Time>{Utc(2024, 2, 29), Utc(2024, 5, 30), Utc(2024, 8, 29)}));
}

TEST(CronNextTest, NeverFiresAgain) {
  EXPECT_EQ(Next("0 0 0 30 2 ?", Utc(2024, 1, 1), 1), std::vector<absl::Time>{});
  EXPECT_EQ(Next("0 0 0 1 1 ? 2020", Utc(2024, 1, 1), 1), std::vector<absl::Time>{});
  EXPECT_EQ(Next("0 0 0 1 1 ? 2025", Utc(2024, 1, 1), 2), std::vector<absl::Time>{Utc(2025, 1, 1)});
}

TEST(CronNextTest, YearLimit) {
  EXPECT_EQ(Next("* * * * * ?", Utc(kMaxYear, 12, 31, 23, 59, 58), 2),
            std::vector<absl::Time>{Utc(kMaxYear, 12, 31, 23, 59, 59)});
  EXPECT_EQ(Next("0 0 0 1 1 ? 2200", Utc(2024, 1, 1), 1), std::vector<absl::Time>{});
  absl::StatusOr<CronExpression> e = CronExpression::Parse("* * * * * ?");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->NextAfter(absl::InfiniteFuture(), absl::UTCTimeZone()), std::nullopt);
  EXPECT_EQ(e->NextAfter(absl::InfinitePast(), absl::UTCTimeZone()), Utc(1970, 1, 1));
}

}  // namespace
}  // namespace gnomon::cron

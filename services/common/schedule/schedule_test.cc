#include "services/common/schedule/schedule.h"

#include <vector>

#include "absl/time/civil_time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"

namespace gnomon::schedule {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

gnomon::v1::Schedule Cron(const std::string& expr, const std::string& zone = "") {
  gnomon::v1::Schedule s;
  s.mutable_cron()->set_expression(expr);
  s.mutable_cron()->set_time_zone(zone);
  return s;
}

gnomon::v1::Schedule FixRate(int64_t seconds, int32_t nanos) {
  gnomon::v1::Schedule s;
  s.mutable_fix_rate()->set_seconds(seconds);
  s.mutable_fix_rate()->set_nanos(nanos);
  return s;
}

gnomon::v1::Schedule FixDelay(int64_t seconds, int32_t nanos) {
  gnomon::v1::Schedule s;
  s.mutable_fix_delay()->set_seconds(seconds);
  s.mutable_fix_delay()->set_nanos(nanos);
  return s;
}

absl::Time Utc(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), absl::UTCTimeZone());
}

TEST(ValidateScheduleTest, AcceptsEachKind) {
  EXPECT_TRUE(ValidateSchedule(gnomon::v1::Schedule()).ok());  // NONE
  EXPECT_TRUE(ValidateSchedule(Cron("0 0 12 * * ?")).ok());
  EXPECT_TRUE(ValidateSchedule(Cron("0 0 12 * * ?", "Europe/Berlin")).ok());
  EXPECT_TRUE(ValidateSchedule(FixRate(0, 100000000)).ok());
  EXPECT_TRUE(ValidateSchedule(FixRate(3600, 0)).ok());
  EXPECT_TRUE(ValidateSchedule(FixDelay(1, 500000000)).ok());
}

TEST(ValidateScheduleTest, NamesTheCronExpressionField) {
  absl::Status s = ValidateSchedule(Cron("0 0 12 ? * MON!"));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          "schedule.cron.expression: day-of-week: unexpected text \"!\" in "
                          "\"MON!\""));
}

TEST(ValidateScheduleTest, RejectsUnknownZone) {
  absl::Status s = ValidateSchedule(Cron("0 0 12 * * ?", "Mars/Base"));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          "schedule.cron.time_zone: unknown zone \"Mars/Base\""));
  s = ValidateSchedule(Cron("0 0 12 * * ?", std::string(1 << 20, 'z')));
  EXPECT_EQ(s.message(), "schedule.cron.time_zone: unknown zone \"" + std::string(32, 'z') + "…\"");
}

TEST(ValidateScheduleTest, RejectsZoneNamesThatAreNotZones) {
  for (const char* name : {"localtime", "/etc/passwd", "../../etc/passwd", "Europe//Berlin",
                           "Europe/Berlin ", "europe/nowhere"}) {
    EXPECT_THAT(ValidateSchedule(Cron("0 0 12 * * ?", name)),
                StatusIs(absl::StatusCode::kInvalidArgument))
        << name;
  }
}

TEST(ValidateScheduleTest, FixRateBelowMinimum) {
  absl::Status s = ValidateSchedule(FixRate(0, 50000000));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          "schedule.fix_rate: period 50ms is below the minimum of 100ms"));
  EXPECT_THAT(ValidateSchedule(FixRate(0, 99999999)), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ValidateSchedule(FixRate(0, 0)), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ValidateSchedule(FixRate(-1, 0)), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ValidateScheduleTest, FixRateMustBeWholeMilliseconds) {
  absl::Status s = ValidateSchedule(FixRate(0, 150500000));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          AllOf(HasSubstr("schedule.fix_rate: period"),
                                HasSubstr("whole number of milliseconds"))));
}

TEST(ValidateScheduleTest, MalformedDurations) {
  EXPECT_THAT(ValidateSchedule(FixRate(1, -5)), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ValidateSchedule(FixRate(0, 1000000000)),
              StatusIs(absl::StatusCode::kInvalidArgument));
  absl::Status s = ValidateSchedule(FixRate(315576000000, 0));
  EXPECT_THAT(s.message(), HasSubstr("above the maximum"));
}

TEST(ValidateScheduleTest, FixDelayNamesItsField) {
  absl::Status s = ValidateSchedule(FixDelay(0, 10000000));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          "schedule.fix_delay: delay 10ms is below the minimum of 100ms"));
}

TEST(LoadZoneTest, EmptyAndUtcAreUtc) {
  absl::StatusOr<absl::TimeZone> z = LoadZone("");
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->name(), "UTC");
  z = LoadZone("UTC");
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->name(), "UTC");
}

TEST(LoadZoneTest, LoadsIanaZones) {
  absl::StatusOr<absl::TimeZone> z = LoadZone("America/Sao_Paulo");
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->name(), "America/Sao_Paulo");
  EXPECT_EQ(z->At(Utc(2023, 6, 1)).offset, -3 * 3600);
}

TEST(PreviewTest, CronInItsZone) {
  // 09:00 in Berlin is 08:00 UTC in winter (CET) and 07:00 in summer (CEST).
  auto got = Preview(Cron("0 0 9 ? * MON-FRI", "Europe/Berlin"), Utc(2024, 3, 28, 12), 3);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_THAT(*got, ElementsAre(Utc(2024, 3, 29, 8), Utc(2024, 4, 1, 7), Utc(2024, 4, 2, 7)));
}

TEST(PreviewTest, CronStopsWhenTheExpressionDoes) {
  auto got = Preview(Cron("0 0 0 1 1 ? 2030,2031"), Utc(2024, 1, 1), 5);
  ASSERT_TRUE(got.ok());
  EXPECT_THAT(*got, ElementsAre(Utc(2030, 1, 1), Utc(2031, 1, 1)));
}

TEST(PreviewTest, FixRateAddsPeriods) {
  absl::Time from = absl::FromUnixMillis(1700000000123);
  auto got = Preview(FixRate(0, 250000000), from, 3);
  ASSERT_TRUE(got.ok());
  EXPECT_THAT(*got, ElementsAre(from + absl::Milliseconds(250), from + absl::Milliseconds(500),
                                from + absl::Milliseconds(750)));
}

TEST(PreviewTest, FixDelayAssumesInstantRuns) {
  absl::Time from = Utc(2024, 1, 1);
  auto got = Preview(FixDelay(2, 0), from, 2);
  ASSERT_TRUE(got.ok());
  EXPECT_THAT(*got, ElementsAre(from + absl::Seconds(2), from + absl::Seconds(4)));
}

TEST(PreviewTest, NoneIsEmpty) {
  auto got = Preview(gnomon::v1::Schedule(), Utc(2024, 1, 1), 10);
  ASSERT_TRUE(got.ok());
  EXPECT_TRUE(got->empty());
}

TEST(PreviewTest, InvalidScheduleOrCount) {
  EXPECT_THAT(Preview(Cron("bogus"), Utc(2024, 1, 1), 3),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Preview(FixRate(1, 0), Utc(2024, 1, 1), -1),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Preview(FixRate(1, 0), Utc(2024, 1, 1), kMaxPreviewCount + 1),
              StatusIs(absl::StatusCode::kInvalidArgument));
  auto zero = Preview(FixRate(1, 0), Utc(2024, 1, 1), 0);
  ASSERT_TRUE(zero.ok());
  EXPECT_TRUE(zero->empty());
}

TEST(NextCronFireTest, DefaultsToUtcAndIsStrictlyAfter) {
  gnomon::v1::CronSchedule c;
  c.set_expression("0 30 * * * ?");
  EXPECT_EQ(NextCronFire(c, Utc(2024, 5, 5, 10, 30)), Utc(2024, 5, 5, 11, 30));
  EXPECT_EQ(NextCronFire(c, Utc(2024, 5, 5, 10, 29, 59) + absl::Milliseconds(999)),
            Utc(2024, 5, 5, 10, 30));
  c.set_time_zone("Asia/Kolkata");  // +05:30
  EXPECT_EQ(NextCronFire(c, Utc(2024, 5, 5, 10, 0)), Utc(2024, 5, 5, 11, 0));
}

TEST(NextCronFireTest, InvalidIsNullopt) {
  gnomon::v1::CronSchedule c;
  c.set_expression("0 0 0 * * *");
  EXPECT_EQ(NextCronFire(c, Utc(2024, 1, 1)), std::nullopt);
  c.set_expression("0 0 0 * * ?");
  c.set_time_zone("Mars/Base");
  EXPECT_EQ(NextCronFire(c, Utc(2024, 1, 1)), std::nullopt);
}

TEST(CompileCronTest, ReusableAndNamesFields) {
  gnomon::v1::CronSchedule c;
  c.set_expression("0 0 12 L-3 * ?");
  c.set_time_zone("Europe/Berlin");
  absl::StatusOr<CompiledCron> compiled = CompileCron(c);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  // Noon in Berlin on 2024-01-28 (CET) and 2024-04-27 (CEST).
  EXPECT_EQ(compiled->NextAfter(Utc(2024, 1, 1)), Utc(2024, 1, 28, 11));
  EXPECT_EQ(compiled->NextAfter(Utc(2024, 4, 1)), Utc(2024, 4, 27, 10));
  c.set_expression("0 0 12 L-31 * ?");
  EXPECT_THAT(CompileCron(c).status().message(),
              HasSubstr("schedule.cron.expression: day-of-month: offset 31"));
  c.set_expression("0 0 12 L * ?");
  c.set_time_zone("localtime");
  EXPECT_EQ(CompileCron(c).status().message(),
            "schedule.cron.time_zone: unknown zone \"localtime\"");
}

}  // namespace
}  // namespace gnomon::schedule

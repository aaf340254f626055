// gnomon's DST policy (docs/dst.md) on real transitions from the system
// tzdata: a wall-clock fire time inside a spring-forward gap fires once, at
// the first instant after the gap; a wall-clock fire time repeated by a
// fall-back overlap fires once, at its first occurrence.
#include <string>
#include <vector>

#include "absl/time/civil_time.h"
#include "gtest/gtest.h"
#include "services/common/cron/cron.h"

namespace gnomon::cron {
namespace {

absl::TimeZone Zone(const std::string& name) {
  absl::TimeZone z;
  EXPECT_TRUE(absl::LoadTimeZone(name, &z)) << name;
  return z;
}

absl::Time Utc(int y, int mo, int d, int h, int mi = 0, int s = 0) {
  return absl::FromCivil(absl::CivilSecond(y, mo, d, h, mi, s), absl::UTCTimeZone());
}

// The next `n` fires strictly after `from`, in `zone`.
std::vector<absl::Time> Fires(const std::string& expr, const absl::TimeZone& zone, absl::Time from,
                              int n) {
  absl::StatusOr<CronExpression> e = CronExpression::Parse(expr);
  EXPECT_TRUE(e.ok()) << e.status();
  std::vector<absl::Time> out;
  for (int i = 0; e.ok() && i < n; ++i) {
    std::optional<absl::Time> t = e->NextAfter(from, zone);
    if (!t) break;
    out.push_back(*t);
    from = *t;
  }
  return out;
}

// Guards the test's premises: the tzdata really has the transition.
void ExpectKind(const absl::TimeZone& z, absl::CivilSecond cs,
                absl::TimeZone::TimeInfo::CivilKind kind) {
  EXPECT_EQ(z.At(cs).kind, kind) << z.name() << " " << cs;
}

using Times = std::vector<absl::Time>;
constexpr auto kSkipped = absl::TimeZone::TimeInfo::SKIPPED;
constexpr auto kRepeated = absl::TimeZone::TimeInfo::REPEATED;

TEST(CronDstTest, NewYorkSpringForwardGapFiresAtGapEnd) {
  absl::TimeZone ny = Zone("America/New_York");
  ExpectKind(ny, absl::CivilSecond(2024, 3, 10, 2, 30, 0), kSkipped);
  // 02:30 does not exist on 2024-03-10; the clock jumps 02:00 EST -> 03:00
  // EDT (07:00 UTC). Quartz skips the day; gnomon fires at 03:00 EDT.
  EXPECT_EQ(Fires("0 30 2 * * ?", ny, Utc(2024, 3, 9, 5), 3),
            (Times{Utc(2024, 3, 9, 7, 30), Utc(2024, 3, 10, 7), Utc(2024, 3, 11, 6, 30)}));
}

TEST(CronDstTest, NewYorkGapFiresOnceForManyWallClockTimes) {
  absl::TimeZone ny = Zone("America/New_York");
  // Every minute of 02:xx: the whole hour is skipped, so one fire at 03:00
  // EDT, then the next day's 02:00 EDT.
  EXPECT_EQ(Fires("0 * 2 * * ?", ny, Utc(2024, 3, 10, 6), 2),
            (Times{Utc(2024, 3, 10, 7), Utc(2024, 3, 11, 6)}));
  // Every minute: 01:59 EST, 03:00 EDT (the gap's 60 minutes and 03:00
  // itself fire once), 03:01 EDT.
  EXPECT_EQ(Fires("0 * * * * ?", ny, Utc(2024, 3, 10, 6, 58), 3),
            (Times{Utc(2024, 3, 10, 6, 59), Utc(2024, 3, 10, 7), Utc(2024, 3, 10, 7, 1)}));
}

TEST(CronDstTest, NewYorkFallBackOverlapFiresAtFirstOccurrence) {
  absl::TimeZone ny = Zone("America/New_York");
  ExpectKind(ny, absl::CivilSecond(2024, 11, 3, 1, 30, 0), kRepeated);
  // 01:30 happens at 05:30 UTC (EDT) and again at 06:30 UTC (EST).
  EXPECT_EQ(Fires("0 30 1 * * ?", ny, Utc(2024, 11, 2, 12), 3),
            (Times{Utc(2024, 11, 2, 5, 30) + absl::Hours(24), Utc(2024, 11, 4, 6, 30),
                   Utc(2024, 11, 5, 6, 30)}));
}

TEST(CronDstTest, NewYorkOverlapSecondPassDoesNotRepeatFires) {
  absl::TimeZone ny = Zone("America/New_York");
  // Every 15 minutes: 01:00-01:45 EDT fire, the second pass of 01:xx (EST)
  // does not, and 02:00 EST follows.
  EXPECT_EQ(Fires("0 */15 * * * ?", ny, Utc(2024, 11, 3, 4, 50), 6),
            (Times{Utc(2024, 11, 3, 5), Utc(2024, 11, 3, 5, 15), Utc(2024, 11, 3, 5, 30),
                   Utc(2024, 11, 3, 5, 45), Utc(2024, 11, 3, 7), Utc(2024, 11, 3, 7, 15)}));
  // Asked from inside the second pass (01:10 EST = 06:10 UTC).
  EXPECT_EQ(Fires("0 */15 * * * ?", ny, Utc(2024, 11, 3, 6, 10), 1), (Times{Utc(2024, 11, 3, 7)}));
}

TEST(CronDstTest, BerlinGapAndOverlap) {
  absl::TimeZone berlin = Zone("Europe/Berlin");
  ExpectKind(berlin, absl::CivilSecond(2024, 3, 31, 2, 30, 0), kSkipped);
  ExpectKind(berlin, absl::CivilSecond(2024, 10, 27, 2, 30, 0), kRepeated);
  // 2024-03-31 02:00 CET -> 03:00 CEST (01:00 UTC).
  EXPECT_EQ(Fires("0 30 2 * * ?", berlin, Utc(2024, 3, 30, 12), 2),
            (Times{Utc(2024, 3, 31, 1), Utc(2024, 4, 1, 0, 30)}));
  // 2024-10-27 03:00 CEST -> 02:00 CET: 02:30 fires at 00:30 UTC only.
  EXPECT_EQ(Fires("0 30 2 * * ?", berlin, Utc(2024, 10, 26, 12), 2),
            (Times{Utc(2024, 10, 27, 0, 30), Utc(2024, 10, 28, 1, 30)}));
}

TEST(CronDstTest, LordHoweHalfHourShift) {
  absl::TimeZone lh = Zone("Australia/Lord_Howe");
  // 2024-10-06 02:00 +10:30 -> 02:30 +11 (15:30 UTC on the 5th).
  ExpectKind(lh, absl::CivilSecond(2024, 10, 6, 2, 15, 0), kSkipped);
  EXPECT_EQ(Fires("0 15 2 * * ?", lh, Utc(2024, 10, 5, 0), 2),
            (Times{Utc(2024, 10, 5, 15, 30), Utc(2024, 10, 6, 15, 15)}));
  // 2024-04-07 02:00 +11 -> 01:30 +10:30: 01:45 happens at 14:45 and 15:15
  // UTC on the 6th; it fires at the first.
  ExpectKind(lh, absl::CivilSecond(2024, 4, 7, 1, 45, 0), kRepeated);
  EXPECT_EQ(Fires("0 45 1 * * ?", lh, Utc(2024, 4, 6, 0), 2),
            (Times{Utc(2024, 4, 6, 14, 45), Utc(2024, 4, 7, 15, 15)}));
}

TEST(CronDstTest, ChathamGapAt0245) {
  absl::TimeZone ch = Zone("Pacific/Chatham");
  // 2024-09-29 02:45 +12:45 -> 03:45 +13:45 (14:00 UTC on the 28th).
  ExpectKind(ch, absl::CivilSecond(2024, 9, 29, 3, 0, 0), kSkipped);
  EXPECT_EQ(Fires("0 0 3 * * ?", ch, Utc(2024, 9, 28, 0), 2),
            (Times{Utc(2024, 9, 28, 14), Utc(2024, 9, 29, 13, 15)}));
  // 02:44 is just before the gap and fires normally (13:59 UTC).
  EXPECT_EQ(Fires("0 44 2 * * ?", ch, Utc(2024, 9, 28, 0), 1), (Times{Utc(2024, 9, 28, 13, 59)}));
  // 2024-04-07 03:45 +13:45 -> 02:45 +12:45: 03:00 fires once, at 13:15 UTC.
  ExpectKind(ch, absl::CivilSecond(2024, 4, 7, 3, 0, 0), kRepeated);
  EXPECT_EQ(Fires("0 0 3 * * ?", ch, Utc(2024, 4, 6, 0), 2),
            (Times{Utc(2024, 4, 6, 13, 15), Utc(2024, 4, 7, 14, 15)}));
}

TEST(CronDstTest, SaoPauloMidnightChange) {
  absl::TimeZone sp = Zone("America/Sao_Paulo");
  // 2018-11-04 00:00 -03 -> 01:00 -02: midnight never happened that day.
  ExpectKind(sp, absl::CivilSecond(2018, 11, 4, 0, 0, 0), kSkipped);
  EXPECT_EQ(Fires("0 0 0 * * ?", sp, Utc(2018, 11, 3, 12), 2),
            (Times{Utc(2018, 11, 4, 3), Utc(2018, 11, 5, 2)}));
  EXPECT_EQ(Fires("0 0 0 4 11 ?", sp, Utc(2018, 1, 1, 0), 1), (Times{Utc(2018, 11, 4, 3)}));
  // 2019-02-17 00:00 -02 -> 2019-02-16 23:00 -03: 23:30 on the 16th happens
  // twice and fires at the first (01:30 UTC).
  ExpectKind(sp, absl::CivilSecond(2019, 2, 16, 23, 30, 0), kRepeated);
  EXPECT_EQ(Fires("0 30 23 * * ?", sp, Utc(2019, 2, 16, 12), 2),
            (Times{Utc(2019, 2, 17, 1, 30), Utc(2019, 2, 18, 2, 30)}));
  EXPECT_EQ(Fires("0 0 0 17 2 ?", sp, Utc(2019, 1, 1, 0), 1), (Times{Utc(2019, 2, 17, 3)}));
}

TEST(CronDstTest, GapOnTheOnlyMatchingDayStillFires) {
  absl::TimeZone berlin = Zone("Europe/Berlin");
  // A one-off at a wall-clock time that does not exist fires at the gap end
  // rather than never (Quartz: never).
  EXPECT_EQ(Fires("0 30 2 31 3 ? 2024", berlin, Utc(2024, 1, 1, 0), 2),
            (Times{Utc(2024, 3, 31, 1)}));
}

}  // namespace
}  // namespace gnomon::cron

#include "services/common/server/field_checks.h"

#include <cmath>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"

namespace gnomon::checks {
namespace {

using google::protobuf::Duration;
using google::protobuf::Timestamp;

auto RefusedAs(const std::string& message) {
  return StatusIs(absl::StatusCode::kInvalidArgument, message);
}

TEST(FieldChecks, PrefixQuotesAShortPrefixEscaped) {
  EXPECT_EQ(Prefix("abc"), "\"abc\"");
  EXPECT_EQ(Prefix(std::string(1 << 20, 'x')), "\"" + std::string(kPrefixChars, 'x') + "…\"");
  EXPECT_EQ(Prefix("a\nb\x01"), "\"a\\nb\\x01\"");
}

TEST(FieldChecks, StringsAreBoundedAndNamed) {
  EXPECT_TRUE(CheckText("job.author", std::string(256, 'a'), 256).ok());
  EXPECT_THAT(CheckText("job.author", std::string(1 << 20, 'a'), 256),
              RefusedAs("job.author: at most 256 bytes"));
  EXPECT_THAT(CheckString("group.app_name", "", 64, Charset::kName, 1),
              RefusedAs("group.app_name: empty"));
  EXPECT_TRUE(CheckText("job.description", "two\nlines\tand ünïcode", 1024).ok());
  EXPECT_THAT(CheckText("job.description", "bell\x07", 1024),
              RefusedAs("job.description: \"bell\\x07\": control characters other than tab and "
                        "newline are not allowed"));
  EXPECT_FALSE(CheckString("job.bean.handler", "has space", 128, Charset::kToken).ok());
  EXPECT_FALSE(CheckString("group.app_name", "a/b", 64, Charset::kName).ok());
  EXPECT_TRUE(CheckString("group.app_name", "billing-v2.eu_1", 64, Charset::kName).ok());
}

TEST(FieldChecks, CountsAndRanges) {
  EXPECT_THAT(CheckCount("job.child_job_ids", 101, 100),
              RefusedAs("job.child_job_ids: at most 100 items"));
  EXPECT_THAT(CheckCount("requests", 0, 1000, 1), RefusedAs("requests: empty"));
  EXPECT_THAT(CheckRange("job.misfire.max_catch_up", 4294967295, 0, 1000),
              RefusedAs("job.misfire.max_catch_up: 4294967295 is outside 0..1000"));
  EXPECT_TRUE(CheckRange("count", 100, 0, 100).ok());
}

TEST(FieldChecks, FiniteNumbersOnly) {
  EXPECT_THAT(CheckFinite("job.retry.multiplier", std::nan(""), 0, 100),
              RefusedAs("job.retry.multiplier: must be a finite number"));
  EXPECT_FALSE(CheckFinite("x", std::numeric_limits<double>::infinity(), 0, 100).ok());
  EXPECT_FALSE(CheckFinite("x", -1, 0, 100).ok());
  EXPECT_TRUE(CheckFinite("x", 2.5, 0, 100).ok());
}

TEST(FieldChecks, ExecutorNamesArePrintableTokens) {
  for (const char* ok : {"executor-1:9999", "10.0.0.7:1", "billing-7f9c/pod-2", "a"}) {
    EXPECT_TRUE(CheckExecutorName("a", ok).ok()) << ok;
  }
  for (const char* bad : {"", "sp ace", "tab\there", "new\nline"}) {
    absl::Status s = CheckExecutorName("group.manual.addresses[0]", bad);
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument)) << bad;
    EXPECT_EQ(s.message().rfind("group.manual.addresses[0]: ", 0), 0u) << s;
  }
  absl::Status s = CheckExecutorName("a", std::string(1 << 20, 'h'));
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_LT(s.message().size(), 120u) << s;
  EXPECT_TRUE(CheckExecutorName("a", std::string(255, 'h')).ok());
}

TEST(FieldChecks, Timestamps) {
  Timestamp t;
  t.set_seconds(1'700'000'000);
  EXPECT_TRUE(CheckTimestamp("start_time", t).ok());
  t.set_nanos(-1);
  EXPECT_THAT(CheckTimestamp("start_time", t), RefusedAs("start_time: nanos outside 0..999999999"));
  t.set_nanos(0);
  t.set_seconds(std::numeric_limits<int64_t>::max());
  EXPECT_THAT(CheckTimestamp("start_time", t), RefusedAs("start_time: outside years 1970..9999"));
  t.set_seconds(-1);
  EXPECT_FALSE(CheckTimestamp("start_time", t).ok());
  t.set_seconds(253'402'300'799);
  EXPECT_TRUE(CheckTimestamp("start_time", t).ok());
  EXPECT_EQ(ToTime(t),
            absl::FromCivil(absl::CivilSecond(9999, 12, 31, 23, 59, 59), absl::UTCTimeZone()));
}

TEST(FieldChecks, Durations) {
  Duration d;
  d.set_seconds(60);
  EXPECT_TRUE(CheckDuration("job.timeout", d, absl::ZeroDuration(), absl::Hours(1)).ok());
  d.set_seconds(std::numeric_limits<int64_t>::max());
  EXPECT_THAT(CheckDuration("job.timeout", d, absl::ZeroDuration(), absl::Hours(1)),
              RefusedAs("job.timeout: outside 0..1h"));
  d.set_seconds(-5);
  EXPECT_THAT(CheckDuration("job.timeout", d, absl::ZeroDuration(), absl::Hours(1)),
              RefusedAs("job.timeout: negative"));
  d.set_seconds(1);
  d.set_nanos(-1);
  EXPECT_THAT(CheckDuration("job.timeout", d, absl::ZeroDuration(), absl::Hours(1)),
              RefusedAs("job.timeout: nanos outside 0..999999999"));
}

TEST(FieldChecks, FirstErrorKeepsOrder) {
  EXPECT_TRUE(FirstError({absl::OkStatus(), absl::OkStatus()}).ok());
  EXPECT_THAT(FirstError({absl::OkStatus(), Invalid("a", "x"), Invalid("b", "y")}),
              RefusedAs("a: x"));
  EXPECT_EQ(Indexed("requests", 3), "requests[3]");
}

TEST(FieldChecks, PageTokens) {
  EXPECT_EQ(*ParsePageToken("page_token", ""), 0);
  EXPECT_EQ(*ParsePageToken("page_token", "42"), 42);
  EXPECT_THAT(ParsePageToken("page_token", std::string(1 << 20, '1')).status(),
              RefusedAs("page_token: at most 20 bytes"));
  for (const char* bad : {"0", "-1", "+5", "abc", "99999999999999999999"}) {
    EXPECT_THAT(ParsePageToken("page_token", bad).status(),
                RefusedAs("page_token: not a token from a previous response"))
        << bad;
  }
}

}  // namespace
}  // namespace gnomon::checks

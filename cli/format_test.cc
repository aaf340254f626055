// Table and JSON formatting.
#include "cli/format.h"

#include <sstream>

#include "cli/names.h"
#include "cli/printers.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace gnomon::cli {
namespace {

using ::testing::HasSubstr;

google::protobuf::Timestamp Ts(int64_t millis) { return ToTimestamp(absl::FromUnixMillis(millis)); }

TEST(FormatTest, TimesWithMillisecondsInZone) {
  absl::TimeZone berlin;
  ASSERT_TRUE(absl::LoadTimeZone("Europe/Berlin", &berlin));
  EXPECT_EQ(FormatTime(Ts(1714564800250), berlin), "2024-05-01T14:00:00.250+02:00");
  EXPECT_EQ(FormatTime(Ts(1714564800250), absl::UTCTimeZone()), "2024-05-01T12:00:00.250+00:00");
  EXPECT_EQ(FormatUtc(absl::FromUnixMillis(1714564800250)), "2024-05-01T12:00:00.250Z");
  EXPECT_EQ(FormatTime(google::protobuf::Timestamp(), berlin), "-");
}

TEST(FormatTest, Durations) {
  EXPECT_EQ(FormatDuration(ToDurationProto(absl::Milliseconds(500))), "500ms");
  EXPECT_EQ(FormatDuration(ToDurationProto(absl::Seconds(90))), "1m30s");
  EXPECT_EQ(FormatDuration(ToDurationProto(absl::Milliseconds(1500))), "1.5s");
  EXPECT_EQ(FormatDuration(google::protobuf::Duration()), "-");
  google::protobuf::Duration d = ToDurationProto(absl::Milliseconds(2250));
  EXPECT_EQ(d.seconds(), 2);
  EXPECT_EQ(d.nanos(), 250000000);
}

TEST(FormatTest, Schedules) {
  v1::Schedule s;
  EXPECT_EQ(DescribeSchedule(s), "manual");
  s.mutable_cron()->set_expression("0 * * * * ?");
  EXPECT_EQ(DescribeSchedule(s), "cron '0 * * * * ?' UTC");
  s.mutable_cron()->set_time_zone("Europe/Berlin");
  EXPECT_EQ(DescribeSchedule(s), "cron '0 * * * * ?' Europe/Berlin");
  *s.mutable_fix_rate() = ToDurationProto(absl::Seconds(2));
  EXPECT_EQ(DescribeSchedule(s), "fix_rate 2s");
  *s.mutable_fix_delay() = ToDurationProto(absl::Seconds(10));
  EXPECT_EQ(DescribeSchedule(s), "fix_delay 10s");
}

TEST(FormatTest, EnumWords) {
  EXPECT_EQ(RunStatusName(v1::RUN_STATUS_SUCCEEDED), "succeeded");
  EXPECT_EQ(TriggerTypeName(v1::TRIGGER_TYPE_FIX_RATE), "fix_rate");
  EXPECT_EQ(HandleCodeName(502), "502 timeout");
  EXPECT_EQ(HandleCodeName(417), "417");
  for (auto route :
       {v1::ROUTE_STRATEGY_FIRST, v1::ROUTE_STRATEGY_CONSISTENT_HASH,
        v1::ROUTE_STRATEGY_SHARDING_BROADCAST, v1::ROUTE_STRATEGY_LEAST_RECENTLY_USED}) {
    EXPECT_EQ(*ParseRoute(RouteName(route)), route);
  }
  EXPECT_EQ(*ParseBlock("discard-later"), v1::BLOCK_STRATEGY_DISCARD_LATER);
  EXPECT_EQ(*ParseMisfire("fire-once-now"), v1::MISFIRE_POLICY_FIRE_ONCE_NOW);
}

TEST(FormatTest, TableAlignsColumns) {
  Table t({"ID", "NAME", "NOTE"});
  t.AddRow({"1", "a-long-name", "x"});
  t.AddRow({"12345", "", "last column not padded"});
  std::ostringstream out;
  t.Render(out);
  EXPECT_EQ(out.str(),
            "ID     NAME         NOTE\n"
            "1      a-long-name  x\n"
            "12345  -            last column not padded\n");
}

TEST(FormatTest, JobTable) {
  v1::Job job;
  job.set_id(7);
  job.set_group_id(2);
  job.set_state(v1::JOB_STATE_RUNNING);
  job.mutable_schedule()->mutable_cron()->set_expression("0 * * * * ?");
  job.mutable_schedule()->mutable_cron()->set_time_zone("Europe/Berlin");
  job.mutable_bean()->set_handler("report");
  job.set_route_strategy(v1::ROUTE_STRATEGY_ROUND);
  *job.mutable_next_fire_time() = Ts(1714564800000);
  job.set_description("hourly");
  job.set_name("hourly-report");
  job.mutable_last_run()->set_run_id(40);
  job.mutable_last_run()->set_status(v1::RUN_STATUS_SUCCEEDED);
  google::protobuf::RepeatedPtrField<v1::Job> jobs;
  *jobs.Add() = job;
  std::ostringstream out;
  PrintJobTable(jobs, /*wide=*/false, out);
  // Next fire in the job's zone, with its offset.
  EXPECT_EQ(out.str(),
            "ID  NAME           GROUP  STATE    SCHEDULE                          TASK            "
            "ROUTE  NEXT FIRE                   LAST RUN          DESCRIPTION\n"
            "7   hourly-report  2      running  cron '0 * * * * ?' Europe/Berlin  handler report  "
            "round  2024-05-01 14:00:00 +02:00  run 40 succeeded  hourly\n");

  job.set_block_strategy(v1::BLOCK_STRATEGY_DISCARD_LATER);
  *job.mutable_timeout() = ToDurationProto(absl::Seconds(30));
  *job.mutable_deadline() = ToDurationProto(absl::Hours(1));
  job.mutable_retry()->set_max_retries(2);
  job.add_child_job_ids(8);
  job.add_child_job_ids(9);
  job.set_author("ana");
  *job.mutable_update_time() = Ts(1714564800500);
  job.mutable_schedule()->mutable_cron()->clear_time_zone();
  *jobs.Mutable(0) = job;
  std::ostringstream wide;
  PrintJobTable(jobs, /*wide=*/true, wide);
  EXPECT_THAT(
      wide.str(),
      HasSubstr("DESCRIPTION  START TIME  END TIME  MAX FIRES  BLOCK          POOL  PRIORITY  "
                "RUN TIMEOUT  DEADLINE  RETRIES  CHILDREN  AUTHOR  UPDATED\n"));
  // No zone is UTC.
  EXPECT_THAT(
      wide.str(),
      HasSubstr("2024-05-01 12:00:00 +00:00  run 40 succeeded  hourly       -           -         "
                "-          discard-later  -     -         30s          1h        2        "
                "8,9       ana     2024-05-01 12:00:00.5 +00:00\n"));
}

TEST(FormatTest, JobDetailsInTheJobsZone) {
  v1::Job job;
  job.mutable_schedule()->mutable_cron()->set_expression("0 0 18 * * ?");
  job.mutable_schedule()->mutable_cron()->set_time_zone("Asia/Shanghai");
  *job.mutable_next_fire_time() = Ts(1795514400000);  // 2026-11-24T10:00:00Z
  *job.mutable_timeout() = ToDurationProto(absl::Minutes(5));
  std::ostringstream out;
  PrintJobDetails(job, out);
  EXPECT_THAT(out.str(), HasSubstr("next fire:       2026-11-24 18:00:00 +08:00\n"));
  EXPECT_THAT(out.str(), HasSubstr("run timeout:     5m\n"));
  EXPECT_EQ(JobZone(job).name(), "Asia/Shanghai");
  job.mutable_schedule()->mutable_cron()->set_time_zone("Mars/Olympus");
  EXPECT_EQ(JobZone(job).name(), "UTC");
}

TEST(FormatTest, RunTableShowsDurationAndStatus) {
  google::protobuf::RepeatedPtrField<v1::Run> runs;
  v1::Run* run = runs.Add();
  run->set_id(12);
  run->set_job_id(7);
  run->set_status(v1::RUN_STATUS_FAILED);
  run->set_trigger_type(v1::TRIGGER_TYPE_RETRY);
  *run->mutable_trigger_time() = Ts(1714564800000);
  *run->mutable_start_time() = Ts(1714564800100);
  *run->mutable_end_time() = Ts(1714564802600);
  run->set_executor_address("10.0.0.5:9999");
  run->set_handle_code(500);
  std::ostringstream out;
  PrintRunTable(runs, absl::UTCTimeZone(), /*wide=*/false, out);
  EXPECT_THAT(out.str(), HasSubstr("12  7    failed  retry    "
                                   "2024-05-01T12:00:00.000+00:00  2.5s      "
                                   "10.0.0.5:9999  500 failure\n"));
  run->set_handler("report");
  run->set_attempt(2);
  *run->mutable_scheduled_time() = Ts(1714564800000);
  std::ostringstream wide;
  PrintRunTable(runs, absl::UTCTimeZone(), /*wide=*/true, wide);
  EXPECT_THAT(wide.str(), HasSubstr("CODE         HANDLER  ATTEMPT  SHARD  SCHEDULED"));
  EXPECT_THAT(wide.str(), HasSubstr("500 failure  report   2        -      "
                                    "2024-05-01T12:00:00.000+00:00  "
                                    "2024-05-01T12:00:00.100+00:00  100ms   "
                                    "2024-05-01T12:00:02.600+00:00\n"));
}

TEST(FormatTest, RunDurationOfInstantRunIsZeroNotMissing) {
  v1::Run run;
  EXPECT_EQ(RunDuration(run), "-");
  *run.mutable_start_time() = Ts(1714564800000);
  EXPECT_EQ(RunDuration(run), "-");  // still running
  *run.mutable_end_time() = Ts(1714564800000);
  EXPECT_EQ(RunDuration(run), "0s");
}

TEST(FormatTest, GroupDetailsShowTokenOnlyWhenPresent) {
  v1::Group group;
  group.set_id(3);
  group.set_app_name("billing");
  std::ostringstream without;
  PrintGroupDetails(group, absl::UTCTimeZone(), without);
  EXPECT_THAT(without.str(), ::testing::Not(HasSubstr("access token")));
  EXPECT_THAT(without.str(), HasSubstr("membership:  auto\n"));
  group.set_access_token("tok");
  std::ostringstream with;
  PrintGroupDetails(group, absl::UTCTimeZone(), with);
  EXPECT_THAT(with.str(), HasSubstr("access token:  tok\n"));
}

TEST(FormatTest, JsonUsesProtoFieldNamesAndRoundTrips) {
  v1::Group group;
  group.set_id(3);
  group.set_app_name("billing");
  group.mutable_manual()->add_addresses("a:1");
  absl::StatusOr<std::string> json = ToJson(group);
  ASSERT_TRUE(json.ok());
  EXPECT_THAT(*json, HasSubstr("\"app_name\": \"billing\""));
  EXPECT_THAT(*json, HasSubstr("\"access_token\": \"\""));  // always present
  EXPECT_EQ(json->back(), '\n');
  v1::Group back;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(*json, &back).ok());
  EXPECT_EQ(back.SerializeAsString(), group.SerializeAsString());
  absl::StatusOr<std::string> line = ToJson(group, /*indent=*/false);
  ASSERT_TRUE(line.ok());
  EXPECT_EQ(std::count(line->begin(), line->end(), '\n'), 1);
}

}  // namespace
}  // namespace gnomon::cli

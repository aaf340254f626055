// Argument parsing into request messages, without a server.
#include "cli/requests.h"

#include "absl/time/time.h"
#include "cli/format.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"

namespace gnomon::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

MATCHER_P(EqualsProto, text, "") {
  std::remove_cv_t<std::remove_reference_t<decltype(arg)>> expected;
  if (!google::protobuf::TextFormat::ParseFromString(text, &expected)) {
    *result_listener << "bad expected text";
    return false;
  }
  google::protobuf::util::MessageDifferencer diff;
  std::string report;
  diff.ReportDifferencesToString(&report);
  if (diff.Compare(expected, arg)) return true;
  *result_listener << report;
  return false;
}

ParsedArgs Parse(const std::vector<std::string>& args, const std::vector<FlagSpec>& specs) {
  absl::StatusOr<ParsedArgs> parsed = ParseFlags(args, specs);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : ParsedArgs();
}

absl::StatusOr<std::string> FakeRead(const std::string& path) {
  if (path == "a.py") return std::string("print('hi')\n");
  return absl::InvalidArgumentError("cannot read " + path);
}

TEST(FlagsTest, ShapesOfFlags) {
  std::vector<FlagSpec> specs = {
      {"title", "t", true, "T", ""}, {"start", "", false, "", ""}, {"x", "", true, "X", ""}};
  ParsedArgs args = Parse(
      {"app", "--title=a", "-t", "b", "--start", "--x", "1", "--x=2", "--", "--not-a-flag"}, specs);
  EXPECT_EQ(args.Get("title"), "b");
  EXPECT_EQ(args.Get("start"), "true");
  EXPECT_THAT(args.GetAll("x"), ElementsAre("1", "2"));
  EXPECT_THAT(args.positionals(), ElementsAre("app", "--not-a-flag"));
  EXPECT_FALSE(args.Has("missing"));
}

TEST(FlagsTest, Errors) {
  std::vector<FlagSpec> specs = {{"title", "", true, "T", ""}, {"start", "", false, "", ""}};
  EXPECT_THAT(ParseFlags({"--nope"}, specs).status().message(), HasSubstr("unknown flag --nope"));
  EXPECT_THAT(ParseFlags({"--title"}, specs).status().message(), HasSubstr("needs a value"));
  EXPECT_THAT(ParseFlags({"--start=no"}, specs).status().message(), HasSubstr("takes no value"));
}

TEST(FlagsTest, StopsAfterPositionals) {
  std::vector<FlagSpec> specs = {{"server", "", true, "S", ""}};
  absl::StatusOr<ParsedArgs> head =
      ParseFlags({"--server", "s", "job", "create", "--group", "1"}, specs, 2);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->consumed(), 4u);
  EXPECT_THAT(head->positionals(), ElementsAre("job", "create"));
}

TEST(FlagsTest, Values) {
  EXPECT_EQ(*ParseId("ID", "42"), 42);
  EXPECT_FALSE(ParseId("ID", "0").ok());
  EXPECT_FALSE(ParseId("ID", "4x").ok());
  EXPECT_EQ(*ParseDurationFlag("--every", "500ms"), absl::Milliseconds(500));
  EXPECT_EQ(*ParseDurationFlag("--every", "1h30m"), absl::Minutes(90));
  EXPECT_FALSE(ParseDurationFlag("--every", "-1s").ok());
  EXPECT_FALSE(ParseDurationFlag("--every", "2").ok());
  EXPECT_EQ(*ParseTimeFlag("--from", "2024-05-01T02:00:00.250+02:00"),
            absl::FromUnixMillis(1714521600250));
  EXPECT_FALSE(ParseTimeFlag("--from", "yesterday").ok());
  EXPECT_THAT(SplitList({"a, b", "", "c,"}), ElementsAre("a", "b", "c"));
}

TEST(GroupRequestTest, CreateAutoAndManual) {
  auto specs = GroupCreateFlagSpecs();
  EXPECT_THAT(*BuildCreateGroupRequest(Parse({"billing", "--title", "B"}, specs)),
              EqualsProto(R"pb(group {
                                 app_name: "billing"
                                 title: "B"
                                 auto_registration {}
                               })pb"));
  EXPECT_THAT(*BuildCreateGroupRequest(Parse({"legacy", "--addresses", "a:1,b:2"}, specs)),
              EqualsProto(R"pb(group {
                                 app_name: "legacy"
                                 manual { addresses: "a:1" addresses: "b:2" }
                               })pb"));
  EXPECT_FALSE(BuildCreateGroupRequest(Parse({}, specs)).ok());
  EXPECT_FALSE(BuildCreateGroupRequest(Parse({"a", "b"}, specs)).ok());
}

TEST(GroupRequestTest, UpdateSetsMaskForGivenFieldsOnly) {
  auto specs = GroupUpdateFlagSpecs();
  EXPECT_THAT(*BuildUpdateGroupRequest(Parse({"3", "--title", "T"}, specs)),
              EqualsProto(R"pb(group { id: 3 title: "T" }
                               update_mask { paths: "title" })pb"));
  EXPECT_THAT(*BuildUpdateGroupRequest(Parse({"3", "--addresses", "h:1"}, specs)),
              EqualsProto(R"pb(group {
                                 id: 3
                                 manual { addresses: "h:1" }
                               }
                               update_mask { paths: "membership" })pb"));
  EXPECT_THAT(BuildUpdateGroupRequest(Parse({"3"}, specs)).status().message(),
              HasSubstr("nothing to change"));
  EXPECT_FALSE(BuildUpdateGroupRequest(Parse({"3", "--auto", "--addresses", "h:1"}, specs)).ok());
}

TEST(JobRequestTest, CreateWithEveryFlag) {
  ParsedArgs args = Parse({"--group",
                           "3",
                           "--handler",
                           "report",
                           "--cron",
                           "0 0 6 * * ?",
                           "--tz",
                           "Europe/Berlin",
                           "--desc",
                           "daily",
                           "--author",
                           "ops",
                           "--params",
                           "p=1",
                           "--route",
                           "lfu",
                           "--block",
                           "cover-early",
                           "--run-timeout",
                           "30s",
                           "--retries",
                           "2",
                           "--retry-delay",
                           "1s",
                           "--retry-multiplier",
                           "2",
                           "--retry-max-delay",
                           "1m",
                           "--deadline",
                           "2h",
                           "--start-time",
                           "2024-05-01T08:00:00+02:00",
                           "--end-time",
                           "2024-06-01T00:00:00Z",
                           "--max-fires",
                           "30",
                           "--children",
                           "4,5",
                           "--children-after-all-shards",
                           "--misfire",
                           "catch-up",
                           "--misfire-threshold",
                           "5s",
                           "--max-catch-up",
                           "20",
                           "--alarm-email",
                           "a@b",
                           "--alarm-webhook",
                           "https://hook",
                           "--start"},
                          JobFlagSpecs());
  absl::StatusOr<v1::CreateJobRequest> req = BuildCreateJobRequest(args, FakeRead);
  ASSERT_TRUE(req.ok()) << req.status();
  EXPECT_THAT(*req, EqualsProto(R"pb(
    start: true
    job {
      group_id: 3
      description: "daily"
      author: "ops"
      bean { handler: "report" }
      schedule { cron { expression: "0 0 6 * * ?" time_zone: "Europe/Berlin" } }
      params: "p=1"
      route_strategy: ROUTE_STRATEGY_LEAST_FREQUENTLY_USED
      block_strategy: BLOCK_STRATEGY_COVER_EARLY
      timeout { seconds: 30 }
      retry {
        max_retries: 2
        initial_delay { seconds: 1 }
        multiplier: 2
        max_delay { seconds: 60 }
      }
      deadline { seconds: 7200 }
      start_time { seconds: 1714543200 }
      end_time { seconds: 1717200000 }
      max_fires: 30
      misfire {
        policy: MISFIRE_POLICY_CATCH_UP
        threshold { seconds: 5 }
        max_catch_up: 20
      }
      child_job_ids: 4
      child_job_ids: 5
      child_trigger_mode: CHILD_TRIGGER_MODE_ALL_SHARDS_SUCCEEDED
      alarm { emails: "a@b" webhook_urls: "https://hook" }
    })pb"));
}

TEST(JobRequestTest, CreateScriptAndOtherSchedules) {
  auto req = BuildCreateJobRequest(
      Parse({"--group", "1", "--script-python", "a.py", "--delay", "10s"}, JobFlagSpecs()),
      FakeRead);
  ASSERT_TRUE(req.ok()) << req.status();
  EXPECT_THAT(*req,
              EqualsProto(R"pb(job {
                                 group_id: 1
                                 script { language: SCRIPT_LANGUAGE_PYTHON source: "print('hi')\n" }
                                 schedule { fix_delay { seconds: 10 } }
                               })pb"));
  req = BuildCreateJobRequest(Parse({"--group", "1", "--handler", "h", "--manual"}, JobFlagSpecs()),
                              FakeRead);
  ASSERT_TRUE(req.ok());
  EXPECT_FALSE(req->job().has_schedule() &&
               req->job().schedule().kind_case() != v1::Schedule::KIND_NOT_SET);
}

TEST(JobRequestTest, NodeAndPowershellScriptsWithARemark) {
  for (const auto& [flag, language] :
       {std::pair{"--script-node", v1::SCRIPT_LANGUAGE_NODEJS},
        std::pair{"--script-powershell", v1::SCRIPT_LANGUAGE_POWERSHELL}}) {
    auto req = BuildCreateJobRequest(
        Parse({"--group", "1", flag, "a.py", "--manual", "--remark", "why"}, JobFlagSpecs()),
        FakeRead);
    ASSERT_TRUE(req.ok()) << req.status();
    EXPECT_EQ(req->job().script().language(), language) << flag;
    EXPECT_EQ(req->job().script().source(), "print('hi')\n");
    EXPECT_EQ(req->job().script().remark(), "why");
  }
}

TEST(JobRequestTest, CreateErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--handler", "h", "--manual"}, "--group"},
           {{"--group", "1", "--manual"}, "--handler NAME"},
           {{"--group", "1", "--handler", "h"}, "needs a schedule"},
           {{"--group", "1", "--handler", "h", "--script-shell", "x", "--manual"},
            "one of --handler"},
           {{"--group", "1", "--handler", "h", "--every", "1s", "--manual"}, "one of --cron"},
           {{"--group", "1", "--handler", "h", "--every", "1s", "--tz", "UTC"},
            "--tz applies to cron"},
           {{"--group", "1", "--handler", "h", "--manual", "--route", "best"},
            "unknown route 'best'"},
           {{"--group", "1", "--handler", "h", "--manual", "--block", "x"},
            "unknown block strategy"},
           {{"--group", "1", "--handler", "h", "--manual", "--misfire", "x"},
            "unknown misfire policy"},
           {{"--group", "1", "--handler", "h", "--every", "2"}, "duration"},
           {{"--group", "1", "--script-shell", "missing.sh", "--manual"}, "cannot read missing.sh"},
           {{"--group", "1", "--handler", "h", "--manual", "--retry-multiplier", "0.5"},
            "at least 1"},
           {{"--group", "1", "--handler", "h", "--manual", "--children", "x"}, "--children"},
           {{"--group", "1", "--handler", "h", "--manual", "--remark", "r"},
            "--remark is for script jobs"},
       }) {
    auto req = BuildCreateJobRequest(Parse(c.args, JobFlagSpecs()), FakeRead);
    ASSERT_FALSE(req.ok()) << ::testing::PrintToString(c.args);
    EXPECT_THAT(req, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)));
  }
}

TEST(JobRequestTest, UpdateTouchesOnlyGivenFlags) {
  v1::Job job;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(
        id: 7
        group_id: 2
        description: "keep"
        bean { handler: "h" }
        schedule { cron { expression: "0 0 1 * * ?" time_zone: "Asia/Tokyo" } }
        child_job_ids: 9
        retry { max_retries: 1 }
        alarm { emails: "x@y" })pb",
      &job));
  ASSERT_TRUE(ApplyJobFlags(Parse({"--tz", "UTC", "--children", "", "--alarm-email", "new@y"},
                                  JobFlagSpecs()),
                            false, FakeRead, &job)
                  .ok());
  EXPECT_THAT(job, EqualsProto(R"pb(
                id: 7
                group_id: 2
                description: "keep"
                bean { handler: "h" }
                schedule { cron { expression: "0 0 1 * * ?" time_zone: "UTC" } }
                retry { max_retries: 1 }
                alarm { emails: "new@y" })pb"));
  // Switching the task replaces the other kind.
  ASSERT_TRUE(ApplyJobFlags(Parse({"--script-python", "a.py", "--every", "2s"}, JobFlagSpecs()),
                            false, FakeRead, &job)
                  .ok());
  EXPECT_FALSE(job.has_bean());
  EXPECT_EQ(job.script().language(), v1::SCRIPT_LANGUAGE_PYTHON);
  EXPECT_EQ(job.schedule().fix_rate().seconds(), 2);
  // A remark goes only with a new script.
  absl::Status lone =
      ApplyJobFlags(Parse({"--remark", "r"}, JobFlagSpecs()), false, FakeRead, &job);
  EXPECT_THAT(lone.message(), HasSubstr("--remark goes with a new script"));
}

TEST(TriggerRequestTest, ManualWithOverrides) {
  EXPECT_THAT(*BuildTriggerJobRequest(Parse({"7"}, TriggerFlagSpecs())),
              EqualsProto("job_id: 7 trigger_type: TRIGGER_TYPE_MANUAL"));
  auto req = BuildTriggerJobRequest(
      Parse({"7", "--params", "", "--executors", "a:1", "--shard", "2"}, TriggerFlagSpecs()));
  ASSERT_TRUE(req.ok());
  EXPECT_TRUE(req->has_params());  // empty params are an explicit override
  EXPECT_EQ(req->shard_index(), 2u);
  EXPECT_THAT(req->executor_addresses(), ElementsAre("a:1"));
  EXPECT_FALSE(BuildTriggerJobRequest(Parse({"7", "--shard", "-1"}, TriggerFlagSpecs())).ok());
}

TEST(BackfillRequestTest, RangeChecked) {
  auto req = BuildBackfillRequest(
      Parse({"7", "--from", "2024-05-01T00:00:00Z", "--to", "2024-05-01T00:00:01.5Z"},
            BackfillFlagSpecs()));
  ASSERT_TRUE(req.ok()) << req.status();
  EXPECT_THAT(*req, EqualsProto(R"pb(job_id: 7
                                     start_time { seconds: 1714521600 }
                                     end_time { seconds: 1714521601 nanos: 500000000 })pb"));
  EXPECT_FALSE(BuildBackfillRequest(
                   Parse({"7", "--from", "2024-05-02T00:00:00Z", "--to", "2024-05-01T00:00:00Z"},
                         BackfillFlagSpecs()))
                   .ok());
  EXPECT_FALSE(
      BuildBackfillRequest(Parse({"7", "--from", "2024-05-02T00:00:00Z"}, BackfillFlagSpecs()))
          .ok());
}

TEST(RunListRequestTest, Filters) {
  const absl::Time now = absl::FromUnixSeconds(1714564800);
  auto req = BuildListRunsRequest(
      Parse({"--job", "7", "--group", "2", "--status", "running,succeeded", "--status", "pending",
             "--trigger-type", "backfill", "--since", "30m"},
            RunListFlagSpecs()),
      now);
  ASSERT_TRUE(req.ok()) << req.status();
  EXPECT_THAT(*req, EqualsProto(R"pb(
    job_id: 7
    group_id: 2
    statuses: RUN_STATUS_RUNNING
    statuses: RUN_STATUS_SUCCEEDED
    statuses: RUN_STATUS_PENDING
    trigger_type: TRIGGER_TYPE_BACKFILL
    start_time { seconds: 1714563000 }
    page_size: 50)pb"));
  req = BuildListRunsRequest(
      Parse({"--since", "2024-05-01T00:00:00Z", "--limit", "5000"}, RunListFlagSpecs()), now);
  ASSERT_TRUE(req.ok());
  EXPECT_EQ(req->start_time().seconds(), 1714521600);
  EXPECT_EQ(req->page_size(), 1000);
  EXPECT_THAT(
      BuildListRunsRequest(Parse({"--status", "done"}, RunListFlagSpecs()), now).status().message(),
      HasSubstr("unknown run status 'done'"));
  EXPECT_THAT(BuildListRunsRequest(Parse({"--trigger-type", "timer"}, RunListFlagSpecs()), now)
                  .status()
                  .message(),
              HasSubstr("unknown trigger type 'timer'"));
  EXPECT_FALSE(BuildListRunsRequest(Parse({"--since", "soon"}, RunListFlagSpecs()), now).ok());
}

TEST(RoleFlags, RoleAndGroupsBecomeARoleAndGrants) {
  const std::vector<FlagSpec> specs = WithRoleFlags({});
  v1::Role role;
  v1::Grants grants;
  ASSERT_TRUE(
      ParseRoleAndGrants(Parse({"--role", "operator", "--group", "3", "--group", "5"}, specs),
                         v1::ROLE_ADMIN, &role, &grants)
          .ok());
  EXPECT_EQ(role, v1::ROLE_OPERATOR);
  EXPECT_THAT(grants, EqualsProto("group_ids: 3 group_ids: 5"));
  EXPECT_EQ(GrantsText(role, grants), "groups 3, 5");
  ASSERT_TRUE(ParseRoleAndGrants(Parse({"--role", "viewer", "--all-groups"}, specs), v1::ROLE_ADMIN,
                                 &role, &grants)
                  .ok());
  EXPECT_THAT(grants, EqualsProto("all_groups: true"));
  EXPECT_EQ(GrantsText(role, grants), "all groups");
  ASSERT_TRUE(
      ParseRoleAndGrants(Parse({}, specs), v1::ROLE_ADMIN, &role, &grants).ok());  // The default.
  EXPECT_EQ(role, v1::ROLE_ADMIN);
  EXPECT_EQ(GrantsText(role, grants), "every group");
  EXPECT_THAT(ParseRoleAndGrants(Parse({"--role", "root"}, specs), v1::ROLE_ADMIN, &role, &grants)
                  .message(),
              HasSubstr("unknown role 'root'; use one of admin, operator, viewer"));
  EXPECT_THAT(ParseRoleAndGrants(Parse({"--role", "viewer", "--group", "x"}, specs), v1::ROLE_ADMIN,
                                 &role, &grants)
                  .message(),
              HasSubstr("--group must be a group id"));
}

TEST(TtlFlag, APositiveDurationOrNothing) {
  const std::vector<FlagSpec> specs = {{"ttl", "", true, "DUR", ""}};
  v1::CreateTokenRequest req;
  ASSERT_TRUE(ParseTtlFlag(Parse({"--ttl", "90m"}, specs), &req).ok());
  EXPECT_EQ(req.ttl().seconds(), 5400);
  v1::LoginRequest none;
  ASSERT_TRUE(ParseTtlFlag(Parse({}, specs), &none).ok());
  EXPECT_FALSE(none.has_ttl());
  EXPECT_THAT(ParseTtlFlag(Parse({"--ttl", "0s"}, specs), &req).message(),
              HasSubstr("--ttl must be positive"));
}

}  // namespace
}  // namespace gnomon::cli

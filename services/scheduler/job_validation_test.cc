// Job and group validation: every rule refuses with the right code and a
// message that starts with the field it is about, so a user (or the console)
// knows what to fix; a long value is never echoed whole.
#include "services/scheduler/job_validation.h"

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/testing/failing_job_store.h"
#include "services/common/store/testing/store_call_steps.h"
#include "services/common/store/testing/temp_store.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr int64_t kNow = 1'800'000'000'000;

// A rule: what breaks it, and the message's start (the field, then the problem).
struct JobRule {
  std::string breaks;
  std::function<void(v1::Job&)> mutate;
  std::string message_starts;
};

google::protobuf::Duration Ms(int64_t ms) { return TimeUtil::MillisecondsToDuration(ms); }

class JobValidationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(temp_.status().ok()) << temp_.status();
    absl::StatusOr<v1::Group> g = temp_.AddGroup("app", "token", kNow);
    ASSERT_TRUE(g.ok()) << g.status();
    group_id_ = g->id();
  }
  // A job that passes every rule.
  v1::Job Valid() const {
    v1::Job j;
    j.set_group_id(group_id_);
    j.set_name("nightly-report");
    j.mutable_bean()->set_handler("report");
    *j.mutable_schedule()->mutable_fix_rate() = Ms(1000);
    return j;
  }
  int64_t Stored(v1::Job j) {
    j.set_name(absl::StrCat("stored-", ++stored_));  // Names are unique in a group.
    absl::StatusOr<v1::Job> created =
        temp_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? created->id() : 0;
  }
  absl::Status Validate(const v1::Job& j) { return ValidateJob(j, limits_, &store_); }

  store::testing::TempStore temp_;
  store::testing::StoreCallHook hook_;
  store::testing::FailingJobStore store_{temp_.get(), &hook_};
  JobLimits limits_ = [] {
    JobLimits l;
    l.max_params_bytes = 16;
    l.max_script_bytes = 16;
    l.max_retries = 5;
    return l;
  }();
  int64_t group_id_ = 0;
  int stored_ = 0;
};

TEST_F(JobValidationTest, AValidJobPasses) {
  EXPECT_TRUE(Validate(Valid()).ok()) << Validate(Valid());
}

TEST_F(JobValidationTest, EveryFieldRuleNamesItsField) {
  const std::vector<JobRule> rules = {
      {"negative id", [](v1::Job& j) { j.set_id(-1); }, "job.id: -1 is outside 0.."},
      {"no group", [](v1::Job& j) { j.set_group_id(0); }, "job.group_id: 0 is outside 1.."},
      {"long name", [](v1::Job& j) { j.set_name(std::string(129, 'n')); },
       "job.name: at most 128 bytes"},
      {"name with a space", [](v1::Job& j) { j.set_name("two words"); },
       "job.name: \"two words\": "},
      {"long description", [](v1::Job& j) { j.set_description(std::string(1025, 'd')); },
       "job.description: at most 1024 bytes"},
      {"control character", [](v1::Job& j) { j.set_description("a\x01"); }, "job.description: "},
      {"long author", [](v1::Job& j) { j.set_author(std::string(257, 'a')); },
       "job.author: at most 256 bytes"},
      {"no task", [](v1::Job& j) { j.clear_bean(); },
       "job.task: set bean (a handler name) or script"},
      {"empty handler", [](v1::Job& j) { j.mutable_bean()->set_handler(""); },
       "job.bean.handler: empty"},
      {"long handler", [](v1::Job& j) { j.mutable_bean()->set_handler(std::string(129, 'h')); },
       "job.bean.handler: at most 128 bytes"},
      {"handler with a space", [](v1::Job& j) { j.mutable_bean()->set_handler("a b"); },
       "job.bean.handler: "},
      {"script without a language", [](v1::Job& j) { j.mutable_script()->set_source("echo"); },
       "job.script.language: must be SHELL, PYTHON, NODEJS or POWERSHELL"},
      {"unknown script language",
       [](v1::Job& j) {
         j.mutable_script()->set_language(static_cast<v1::ScriptLanguage>(99));
         j.mutable_script()->set_source("echo");
       },
       "job.script.language: "},
      {"empty script",
       [](v1::Job& j) { j.mutable_script()->set_language(v1::SCRIPT_LANGUAGE_SHELL); },
       "job.script.source: empty"},
      {"script over the limit",
       [](v1::Job& j) {
         j.mutable_script()->set_language(v1::SCRIPT_LANGUAGE_SHELL);
         j.mutable_script()->set_source(std::string(17, 's'));
       },
       "job.script.source: at most 16 bytes"},
      {"negative script version",
       [](v1::Job& j) {
         j.mutable_script()->set_language(v1::SCRIPT_LANGUAGE_PYTHON);
         j.mutable_script()->set_source("pass");
         j.mutable_script()->set_version(-1);
       },
       "job.script.version: -1 is outside 0.."},
      {"long script remark",
       [](v1::Job& j) {
         j.mutable_script()->set_language(v1::SCRIPT_LANGUAGE_PYTHON);
         j.mutable_script()->set_source("pass");
         j.mutable_script()->set_remark(std::string(256, 'r'));
       },
       "job.script.remark: at most 255 bytes"},
      {"empty cron", [](v1::Job& j) { j.mutable_schedule()->mutable_cron(); },
       "job.schedule.cron.expression: empty"},
      {"bad cron",
       [](v1::Job& j) { j.mutable_schedule()->mutable_cron()->set_expression("every day"); },
       "job.schedule.cron.expression: "},
      {"unknown zone",
       [](v1::Job& j) {
         j.mutable_schedule()->mutable_cron()->set_expression("0 0 * * * ?");
         j.mutable_schedule()->mutable_cron()->set_time_zone("Mars/Olympus");
       },
       "job.schedule.cron.time_zone: unknown zone \"Mars/Olympus\""},
      {"zone with a space",
       [](v1::Job& j) {
         j.mutable_schedule()->mutable_cron()->set_expression("0 0 * * * ?");
         j.mutable_schedule()->mutable_cron()->set_time_zone("Europe/ Berlin");
       },
       "job.schedule.cron.time_zone: "},
      {"rate too fast", [](v1::Job& j) { *j.mutable_schedule()->mutable_fix_rate() = Ms(0); },
       "job.schedule.fix_rate: period "},
      {"delay in microseconds",
       [](v1::Job& j) {
         j.mutable_schedule()->mutable_fix_delay()->set_seconds(1);
         j.mutable_schedule()->mutable_fix_delay()->set_nanos(500);
       },
       "job.schedule.fix_delay: delay "},
      {"params over the limit", [](v1::Job& j) { j.set_params(std::string(17, 'p')); },
       "job.params: at most 16 bytes"},
      {"unknown route",
       [](v1::Job& j) { j.set_route_strategy(static_cast<v1::RouteStrategy>(99)); },
       "job.route_strategy: unknown value"},
      {"unknown block strategy",
       [](v1::Job& j) { j.set_block_strategy(static_cast<v1::BlockStrategy>(99)); },
       "job.block_strategy: unknown value"},
      {"unknown misfire policy",
       [](v1::Job& j) { j.mutable_misfire()->set_policy(static_cast<v1::MisfirePolicy>(99)); },
       "job.misfire.policy: unknown value"},
      {"unknown child trigger mode",
       [](v1::Job& j) { j.set_child_trigger_mode(static_cast<v1::ChildTriggerMode>(99)); },
       "job.child_trigger_mode: unknown value"},
      {"misfire threshold over a day",
       [](v1::Job& j) { *j.mutable_misfire()->mutable_threshold() = Ms(86'400'001); },
       "job.misfire.threshold: outside "},
      {"negative misfire threshold",
       [](v1::Job& j) { j.mutable_misfire()->mutable_threshold()->set_seconds(-1); },
       "job.misfire.threshold: negative"},
      {"too much catch-up", [](v1::Job& j) { j.mutable_misfire()->set_max_catch_up(1'000'001); },
       "job.misfire.max_catch_up: 1000001 is outside 0..1000000"},
      {"timeout over a week", [](v1::Job& j) { j.mutable_timeout()->set_seconds(7 * 86'400 + 1); },
       "job.timeout: outside "},
      {"timeout with bad nanos", [](v1::Job& j) { j.mutable_timeout()->set_nanos(-5); },
       "job.timeout: nanos outside 0..999999999"},
      {"too many retries", [](v1::Job& j) { j.mutable_retry()->set_max_retries(6); },
       "job.retry.max_retries: 6 is outside 0..5"},
      {"first retry over a day",
       [](v1::Job& j) { *j.mutable_retry()->mutable_initial_delay() = Ms(86'400'001); },
       "job.retry.initial_delay: outside "},
      {"retry delay over a week",
       [](v1::Job& j) { j.mutable_retry()->mutable_max_delay()->set_seconds(7 * 86'400 + 1); },
       "job.retry.max_delay: outside "},
      {"multiplier not a number",
       [](v1::Job& j) { j.mutable_retry()->set_multiplier(std::nan("")); },
       "job.retry.multiplier: must be a finite number"},
      {"multiplier over 100", [](v1::Job& j) { j.mutable_retry()->set_multiplier(101); },
       "job.retry.multiplier: 101 is outside 0..100"},
      {"too many children",
       [](v1::Job& j) {
         for (int i = 0; i < 101; ++i) j.add_child_job_ids(i + 1);
       },
       "job.child_job_ids: at most 100 items"},
      {"too many alarm emails",
       [](v1::Job& j) {
         for (int i = 0; i < 21; ++i) j.mutable_alarm()->add_emails("ops@example.com");
       },
       "job.alarm.emails: at most 20 items"},
      {"not an email", [](v1::Job& j) { j.mutable_alarm()->add_emails("ops.example.com"); },
       "job.alarm.emails[0]: \"ops.example.com\" is not an email address"},
      {"empty email", [](v1::Job& j) { j.mutable_alarm()->add_emails(""); },
       "job.alarm.emails[0]: empty"},
      {"too many webhooks",
       [](v1::Job& j) {
         for (int i = 0; i < 21; ++i)
           j.mutable_alarm()->add_webhook_urls("https://hooks.example.com");
       },
       "job.alarm.webhook_urls: at most 20 items"},
      {"not a web URL",
       [](v1::Job& j) {
         j.mutable_alarm()->add_webhook_urls("https://ok.example.com");
         j.mutable_alarm()->add_webhook_urls("ftp://files.example.com");
       },
       "job.alarm.webhook_urls[1]: \"ftp://files.example.com\" is not an http(s) URL"},
      {"unknown state", [](v1::Job& j) { j.set_state(static_cast<v1::JobState>(99)); },
       "job.state: unknown value"},
      {"echoed next fire time with bad nanos",
       [](v1::Job& j) { j.mutable_next_fire_time()->set_nanos(-1); },
       "job.next_fire_time: nanos outside 0..999999999"},
      {"echoed create time before 1970",
       [](v1::Job& j) { j.mutable_create_time()->set_seconds(-1); },
       "job.create_time: outside years 1970..9999"},
      {"echoed update time", [](v1::Job& j) { j.mutable_update_time()->set_nanos(1'000'000'000); },
       "job.update_time: "},
      {"echoed last fire time", [](v1::Job& j) { j.mutable_last_fire_time()->set_seconds(-1); },
       "job.last_fire_time: "},
      {"echoed last run id", [](v1::Job& j) { j.mutable_last_run()->set_run_id(-1); },
       "job.last_run.run_id: -1 is outside 0.."},
      {"echoed last run trigger type",
       [](v1::Job& j) { j.mutable_last_run()->set_trigger_type(static_cast<v1::TriggerType>(99)); },
       "job.last_run.trigger_type: unknown value"},
      {"echoed last run status",
       [](v1::Job& j) { j.mutable_last_run()->set_status(static_cast<v1::RunStatus>(99)); },
       "job.last_run.status: unknown value"},
      {"echoed last run trigger time",
       [](v1::Job& j) { j.mutable_last_run()->mutable_trigger_time()->set_nanos(-1); },
       "job.last_run.trigger_time: "},
      {"echoed last run end time",
       [](v1::Job& j) { j.mutable_last_run()->mutable_end_time()->set_seconds(-1); },
       "job.last_run.end_time: "},
  };
  for (const JobRule& rule : rules) {
    SCOPED_TRACE(rule.breaks);
    v1::Job j = Valid();
    rule.mutate(j);
    const absl::Status fields = ValidateJobFields(j, limits_);
    EXPECT_THAT(fields,
                StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(rule.message_starts)));
    EXPECT_EQ(Validate(j), fields);  // ValidateJob checks the fields first.
  }
  EXPECT_EQ(hook_.calls("GetGroup"), 0);  // Refused before any store read.
}

TEST_F(JobValidationTest, ALongBadValueIsQuotedOnlyByItsStart) {
  v1::Job j = Valid();
  j.mutable_alarm()->add_emails(std::string(250, 'x'));  // Within the length limit, no '@'.
  const absl::Status s = ValidateJobFields(j, limits_);
  EXPECT_THAT(std::string(s.message()), StartsWith("job.alarm.emails[0]: \"xxxx"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("…\" is not an email address"));
  EXPECT_LT(s.message().size(), 100u);
}

TEST_F(JobValidationTest, NamesOfTheFormJobNumberAreReservedForUnnamedJobs) {
  v1::Job j = Valid();
  j.set_name("job-7");
  EXPECT_EQ(
      Validate(j).message(),
      "job.name: names of the form job-<number> are reserved for jobs created without a name");
  j.set_id(Stored(Valid()));
  j.set_name(absl::StrCat("job-", j.id()));  // Its own: what it is called when unnamed.
  EXPECT_TRUE(Validate(j).ok()) << Validate(j);
  j.set_name(absl::StrCat("job-0", j.id()));
  EXPECT_THAT(Validate(j), StatusIs(absl::StatusCode::kInvalidArgument));
  for (const char* free : {"job-", "job-x", "job-7a", "jobs-7"}) {
    j.set_name(free);
    EXPECT_TRUE(Validate(j).ok()) << free << ": " << Validate(j);
  }
}

TEST_F(JobValidationTest, AJobOfAMissingGroupIsNotFoundNamingTheGroup) {
  v1::Job j = Valid();
  j.set_group_id(999);
  const absl::Status s = Validate(j);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kNotFound, "job.group_id: group 999 does not exist"));
}

TEST_F(JobValidationTest, ChildrenMustBeOtherExistingJobs) {
  const int64_t child = Stored(Valid());
  v1::Job j = Valid();
  j.add_child_job_ids(child);
  j.add_child_job_ids(0);
  EXPECT_EQ(Validate(j).message(), "job.child_job_ids[1]: 0 is not a job id");
  j.set_child_job_ids(1, 999);
  EXPECT_THAT(Validate(j), StatusIs(absl::StatusCode::kNotFound));
  EXPECT_EQ(Validate(j).message(), "job.child_job_ids[1]: job 999 does not exist");
  j.clear_child_job_ids();
  j.set_id(child);
  j.add_child_job_ids(child);
  EXPECT_EQ(Validate(j).message(), "job.child_job_ids[0]: a job cannot be its own child");
}

TEST_F(JobValidationTest, AChildThatLeadsBackToTheJobIsACycle) {
  // a -> b -> c; making a a child of c closes the loop.
  const int64_t c = Stored(Valid());
  v1::Job b = Valid();
  b.add_child_job_ids(c);
  const int64_t b_id = Stored(b);
  v1::Job a = Valid();
  a.add_child_job_ids(b_id);
  const int64_t a_id = Stored(a);
  v1::Job update = Valid();
  update.set_id(c);
  update.add_child_job_ids(a_id);
  const absl::Status s = Validate(update);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument,
                          absl::StrCat("job.child_job_ids: job ", b_id,
                                       " already leads back to job ", c, " (a cycle)")));
  // Without the loop it is fine (b is a child of both a and c).
  update.set_child_job_ids(0, b_id);
  update.set_id(a_id);
  EXPECT_TRUE(Validate(update).ok()) << Validate(update);
}

TEST_F(JobValidationTest, AStoreThatCannotBeReadIsReportedAsIsNotAsABadField) {
  hook_.Set(store::testing::FailNext("GetGroup", absl::UnavailableError("store down")));
  EXPECT_EQ(Validate(Valid()), absl::UnavailableError("store down"));
}

TEST_F(JobValidationTest, ScheduleFieldsAreNamedUnderTheRequestsOwnPath) {
  v1::Schedule s;
  s.mutable_cron();
  EXPECT_EQ(ValidateScheduleFields("schedule", s).message(), "schedule.cron.expression: empty");
  s.mutable_cron()->set_expression("* * * * * ?");
  s.mutable_cron()->set_time_zone("Nowhere/Special");
  EXPECT_THAT(std::string(ValidateScheduleFields("requests[2].job.schedule", s).message()),
              StartsWith("requests[2].job.schedule.cron.time_zone: unknown zone"));
  v1::Schedule none;
  EXPECT_TRUE(ValidateScheduleFields("schedule", none).ok());  // Triggered only.
}

// A group rule: what breaks it, and the message's start.
struct GroupRule {
  std::string breaks;
  std::function<void(v1::Group&)> mutate;
  std::string message_starts;
};

TEST(GroupValidationTest, EveryGroupRuleNamesItsField) {
  v1::Group valid;
  valid.set_app_name("billing");
  valid.set_title("Billing");
  ASSERT_TRUE(ValidateGroup(valid).ok());
  const std::vector<GroupRule> rules = {
      {"negative id", [](v1::Group& g) { g.set_id(-1); }, "group.id: -1 is outside 0.."},
      {"no app name", [](v1::Group& g) { g.clear_app_name(); }, "group.app_name: empty"},
      {"long app name", [](v1::Group& g) { g.set_app_name(std::string(65, 'a')); },
       "group.app_name: at most 64 bytes"},
      {"app name with a slash", [](v1::Group& g) { g.set_app_name("a/b"); },
       "group.app_name: \"a/b\": "},
      {"long title", [](v1::Group& g) { g.set_title(std::string(257, 't')); },
       "group.title: at most 256 bytes"},
      {"token with a space", [](v1::Group& g) { g.set_access_token("a b"); },
       "group.access_token: "},
      {"echoed create time", [](v1::Group& g) { g.mutable_create_time()->set_seconds(-1); },
       "group.create_time: "},
      {"manual without addresses", [](v1::Group& g) { g.mutable_manual(); },
       "group.manual.addresses: empty"},
      {"too many addresses",
       [](v1::Group& g) {
         for (int i = 0; i < 101; ++i)
           g.mutable_manual()->add_addresses(absl::StrCat("h", i, ":1"));
       },
       "group.manual.addresses: at most 100 items"},
      {"not an executor name",
       [](v1::Group& g) {
         g.mutable_manual()->add_addresses("billing-0");
         g.mutable_manual()->add_addresses("billing 1");
       },
       "group.manual.addresses[1]: "},
      {"a name too long",
       [](v1::Group& g) { g.mutable_manual()->add_addresses(std::string(256, 'h')); },
       "group.manual.addresses[0]: at most 255 bytes"},
  };
  for (const GroupRule& rule : rules) {
    SCOPED_TRACE(rule.breaks);
    v1::Group g = valid;
    rule.mutate(g);
    const absl::Status s = ValidateGroup(g);
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, StartsWith(rule.message_starts)));
  }
}

TEST(GroupValidationTest, AnUpdateMayLeaveTheAppNameOutButNotBreakIt) {
  v1::Group update;
  update.set_id(3);
  update.set_title("renamed");
  EXPECT_TRUE(ValidateGroupUpdate(update).ok());
  update.set_app_name("bad name");
  EXPECT_THAT(std::string(ValidateGroupUpdate(update).message()), StartsWith("group.app_name: "));
}

}  // namespace
}  // namespace gnomon::scheduler

// AdminCore: what the JobAdmin API does with a request once it is
// authorized — validation (the field named, nothing written), groups, jobs
// (state and schedule cursor), triggers and backfills, tokens and users —
// over a real SQLite store, a simulated clock and fake executors.
#include "services/scheduler/admin_core.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/server/passwords.h"
#include "services/common/server/tokens.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/testing/temp_store.h"
#include "services/scheduler/testing/fake_executors.h"
#include "services/scheduler/testing/runs.h"
#include "services/scheduler/trigger.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;
using ::testing::ElementsAre;
using testing::FakeExecutors;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr int64_t kNow = 1'800'000'000'000;  // 2027-01-15T08:00:00Z, a whole minute.

int64_t Ms(const google::protobuf::Timestamp& t) { return TimeUtil::TimestampToMilliseconds(t); }

// `s` failed with `code` and a message starting with `starts`.
MATCHER_P2(FailsWith, code, starts, "") {
  const absl::Status& s = arg;
  *result_listener << "status " << s;
  return s.code() == code && absl::StartsWith(s.message(), starts);
}

class AdminCoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    v1::CreateGroupRequest req;
    req.mutable_group()->set_app_name("billing");
    absl::StatusOr<v1::Group> g = admin_.CreateGroup(req);
    ASSERT_TRUE(g.ok()) << g.status();
    group_ = *g;
    Live({"a:1", "b:1"});
  }

  void Live(const std::vector<std::string>& addresses) {
    std::vector<v1::ExecutorInfo> executors;
    for (const std::string& a : addresses) executors.push_back(testing::Registered("billing", a));
    membership_.Apply(testing::Snapshot(executors));
  }
  // A job of the group firing every `rate_ms` (0: triggered only).
  v1::Job JobSpec(int64_t rate_ms, v1::RouteStrategy route = v1::ROUTE_STRATEGY_FIRST) const {
    v1::Job j;
    j.set_group_id(group_.id());
    j.mutable_bean()->set_handler("invoice");
    j.set_route_strategy(route);
    if (rate_ms > 0)
      *j.mutable_schedule()->mutable_fix_rate() = TimeUtil::MillisecondsToDuration(rate_ms);
    return j;
  }
  v1::Job Create(const v1::Job& spec, bool start = false) {
    v1::CreateJobRequest req;
    *req.mutable_job() = spec;
    req.set_start(start);
    absl::StatusOr<v1::Job> job = admin_.CreateJob(req, "admin:test");
    EXPECT_TRUE(job.ok()) << job.status();
    return job.ok() ? *job : v1::Job();
  }
  // The job's cursor as stored (kNever when it has none).
  int64_t Cursor(int64_t job_id) {
    absl::StatusOr<v1::Job> j = store_->GetJob(job_id);
    EXPECT_TRUE(j.ok()) << j.status();
    return j.ok() && j->has_next_fire_time() ? Ms(j->next_fire_time()) : store::kNever;
  }
  int JobCount() {
    absl::StatusOr<std::vector<v1::Job>> jobs = store_->ListJobs({}, 0, 1000);
    EXPECT_TRUE(jobs.ok()) << jobs.status();
    return jobs.ok() ? static_cast<int>(jobs->size()) : -1;
  }

  store::testing::TempStore store_;
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
  Membership membership_{"cluster-token", &clock_};
  FakeExecutors executors_;
  DispatchRecorder outcomes_{store_.get(), &clock_};
  GroupTargets targets_{store_.get(), &membership_, &clock_};
  Deliveries deliveries_{{.executors = &executors_,
                          .outcomes = &outcomes_,
                          .targets = &targets_,
                          .clock = &clock_,
                          .partition_count = store_->partition_count()}};
  RunRecorder recorder_{store_.get(), &clock_};
  Trigger trigger_{&recorder_, &targets_, &deliveries_};
  ScheduleLoop loop_{store_.get(), &trigger_, &clock_, {}};
  AdminCore admin_{{store_.get(), store_.get(), store_.get(), store_.get()},
                   &trigger_,
                   &targets_,
                   &loop_,
                   &executors_,
                   &clock_,
                   JobLimits{},
                   absl::Hours(1)};
  v1::Group group_;
};

// ---- Groups ---------------------------------------------------------------

TEST_F(AdminCoreTest, ACreatedGroupShowsItsTokenOnceAndNeverAfter) {
  EXPECT_EQ(group_.access_token().size(), NewToken().size());
  EXPECT_TRUE(group_.has_auto_registration());  // Executors register unless addresses are listed.
  absl::StatusOr<v1::Group> got = admin_.GetGroup(group_.id());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_TRUE(got->access_token().empty());
  absl::StatusOr<v1::ListGroupsResponse> list = admin_.ListGroups();
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_THAT(list->groups(), SizeIs(1));
  EXPECT_TRUE(list->groups(0).access_token().empty());
}

TEST_F(AdminCoreTest, AGroupIsRefusedNamingTheFieldAndNothingIsStored) {
  v1::CreateGroupRequest req;
  req.mutable_group()->set_app_name("billing");  // Taken.
  EXPECT_THAT(admin_.CreateGroup(req).status(),
              FailsWith(absl::StatusCode::kAlreadyExists,
                        "group.app_name: a group for app \"billing\" already exists"));
  req.mutable_group()->set_app_name("");
  EXPECT_THAT(admin_.CreateGroup(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "group.app_name: empty"));
  req.mutable_group()->set_app_name("reports");
  req.mutable_group()->mutable_manual()->add_addresses("has space");
  EXPECT_THAT(admin_.CreateGroup(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "group.manual.addresses[0]: "));
  absl::StatusOr<v1::ListGroupsResponse> list = admin_.ListGroups();
  ASSERT_TRUE(list.ok());
  EXPECT_THAT(list->groups(), SizeIs(1));
}

TEST_F(AdminCoreTest, AnUpdateChangesOnlyWhatItsMaskNames) {
  v1::UpdateGroupRequest req;
  req.mutable_group()->set_id(group_.id());
  req.mutable_group()->set_title("Billing");
  req.mutable_group()->mutable_manual()->add_addresses("m:1");
  req.mutable_update_mask()->add_paths("title");
  absl::StatusOr<v1::Group> g = admin_.UpdateGroup(req);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->title(), "Billing");
  EXPECT_TRUE(g->has_auto_registration());  // Membership not in the mask.
  EXPECT_TRUE(g->access_token().empty());
  req.mutable_update_mask()->set_paths(0, "membership");
  req.mutable_group()->set_title("ignored");
  g = admin_.UpdateGroup(req);
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->title(), "Billing");
  EXPECT_THAT(g->manual().addresses(), ElementsAre("m:1"));
  req.mutable_update_mask()->set_paths(0, "app_name");
  EXPECT_THAT(
      admin_.UpdateGroup(req).status(),
      FailsWith(absl::StatusCode::kInvalidArgument,
                "update_mask.paths[0]: cannot update \"app_name\"; use title or membership"));
  req.mutable_group()->set_id(0);
  EXPECT_THAT(admin_.UpdateGroup(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "group.id: "));
  req.mutable_group()->set_id(999);
  req.mutable_update_mask()->set_paths(0, "title");
  EXPECT_THAT(admin_.UpdateGroup(req).status(),
              FailsWith(absl::StatusCode::kNotFound, "group_id: group 999 does not exist"));
}

TEST_F(AdminCoreTest, AGroupWithJobsCannotBeDeleted) {
  const v1::Job job = Create(JobSpec(0));
  EXPECT_THAT(admin_.DeleteGroup(group_.id()),
              FailsWith(absl::StatusCode::kFailedPrecondition,
                        absl::StrCat("group ", group_.id(), " is used by 1 job")));
  ASSERT_TRUE(admin_.GetGroup(group_.id()).ok());
  ASSERT_TRUE(admin_.DeleteJob(job.id(), false).ok());
  EXPECT_TRUE(admin_.DeleteGroup(group_.id()).ok());
  EXPECT_THAT(admin_.GetGroup(group_.id()).status(),
              FailsWith(absl::StatusCode::kNotFound,
                        absl::StrCat("group_id: group ", group_.id(), " does not exist")));
  EXPECT_THAT(admin_.DeleteGroup(0),
              FailsWith(absl::StatusCode::kInvalidArgument, "group_id: must be a positive id"));
}

TEST_F(AdminCoreTest, ARotatedTokenIsShownOnceAndTheOldOneStaysAcceptedForTheGrace) {
  v1::RotateGroupTokenRequest req;
  req.set_group_id(group_.id());
  *req.mutable_grace() = TimeUtil::SecondsToDuration(600);
  absl::StatusOr<v1::Group> rotated = admin_.RotateGroupToken(req);
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  EXPECT_NE(rotated->access_token(), group_.access_token());
  EXPECT_TRUE(rotated->previous_access_token().empty());  // The old one is never shown.
  EXPECT_EQ(Ms(rotated->previous_token_expire_time()), kNow + 600'000);
  absl::StatusOr<v1::Group> stored = store_->GetGroup(group_.id());
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->previous_access_token(), group_.access_token());
  // Rotating again ends the older token at once: only the one replaced stays.
  req.clear_grace();
  rotated = admin_.RotateGroupToken(req);
  ASSERT_TRUE(rotated.ok()) << rotated.status();
  stored = store_->GetGroup(group_.id());
  EXPECT_NE(stored->previous_access_token(), group_.access_token());
  EXPECT_EQ(Ms(stored->previous_token_expire_time()), kNow + 3'600'000);  // The default grace.
  // Once the grace is over the API no longer mentions it.
  clock_.Advance(absl::Hours(2));
  absl::StatusOr<v1::Group> shown = admin_.GetGroup(group_.id());
  ASSERT_TRUE(shown.ok());
  EXPECT_FALSE(shown->has_previous_token_expire_time());
  req.mutable_grace()->set_seconds(-1);
  EXPECT_THAT(admin_.RotateGroupToken(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "grace: negative"));
}

// ---- Jobs: state and cursor ------------------------------------------------

TEST_F(AdminCoreTest, AJobCreatedStartedHasItsFirstSlotAndIsArmedAtOnce) {
  loop_.Tick();  // The loop's first pre-read: nothing due.
  const v1::Job job = Create(JobSpec(1000), /*start=*/true);
  EXPECT_EQ(job.state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(Cursor(job.id()), kNow + 1000);
  // The loop re-reads the job it was told of, without waiting for a pre-read.
  EXPECT_EQ(loop_.Tick(), absl::FromUnixMillis(kNow + 1000));
  EXPECT_EQ(loop_.ArmedJobs(), 1u);
}

TEST_F(AdminCoreTest, AJobCreatedStoppedHasNoCursor) {
  const v1::Job job = Create(JobSpec(1000));
  EXPECT_EQ(job.state(), v1::JOB_STATE_STOPPED);
  EXPECT_EQ(Cursor(job.id()), store::kNever);
}

TEST_F(AdminCoreTest, AJobThatNeverFiresByItselfCannotBeStarted) {
  v1::CreateJobRequest req;
  *req.mutable_job() = JobSpec(0);
  req.set_start(true);
  EXPECT_THAT(admin_.CreateJob(req).status(),
              FailsWith(absl::StatusCode::kFailedPrecondition, "start: the schedule never fires"));
  EXPECT_EQ(JobCount(), 0);
  const v1::Job job = Create(JobSpec(0));
  EXPECT_THAT(admin_.StartJob(job.id()).status(),
              FailsWith(absl::StatusCode::kFailedPrecondition,
                        absl::StrCat("job_id: job ", job.id(),
                                     "'s schedule never fires by itself; trigger it instead")));
  EXPECT_EQ(Cursor(job.id()), store::kNever);
}

TEST_F(AdminCoreTest, StartingSetsTheCursorFromNowAndStoppingClearsIt) {
  const v1::Job job = Create(JobSpec(60'000));
  clock_.Advance(absl::Seconds(7));
  absl::StatusOr<v1::Job> started = admin_.StartJob(job.id());
  ASSERT_TRUE(started.ok()) << started.status();
  EXPECT_EQ(started->state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(Cursor(job.id()), kNow + 7'000 + 60'000);
  // Starting a running job again changes nothing (its cursor is kept).
  clock_.Advance(absl::Seconds(5));
  ASSERT_TRUE(admin_.StartJob(job.id()).ok());
  EXPECT_EQ(Cursor(job.id()), kNow + 67'000);
  absl::StatusOr<v1::Job> stopped = admin_.StopJob(job.id());
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_EQ(stopped->state(), v1::JOB_STATE_STOPPED);
  EXPECT_EQ(Cursor(job.id()), store::kNever);
  EXPECT_THAT(admin_.StopJob(999).status(),
              FailsWith(absl::StatusCode::kNotFound, "job_id: job 999 does not exist"));
  EXPECT_THAT(admin_.StartJob(-3).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "job_id: must be a positive id"));
}

TEST_F(AdminCoreTest, ANewScheduleMovesARunningJobsCursorAndOtherEditsKeepIt) {
  const v1::Job job = Create(JobSpec(60'000), /*start=*/true);
  clock_.Advance(absl::Seconds(10));
  v1::UpdateJobRequest req;
  *req.mutable_job() = job;
  req.mutable_job()->set_description("edited");
  ASSERT_TRUE(admin_.UpdateJob(req).ok());
  EXPECT_EQ(Cursor(job.id()), kNow + 60'000);
  *req.mutable_job()->mutable_schedule()->mutable_fix_rate() =
      TimeUtil::MillisecondsToDuration(5'000);
  absl::StatusOr<v1::Job> updated = admin_.UpdateJob(req);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->description(), "edited");
  EXPECT_EQ(Cursor(job.id()), kNow + 10'000 + 5'000);
  // A stopped job's new schedule gives it no cursor.
  ASSERT_TRUE(admin_.StopJob(job.id()).ok());
  *req.mutable_job()->mutable_schedule()->mutable_fix_rate() =
      TimeUtil::MillisecondsToDuration(9'000);
  ASSERT_TRUE(admin_.UpdateJob(req).ok());
  EXPECT_EQ(Cursor(job.id()), store::kNever);
}

TEST_F(AdminCoreTest, AnInvalidJobIsRefusedNamingTheFieldAndNothingChanges) {
  v1::Job spec = JobSpec(1000);
  spec.mutable_schedule()->mutable_cron()->set_expression("61 * * * * ?");
  v1::CreateJobRequest create;
  *create.mutable_job() = spec;
  EXPECT_THAT(admin_.CreateJob(create).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "job.schedule.cron.expression: "));
  create.mutable_job()->set_group_id(999);
  create.mutable_job()->mutable_schedule()->clear_cron();
  EXPECT_THAT(admin_.CreateJob(create).status(),
              FailsWith(absl::StatusCode::kNotFound, "job.group_id: group 999 does not exist"));
  EXPECT_EQ(JobCount(), 0);
  const v1::Job job = Create(JobSpec(1000));
  v1::UpdateJobRequest update;
  *update.mutable_job() = job;
  update.mutable_job()->set_author(std::string(300, 'a'));
  EXPECT_THAT(admin_.UpdateJob(update).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "job.author: at most 256 bytes"));
  update.mutable_job()->set_id(0);
  EXPECT_THAT(admin_.UpdateJob(update).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "job.id: "));
  absl::StatusOr<v1::Job> stored = store_->GetJob(job.id());
  ASSERT_TRUE(stored.ok());
  EXPECT_TRUE(stored->author().empty());
}

TEST_F(AdminCoreTest, ABatchIsCreatedWholeOrNotAtAllAndNamesTheBadRequest) {
  v1::BatchCreateJobsRequest batch;
  for (int i = 0; i < 3; ++i) {
    v1::CreateJobRequest* r = batch.add_requests();
    *r->mutable_job() = JobSpec(1000);
    r->mutable_job()->set_name(absl::StrCat("job", i));
    r->set_start(i == 0);
  }
  batch.mutable_requests(2)->mutable_job()->mutable_bean()->set_handler("");
  EXPECT_THAT(admin_.BatchCreateJobs(batch).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "requests[2].job.bean.handler: empty"));
  EXPECT_EQ(JobCount(), 0);
  batch.mutable_requests(2)->mutable_job()->mutable_bean()->set_handler("h");
  absl::StatusOr<v1::BatchCreateJobsResponse> created = admin_.BatchCreateJobs(batch);
  ASSERT_TRUE(created.ok()) << created.status();
  ASSERT_THAT(created->jobs(), SizeIs(3));
  EXPECT_EQ(created->jobs(0).state(), v1::JOB_STATE_RUNNING);
  EXPECT_EQ(created->jobs(1).state(), v1::JOB_STATE_STOPPED);
  EXPECT_THAT(admin_.BatchCreateJobs(v1::BatchCreateJobsRequest()).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "requests: empty"));
}

// A group holds at most --max-jobs-per-group jobs: a create, a batch or a
// move into it past that is refused naming the field, and nothing is stored.
TEST_F(AdminCoreTest, AGroupHoldsAtMostItsQuotaOfJobs) {
  JobLimits limits;
  limits.max_jobs_per_group = 3;
  AdminCore admin{{store_.get(), store_.get(), store_.get(), store_.get()},
                  &trigger_,
                  &targets_,
                  &loop_,
                  &executors_,
                  &clock_,
                  limits,
                  absl::Hours(1)};
  v1::CreateJobRequest one;
  *one.mutable_job() = JobSpec(1000);
  ASSERT_TRUE(admin.CreateJob(one).ok());
  v1::BatchCreateJobsRequest batch;
  for (int i = 0; i < 3; ++i) *batch.add_requests()->mutable_job() = JobSpec(1000);
  EXPECT_THAT(admin.BatchCreateJobs(batch).status(),
              FailsWith(absl::StatusCode::kResourceExhausted,
                        absl::StrCat("requests[0].job.group_id: group ", group_.id(),
                                     " holds 1 jobs, and may hold at most 3")));
  EXPECT_EQ(JobCount(), 1);
  batch.mutable_requests()->RemoveLast();
  ASSERT_TRUE(admin.BatchCreateJobs(batch).ok());
  EXPECT_THAT(admin.CreateJob(one).status(),
              FailsWith(absl::StatusCode::kResourceExhausted, "job.group_id: group "));
  EXPECT_EQ(JobCount(), 3);

  // Moving a job of another group in counts too.
  v1::CreateGroupRequest other;
  other.mutable_group()->set_app_name("payroll");
  absl::StatusOr<v1::Group> payroll = admin.CreateGroup(other);
  ASSERT_TRUE(payroll.ok()) << payroll.status();
  v1::CreateJobRequest elsewhere = one;
  elsewhere.mutable_job()->set_group_id(payroll->id());
  absl::StatusOr<v1::Job> moved = admin.CreateJob(elsewhere);
  ASSERT_TRUE(moved.ok()) << moved.status();
  v1::UpdateJobRequest move;
  *move.mutable_job() = *moved;
  move.mutable_job()->set_group_id(group_.id());
  EXPECT_THAT(admin.UpdateJob(move).status(),
              FailsWith(absl::StatusCode::kResourceExhausted, "job.group_id: group "));
}

TEST_F(AdminCoreTest, AJobListIsFilteredPagedAndShowsEachJobsLastRun) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 5; ++i) {
    v1::Job spec = JobSpec(1000);
    spec.set_name(absl::StrCat(i % 2 == 0 ? "even" : "odd", i));
    spec.mutable_bean()->set_handler(i % 2 == 0 ? "even" : "odd");
    ids.push_back(Create(spec).id());
  }
  const int64_t run = testing::RunningRun(store_.get(), *store_->GetJob(ids[2]), "a:1", kNow);
  v1::ListJobsRequest req;
  req.set_handler("even");
  req.set_page_size(2);
  absl::StatusOr<v1::ListJobsResponse> page = admin_.ListJobs(req, {});
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_THAT(page->jobs(), SizeIs(2));
  EXPECT_EQ(page->jobs(0).id(), ids[0]);
  EXPECT_EQ(page->jobs(1).id(), ids[2]);
  EXPECT_EQ(page->jobs(1).last_run().run_id(), run);
  EXPECT_EQ(page->jobs(1).last_run().status(), v1::RUN_STATUS_RUNNING);
  ASSERT_FALSE(page->next_page_token().empty());
  req.set_page_token(page->next_page_token());
  page = admin_.ListJobs(req, {});
  ASSERT_TRUE(page.ok()) << page.status();
  ASSERT_THAT(page->jobs(), SizeIs(1));
  EXPECT_EQ(page->jobs(0).id(), ids[4]);
  EXPECT_TRUE(page->next_page_token().empty());
  // A caller limited to other groups sees none of them.
  EXPECT_THAT(admin_.ListJobs(v1::ListJobsRequest(), {group_.id() + 1})->jobs(), IsEmpty());
  req.set_page_token("not-a-token");
  EXPECT_THAT(admin_.ListJobs(req, {}).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "page_token: "));
}

// ---- Triggers and backfills -------------------------------------------------

TEST_F(AdminCoreTest, ATriggerRecordsARunAndSendsIt) {
  const v1::Job job = Create(JobSpec(0, v1::ROUTE_STRATEGY_LAST));
  v1::TriggerJobRequest req;
  req.set_job_id(job.id());
  req.set_params("now");
  req.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
  absl::StatusOr<v1::TriggerJobResponse> out = admin_.TriggerJob(req);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_THAT(out->run_ids(), SizeIs(1));
  ASSERT_THAT(executors_.Addresses(), ElementsAre("b:1"));
  EXPECT_EQ(executors_.sent[0].run.params(), "now");
  EXPECT_EQ(executors_.sent[0].run.trigger_type(), v1::TRIGGER_TYPE_MANUAL);
  EXPECT_EQ(executors_.sent[0].app, group_.app_name());
}

TEST_F(AdminCoreTest, ATriggerIsRefusedNamingWhatIsWrongAndRecordsNothing) {
  const v1::Job job = Create(JobSpec(0));
  v1::TriggerJobRequest req;
  req.set_job_id(job.id());
  req.set_trigger_type(v1::TRIGGER_TYPE_CRON);
  EXPECT_THAT(admin_.TriggerJob(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "trigger_type: must be MANUAL or API"));
  req.clear_trigger_type();
  req.set_shard_index(1);
  EXPECT_THAT(admin_.TriggerJob(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument,
                        "shard_index: the job is not a sharding broadcast"));
  req.clear_shard_index();
  req.add_executor_addresses("evil.example:443");  // Would be dialled with the group's token.
  EXPECT_THAT(admin_.TriggerJob(req).status(),
              FailsWith(absl::StatusCode::kFailedPrecondition,
                        "executor_addresses[0]: \"evil.example:443\" is not"));
  req.set_executor_addresses(0, "not an address");
  EXPECT_THAT(admin_.TriggerJob(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "executor_addresses[0]: "));
  req.clear_executor_addresses();
  req.set_job_id(999);
  EXPECT_THAT(admin_.TriggerJob(req).status(),
              FailsWith(absl::StatusCode::kNotFound, "job_id: job 999 does not exist"));
  EXPECT_THAT(executors_.sent, IsEmpty());
  absl::StatusOr<std::vector<v1::Run>> runs = store_->ListRuns({});
  ASSERT_TRUE(runs.ok());
  EXPECT_THAT(*runs, IsEmpty());
}

TEST_F(AdminCoreTest, ABroadcastShardIsTriggeredAloneAndAShardTheExecutorsLackIsRefused) {
  const v1::Job job = Create(JobSpec(0, v1::ROUTE_STRATEGY_SHARDING_BROADCAST));
  v1::TriggerJobRequest req;
  req.set_job_id(job.id());
  req.set_shard_index(1);
  absl::StatusOr<v1::TriggerJobResponse> out = admin_.TriggerJob(req);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_THAT(executors_.Addresses(), ElementsAre("b:1"));
  EXPECT_EQ(executors_.sent[0].run.shard_index(), 1u);
  EXPECT_EQ(executors_.sent[0].run.shard_total(), 2u);
  req.set_shard_index(2);
  EXPECT_THAT(admin_.TriggerJob(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument,
                        "shard_index: shard 2 does not exist for the current executors"));
}

TEST_F(AdminCoreTest, ABackfillFiresEachMissedSlotOnceAndOnlyOnce) {
  v1::Job spec = JobSpec(0);
  spec.mutable_schedule()->mutable_cron()->set_expression("0 * * * * ?");
  const v1::Job job = Create(spec);
  v1::BackfillRequest req;
  req.set_job_id(job.id());
  *req.mutable_start_time() = TimeUtil::MillisecondsToTimestamp(kNow - 180'000);
  *req.mutable_end_time() = TimeUtil::MillisecondsToTimestamp(kNow);
  absl::StatusOr<v1::BackfillResponse> out = admin_.Backfill(req);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_THAT(out->run_ids(), SizeIs(3));  // Slots at -180 s, -120 s, -60 s; the end is excluded.
  absl::StatusOr<v1::Run> first = store_->GetRun(out->run_ids(0));
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->trigger_type(), v1::TRIGGER_TYPE_BACKFILL);
  EXPECT_EQ(Ms(first->scheduled_time()), kNow - 180'000);
  // The same range again: those slots are taken.
  out = admin_.Backfill(req);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->run_ids(), IsEmpty());
  EXPECT_EQ(executors_.sent.size(), 3u);
}

TEST_F(AdminCoreTest, ABackfillOfAFixedRateJobFiresItsOwnSlotsSoThoseItFiredAreSkipped) {
  const v1::Job job = Create(JobSpec(60'000), /*start=*/true);  // Slots every minute from kNow.
  loop_.Tick();
  for (int minute = 1; minute <= 3; ++minute) {
    clock_.AdvanceTo(absl::FromUnixMillis(kNow + minute * 60'000));
    loop_.Tick();
  }
  loop_.Stop();  // Writes its cursor.
  ASSERT_EQ(executors_.sent.size(), 3u);
  // The scheduler was down at minute 4; the range starts mid-minute.
  clock_.AdvanceTo(absl::FromUnixMillis(kNow + 270'000));
  v1::BackfillRequest req;
  req.set_job_id(job.id());
  *req.mutable_start_time() = TimeUtil::MillisecondsToTimestamp(kNow + 30'000);
  *req.mutable_end_time() = TimeUtil::MillisecondsToTimestamp(kNow + 270'000);
  absl::StatusOr<v1::BackfillResponse> out = admin_.Backfill(req);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_THAT(out->run_ids(), SizeIs(1));  // Minutes 1-3 were fired: only minute 4 is.
  absl::StatusOr<v1::Run> run = store_->GetRun(out->run_ids(0));
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(Ms(run->scheduled_time()), kNow + 240'000);
  // A job never started has no grid yet: its slots start at the range's start.
  req.set_job_id(Create(JobSpec(60'000)).id());
  out = admin_.Backfill(req);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_THAT(out->run_ids(), SizeIs(4));
  run = store_->GetRun(out->run_ids(0));
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(Ms(run->scheduled_time()), kNow + 30'000);
}

TEST_F(AdminCoreTest, ABackfillIsRefusedNamingWhatIsWrong) {
  const v1::Job job = Create(JobSpec(1000));
  v1::BackfillRequest req;
  req.set_job_id(job.id());
  EXPECT_THAT(admin_.Backfill(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "start_time: required"));
  *req.mutable_start_time() = TimeUtil::MillisecondsToTimestamp(kNow - 1000);
  *req.mutable_end_time() = TimeUtil::MillisecondsToTimestamp(kNow - 1000);
  EXPECT_THAT(admin_.Backfill(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "end_time: must be after start_time"));
  *req.mutable_end_time() = TimeUtil::MillisecondsToTimestamp(kNow + 1);
  EXPECT_THAT(admin_.Backfill(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "end_time: must not be in the future"));
  *req.mutable_start_time() = TimeUtil::MillisecondsToTimestamp(kNow - 1'001'000);
  *req.mutable_end_time() = TimeUtil::MillisecondsToTimestamp(kNow);
  EXPECT_THAT(admin_.Backfill(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument,
                        "end_time: the range holds more than 1000 slots; split it"));
  v1::Job delayed = JobSpec(0);
  *delayed.mutable_schedule()->mutable_fix_delay() = TimeUtil::MillisecondsToDuration(1000);
  req.set_job_id(Create(delayed).id());
  EXPECT_THAT(admin_.Backfill(req).status(),
              FailsWith(absl::StatusCode::kFailedPrecondition,
                        "job_id: only cron and fixed-rate jobs have slots"));
  EXPECT_THAT(executors_.sent, IsEmpty());
}

TEST_F(AdminCoreTest, APreviewListsTheNextFireTimesFromNowOrAGivenInstant) {
  v1::PreviewScheduleRequest req;
  req.mutable_schedule()->mutable_cron()->set_expression("0 */15 * * * ?");
  req.set_count(3);
  absl::StatusOr<v1::PreviewScheduleResponse> out = admin_.PreviewSchedule(req);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_THAT(out->fire_times(), SizeIs(3));
  EXPECT_EQ(Ms(out->fire_times(0)), kNow + 15 * 60'000);
  *req.mutable_from_time() = TimeUtil::MillisecondsToTimestamp(kNow + 60'000);
  out = admin_.PreviewSchedule(req);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Ms(out->fire_times(0)), kNow + 15 * 60'000);
  req.set_count(101);
  EXPECT_THAT(admin_.PreviewSchedule(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "count: "));
}

TEST_F(AdminCoreTest, ARunCanBeKilledOnlyWhileAnExecutorHasIt) {
  const v1::Job job = Create(JobSpec(0));
  const int64_t pending = testing::PendingRun(store_.get(), job, kNow);
  EXPECT_THAT(admin_.KillRun(pending).status(),
              FailsWith(absl::StatusCode::kFailedPrecondition,
                        absl::StrCat("run_id: run ", pending, " has not reached an executor yet")));
  ASSERT_TRUE(store_->FailRuns({pending}, v1::HANDLE_CODE_FAILURE, "boom", kNow).ok());
  EXPECT_THAT(admin_.KillRun(pending).status(),
              FailsWith(absl::StatusCode::kFailedPrecondition,
                        absl::StrCat("run_id: run ", pending, " has already ended")));
  EXPECT_THAT(admin_.KillRun(999), StatusIs(absl::StatusCode::kNotFound));
}

// ---- Tokens and users -------------------------------------------------------

TEST_F(AdminCoreTest, ATokensSecretIsShownOnceAndOnlyItsDigestKept) {
  v1::CreateTokenRequest req;
  req.set_name("ci");
  req.set_role(v1::ROLE_OPERATOR);
  req.mutable_grants()->add_group_ids(group_.id());
  *req.mutable_ttl() = TimeUtil::SecondsToDuration(3600);
  absl::StatusOr<v1::CreateTokenResponse> created = admin_.CreateToken(req);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_FALSE(created->secret().empty());
  EXPECT_EQ(created->token().fingerprint(), Sha256Hex(created->secret()).substr(0, 16));
  EXPECT_EQ(Ms(created->token().expire_time()), kNow + 3'600'000);
  absl::StatusOr<v1::ApiToken> found = store_->FindAdminToken(Sha256Hex(created->secret()));
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->name(), "ci");
  EXPECT_EQ(found->role(), v1::ROLE_OPERATOR);
  absl::StatusOr<v1::ListTokensResponse> list = admin_.ListTokens();
  ASSERT_TRUE(list.ok());
  ASSERT_THAT(list->tokens(), SizeIs(1));
  EXPECT_EQ(list->tokens(0).fingerprint(), created->token().fingerprint());
  EXPECT_THAT(admin_.CreateToken(req).status(),
              FailsWith(absl::StatusCode::kAlreadyExists, "name: a token named \"ci\" exists"));
  v1::RevokeTokenRequest revoke;
  revoke.set_name("ci");
  absl::StatusOr<v1::ApiToken> revoked = admin_.RevokeToken(revoke);
  ASSERT_TRUE(revoked.ok()) << revoked.status();
  EXPECT_EQ(Ms(revoked->revoke_time()), kNow);
}

TEST_F(AdminCoreTest, ATokenIsRefusedNamingTheFieldAndNotStored) {
  v1::CreateTokenRequest req;
  req.set_name("has space");
  EXPECT_THAT(admin_.CreateToken(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "name: "));
  req.set_name("ops");
  *req.mutable_ttl() = TimeUtil::MillisecondsToDuration(500);
  EXPECT_THAT(admin_.CreateToken(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "ttl: outside "));
  req.clear_ttl();
  req.mutable_grants()->set_all_groups(true);  // An admin (the default role) takes none.
  EXPECT_THAT(admin_.CreateToken(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument,
                        "grants: an admin reaches every group; give no grants"));
  req.set_role(v1::ROLE_VIEWER);
  req.mutable_grants()->add_group_ids(group_.id());
  EXPECT_THAT(admin_.CreateToken(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument,
                        "grants: all_groups and group_ids exclude each other"));
  req.clear_grants();
  EXPECT_THAT(admin_.CreateToken(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument,
                        "grants: an operator or viewer needs all_groups or group_ids"));
  req.mutable_grants()->add_group_ids(0);
  EXPECT_THAT(admin_.CreateToken(req).status(), FailsWith(absl::StatusCode::kInvalidArgument,
                                                          "grants.group_ids[0]: 0 is outside 1.."));
  req.set_role(static_cast<v1::Role>(42));
  EXPECT_THAT(
      admin_.CreateToken(req).status(),
      FailsWith(absl::StatusCode::kInvalidArgument, "role: must be admin, operator or viewer"));
  absl::StatusOr<v1::ListTokensResponse> list = admin_.ListTokens();
  ASSERT_TRUE(list.ok());
  EXPECT_THAT(list->tokens(), IsEmpty());
  v1::RevokeTokenRequest revoke;
  revoke.set_name("nobody");
  EXPECT_THAT(admin_.RevokeToken(revoke), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(AdminCoreTest, AUserIsStoredWithAHashedPasswordAndKeepsItWhenUpdatedWithoutOne) {
  v1::CreateUserRequest req;
  req.mutable_user()->set_name("ana");
  req.mutable_user()->set_role(v1::ROLE_VIEWER);
  req.mutable_user()->mutable_grants()->set_all_groups(true);
  req.set_password("correct horse battery");
  absl::StatusOr<v1::User> created = admin_.CreateUser(req);
  ASSERT_TRUE(created.ok()) << created.status();
  absl::StatusOr<store::StoredUser> stored = store_->GetUser("ana");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_NE(stored->password_hash, "correct horse battery");
  EXPECT_TRUE(VerifyPassword("correct horse battery", stored->password_hash));
  EXPECT_THAT(admin_.CreateUser(req).status(), FailsWith(absl::StatusCode::kAlreadyExists,
                                                         "user.name: a user named \"ana\" exists"));
  v1::UpdateUserRequest update;
  *update.mutable_user() = *created;
  update.mutable_user()->set_role(v1::ROLE_OPERATOR);
  absl::StatusOr<v1::User> updated = admin_.UpdateUser(update);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->role(), v1::ROLE_OPERATOR);
  stored = store_->GetUser("ana");
  EXPECT_TRUE(VerifyPassword("correct horse battery", stored->password_hash));
  ASSERT_TRUE(admin_.DeleteUser("ana").ok());
  EXPECT_THAT(admin_.DeleteUser("ana"), StatusIs(absl::StatusCode::kNotFound));
  absl::StatusOr<v1::ListUsersResponse> users = admin_.ListUsers();
  ASSERT_TRUE(users.ok());
  EXPECT_THAT(users->users(), IsEmpty());
}

TEST_F(AdminCoreTest, AUserIsRefusedNamingTheFieldAndNeverEchoesThePassword) {
  v1::CreateUserRequest req;
  req.mutable_user()->set_name("ana");
  req.mutable_user()->set_role(v1::ROLE_ADMIN);
  req.set_password("short");
  const absl::Status weak = admin_.CreateUser(req).status();
  EXPECT_THAT(weak, FailsWith(absl::StatusCode::kInvalidArgument, "password: at least 12 bytes"));
  EXPECT_THAT(std::string(weak.message()), ::testing::Not(HasSubstr("short")));
  req.set_password("");
  EXPECT_THAT(admin_.CreateUser(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "password: "));
  req.set_password("long enough password");
  req.mutable_user()->set_name("");
  EXPECT_THAT(admin_.CreateUser(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "user.name: empty"));
  req.mutable_user()->set_name("ana");
  req.mutable_user()->set_role(v1::ROLE_OPERATOR);
  EXPECT_THAT(admin_.CreateUser(req).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "user.grants: "));
  v1::UpdateUserRequest update;
  update.mutable_user()->set_name("nobody");
  update.mutable_user()->set_role(v1::ROLE_ADMIN);
  EXPECT_THAT(admin_.UpdateUser(update), StatusIs(absl::StatusCode::kNotFound));
  update.set_password("weak");  // Optional on update, but checked when given.
  EXPECT_THAT(admin_.UpdateUser(update).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "password: "));
  EXPECT_THAT(admin_.DeleteUser(""), FailsWith(absl::StatusCode::kInvalidArgument, "name: empty"));
  absl::StatusOr<v1::ListUsersResponse> users = admin_.ListUsers();
  ASSERT_TRUE(users.ok());
  EXPECT_THAT(users->users(), IsEmpty());
}

TEST_F(AdminCoreTest, ALoginIssuesASessionTokenOfTheUsersRoleForTwelveHoursByDefault) {
  v1::CreateUserRequest user;
  user.mutable_user()->set_name("ana");
  user.mutable_user()->set_role(v1::ROLE_VIEWER);
  user.mutable_user()->mutable_grants()->add_group_ids(group_.id());
  user.set_password("correct horse battery");
  ASSERT_TRUE(admin_.CreateUser(user).ok());
  absl::StatusOr<v1::CreateTokenResponse> session = admin_.Login("ana", v1::LoginRequest());
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_THAT(session->token().name(), StartsWith("login.ana."));
  EXPECT_EQ(session->token().user(), "ana");
  EXPECT_EQ(session->token().role(), v1::ROLE_VIEWER);
  EXPECT_THAT(session->token().grants().group_ids(), ElementsAre(group_.id()));
  EXPECT_EQ(Ms(session->token().expire_time()), kNow + 12 * 3'600'000);
  // Each login is a session of its own.
  absl::StatusOr<v1::CreateTokenResponse> again = admin_.Login("ana", v1::LoginRequest());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_NE(again->token().name(), session->token().name());
  v1::LoginRequest month;
  *month.mutable_ttl() = TimeUtil::SecondsToDuration(31 * 86'400);
  EXPECT_THAT(admin_.Login("ana", month).status(),
              FailsWith(absl::StatusCode::kInvalidArgument, "ttl: outside "));
}

}  // namespace
}  // namespace gnomon::scheduler

// Job names (unique within a group, "job-<id>" for unnamed jobs), lookups by
// name and each job's newest run, on both backends.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

v1::Job Named(v1::Job job, const std::string& name) {
  job.set_name(name);
  return job;
}

TEST_P(StoreTest, AJobWithoutANameIsCalledJobAndItsId) {
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("app"), 1000));
  ASSERT_OK_AND_ASSIGN(a,
                       store().CreateJob(MakeJob(g.id(), "h"), v1::JOB_STATE_STOPPED, kNever, 1));
  ASSERT_OK_AND_ASSIGN(b,
                       store().CreateJob(MakeJob(g.id(), "h"), v1::JOB_STATE_STOPPED, kNever, 1));
  EXPECT_EQ(a.name(), absl::StrCat("job-", a.id()));
  EXPECT_EQ(b.name(), absl::StrCat("job-", b.id()));
  std::vector<NewJob> batch(3);
  for (NewJob& n : batch) n.job = MakeJob(g.id(), "h");
  batch[1].job.set_name("named");
  ASSERT_OK_AND_ASSIGN(created, store().CreateJobs(batch, 2));
  EXPECT_EQ(created[0].name(), absl::StrCat("job-", created[0].id()));
  EXPECT_EQ(created[1].name(), "named");
  EXPECT_EQ(created[2].name(), absl::StrCat("job-", created[2].id()));
  // An update without a name keeps the job's.
  v1::Job update = created[1];
  update.clear_name();
  update.set_description("changed");
  ASSERT_OK_AND_ASSIGN(updated, store().UpdateJob(update, std::nullopt, 3));
  EXPECT_EQ(updated.name(), "named");
}

TEST_P(StoreTest, NamesAreUniqueWithinAGroupOnly) {
  ASSERT_OK_AND_ASSIGN(g1, store().CreateGroup(MakeGroup("one"), 1000));
  ASSERT_OK_AND_ASSIGN(g2, store().CreateGroup(MakeGroup("two"), 1000));
  ASSERT_OK_AND_ASSIGN(a, store().CreateJob(Named(MakeJob(g1.id(), "h"), "report"),
                                            v1::JOB_STATE_STOPPED, kNever, 1));
  absl::StatusOr<v1::Job> dup =
      store().CreateJob(Named(MakeJob(g1.id(), "h"), "report"), v1::JOB_STATE_STOPPED, kNever, 1);
  EXPECT_THAT(dup, StatusIs(absl::StatusCode::kAlreadyExists,
                            absl::StrCat("job.name: group ", g1.id(),
                                         " already has a job named 'report'")));
  // A batch with a clash stores none of its jobs.
  std::vector<NewJob> batch(2);
  batch[0].job = Named(MakeJob(g1.id(), "h"), "fresh");
  batch[1].job = Named(MakeJob(g1.id(), "h"), "report");
  EXPECT_THAT(store().CreateJobs(batch, 2), StatusIs(absl::StatusCode::kAlreadyExists));
  ASSERT_OK_AND_ASSIGN(fresh, store().GetJobsNamed("fresh", {}));
  EXPECT_THAT(fresh, IsEmpty());

  ASSERT_OK_AND_ASSIGN(b, store().CreateJob(Named(MakeJob(g2.id(), "h"), "report"),
                                            v1::JOB_STATE_STOPPED, kNever, 1));
  ASSERT_OK_AND_ASSIGN(both, store().GetJobsNamed("report", {}));
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].id(), a.id());
  EXPECT_EQ(both[1].id(), b.id());
  ASSERT_OK_AND_ASSIGN(in_two, store().GetJobsNamed("report", {g2.id()}));
  ASSERT_EQ(in_two.size(), 1u);
  EXPECT_EQ(in_two[0].id(), b.id());

  // Moving a job into a group that has its name clashes; renaming does not.
  v1::Job moved = b;
  moved.set_group_id(g1.id());
  EXPECT_THAT(store().UpdateJob(moved, std::nullopt, 2),
              StatusIs(absl::StatusCode::kAlreadyExists));
  moved.set_name("report-two");
  ASSERT_OK_AND_ASSIGN(renamed, store().UpdateJob(moved, std::nullopt, 2));
  EXPECT_EQ(renamed.name(), "report-two");
  EXPECT_EQ(renamed.group_id(), g1.id());
}

TEST_P(StoreTest, LastRunsAreEachJobsNewestRun) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  ASSERT_OK_AND_ASSIGN(
      other, store().CreateJob(MakeJob(group_.id(), "h"), v1::JOB_STATE_STOPPED, kNever, 1));
  ASSERT_OK_AND_ASSIGN(
      idle, store().CreateJob(MakeJob(group_.id(), "h"), v1::JOB_STATE_STOPPED, kNever, 1));
  Insert(MakeRun(job_, 1000));
  const int64_t newest = Insert(MakeRun(job_, 2000));
  const int64_t others = Insert(MakeRun(other, 1500));
  ASSERT_OK(store().ApplyReports({Result(newest, 200, 2500)}, group_.id()).status());
  ASSERT_OK_AND_ASSIGN(last, store().LastRuns({job_.id(), other.id(), idle.id()}));
  std::vector<int64_t> ids;
  for (const v1::Run& r : last) ids.push_back(r.id());
  std::sort(ids.begin(), ids.end());
  EXPECT_THAT(ids, ElementsAre(newest, others));  // newest < others
  for (const v1::Run& r : last) {
    if (r.id() == newest) EXPECT_EQ(r.status(), v1::RUN_STATUS_SUCCEEDED);
  }
  ASSERT_OK_AND_ASSIGN(none, store().LastRuns({}));
  EXPECT_THAT(none, IsEmpty());
}

}  // namespace
}  // namespace gnomon::store::testing

// ResolveJob: a job named instead of numbered — found among the groups the
// caller reaches, ambiguity named, and nothing learnt about groups it does
// not reach.
#include "services/scheduler/job_names.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "services/common/status/status_macros.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/testing/temp_store.h"

namespace gnomon::scheduler {
namespace {

constexpr int64_t kNow = 1'800'000'000'000;

class JobNamesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    billing_ = Group("billing");
    reports_ = Group("reports");
    billing_nightly_ = Job(billing_, "nightly");
    reports_nightly_ = Job(reports_, "nightly");
    billing_only_ = Job(billing_, "invoices");
  }
  int64_t Group(const std::string& app) {
    absl::StatusOr<v1::Group> g = store_.AddGroup(app, "token", kNow);
    EXPECT_TRUE(g.ok()) << g.status();
    return g.ok() ? g->id() : 0;
  }
  int64_t Job(int64_t group_id, const std::string& name) {
    v1::Job j;
    j.set_group_id(group_id);
    j.set_name(name);
    j.mutable_bean()->set_handler("h");
    absl::StatusOr<v1::Job> job = store_->CreateJob(j, v1::JOB_STATE_STOPPED, store::kNever, kNow);
    EXPECT_TRUE(job.ok()) << job.status();
    return job.ok() ? job->id() : 0;
  }
  static Access Viewer(int64_t group_id) {
    Access a;
    a.role = v1::ROLE_VIEWER;
    a.grants.add_group_ids(group_id);
    return a;
  }
  // Resolves `name` (in `group`, if given) as `access` would.
  absl::StatusOr<int64_t> Resolve(const Access& access, const std::string& name,
                                  const std::string& group = "") {
    v1::JobName n;
    n.set_name(name);
    n.set_group(group);
    JobRef ref{0, &n};
    RETURN_IF_ERROR(ResolveJob(store_.get(), access, ref));
    return ref.id;
  }

  store::testing::TempStore store_;
  int64_t billing_ = 0, reports_ = 0;
  int64_t billing_nightly_ = 0, reports_nightly_ = 0, billing_only_ = 0;
};

TEST_F(JobNamesTest, ANameUniqueAmongTheReachableGroupsIsEnough) {
  EXPECT_EQ(Resolve(Access::Admin(), "invoices").value_or(-1), billing_only_);
  EXPECT_EQ(Resolve(Viewer(reports_), "nightly").value_or(-1),
            reports_nightly_);  // The other "nightly" is not a candidate.
}

TEST_F(JobNamesTest, ANameInSeveralGroupsMustSayWhichAndTheErrorListsThem) {
  const absl::StatusOr<int64_t> id = Resolve(Access::Admin(), "nightly");
  EXPECT_THAT(
      id,
      StatusIs(
          absl::StatusCode::kInvalidArgument,
          "job_name: jobs named \"nightly\" are in groups billing, reports; set job_name.group"));
  EXPECT_EQ(Resolve(Access::Admin(), "nightly", "reports").value_or(-1), reports_nightly_);
}

TEST_F(JobNamesTest, AnUnknownNameIsNotFoundNamingIt) {
  EXPECT_EQ(Resolve(Access::Admin(), "weekly").status(),
            absl::NotFoundError("job_name: no job is named \"weekly\""));
  EXPECT_EQ(Resolve(Access::Admin(), "weekly", "billing").status(),
            absl::NotFoundError(
                absl::StrCat("job_name: group ", billing_, " has no job named \"weekly\"")));
  EXPECT_EQ(Resolve(Access::Admin(), "nightly", "payroll").status(),
            absl::NotFoundError("job_name.group: no group has app name \"payroll\""));
}

TEST_F(JobNamesTest, AScopedCallerLearnsNothingOfGroupsItDoesNotReach) {
  // Whether the group exists or not, the answer is the same.
  const absl::Status missing = Resolve(Viewer(reports_), "nightly", "payroll").status();
  const absl::Status hidden = Resolve(Viewer(reports_), "nightly", "billing").status();
  EXPECT_THAT(missing, StatusIs(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(
      hidden,
      StatusIs(absl::StatusCode::kPermissionDenied,
               "job_name.group: group \"billing\": not in a group this credential is granted"));
  // A job only in a group it does not reach is simply not found.
  EXPECT_THAT(Resolve(Viewer(reports_), "invoices"), StatusIs(absl::StatusCode::kNotFound));
}

TEST_F(JobNamesTest, AnIdAndANameTogetherAreRefused) {
  v1::JobName n;
  n.set_name("invoices");
  JobRef ref{billing_only_, &n};
  EXPECT_EQ(ResolveJob(store_.get(), Access::Admin(), ref),
            absl::InvalidArgumentError("job_name: give job_id or job_name, not both"));
}

TEST_F(JobNamesTest, ABadNameIsRefusedNamingTheField) {
  EXPECT_EQ(Resolve(Access::Admin(), "").status().message(), "job_name.name: empty");
  EXPECT_THAT(Resolve(Access::Admin(), "two words"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(Resolve(Access::Admin(), "nightly", "no/slashes"),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST_F(JobNamesTest, AJobGivenByIdIsCheckedForAccessAndAMissingIdLeftToTheCall) {
  JobRef mine{reports_nightly_, nullptr};
  EXPECT_TRUE(ResolveJob(store_.get(), Viewer(reports_), mine).ok());
  JobRef theirs{billing_nightly_, nullptr};
  EXPECT_THAT(ResolveJob(store_.get(), Viewer(reports_), theirs),
              StatusIs(absl::StatusCode::kPermissionDenied));
  JobRef none{0, nullptr};
  EXPECT_TRUE(
      ResolveJob(store_.get(), Viewer(reports_), none).ok());  // The call says "job_id: ...".
}

TEST_F(JobNamesTest, ANameLookedUpInTheRequestsGroupNeedsThatGroup) {
  v1::JobName n;
  n.set_name("nightly");
  JobRef in_billing{0, &n, billing_};
  ASSERT_TRUE(ResolveJob(store_.get(), Access::Admin(), in_billing).ok());
  EXPECT_EQ(in_billing.id, billing_nightly_);
  JobRef denied{0, &n, billing_};
  EXPECT_THAT(ResolveJob(store_.get(), Viewer(reports_), denied),
              StatusIs(absl::StatusCode::kPermissionDenied));
}

}  // namespace
}  // namespace gnomon::scheduler

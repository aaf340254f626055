// LogService's queries (GetRun, ListRuns, GetStats) as a caller meets
// them: a credential scoped to some groups reads their runs and statistics and
// nothing of the others' — not even whether a run exists — and a bad request
// is InvalidArgument naming its field, whoever sends it. The handlers are
// called directly (no server) with the call's metadata injected.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/test/server_context_test_spouse.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/server/run_queries.h"
#include "services/common/server/tokens.h"
#include "services/log/log_service.h"
#include "services/log/testing/run_fixtures.h"

namespace gnomon::logsvc {
namespace {

using google::protobuf::util::TimeUtil;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using ::testing::UnorderedElementsAre;

constexpr int64_t kDayMs = 86'400'000;

class LogQueriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(f_.status().ok()) << f_.status();
    own_run_ = f_.AddRun(f_.job(), 60'000);
    absl::StatusOr<v1::Group> payroll = f_.store()->CreateGroup(Group("payroll"), 1);
    ASSERT_TRUE(payroll.ok()) << payroll.status();
    absl::StatusOr<v1::Job> job = f_.AddJob(payroll->id(), "pay");
    ASSERT_TRUE(job.ok()) << job.status();
    other_job_ = *job;
    other_run_ = f_.AddRun(other_job_, 60'000);
    ASSERT_TRUE(f_.store()->CreateAdminToken("ops", Sha256Hex("admin-token"), 1).ok());
    store::TokenScope viewer{v1::ROLE_VIEWER, {}, ""};
    viewer.grants.add_group_ids(f_.group().id());
    ASSERT_TRUE(f_.store()->CreateAdminToken("dash", Sha256Hex("viewer-token"), 1, 0, viewer).ok());
  }
  static v1::Group Group(const std::string& app) {
    v1::Group g;
    g.set_app_name(app);
    g.set_access_token(app + "-token");
    return g;
  }
  // Calls `handler` of the service as a caller presenting `token`.
  template <typename Request, typename Response>
  grpc::Status Call(grpc::Status (LogServiceImpl::*handler)(grpc::ServerContext*, const Request*,
                                                            Response*),
                    const std::string& token, const Request& request, Response* response) {
    grpc::ServerContext context;
    grpc::testing::ServerContextTestSpouse spouse(&context);
    spouse.AddClientMetadata(std::string(kAuthorizationKey), BearerValue(token));
    return (service_.*handler)(&context, &request, response);
  }
  grpc::Status GetRun(const std::string& token, int64_t run_id, int32_t log_lines = 0) {
    v1::GetRunRequest req;
    req.set_run_id(run_id);
    req.set_log_lines(log_lines);
    v1::Run out;
    return Call(&LogServiceImpl::GetRun, token, req, &out);
  }
  grpc::Status ListRuns(const std::string& token, const v1::ListRunsRequest& req,
                        std::vector<int64_t>* ids = nullptr) {
    v1::ListRunsResponse out;
    grpc::Status s = Call(&LogServiceImpl::ListRuns, token, req, &out);
    for (const v1::Run& r : out.runs()) {
      if (ids != nullptr) ids->push_back(r.id());
    }
    return s;
  }
  // Statistics of days [from_day, to_day) since the epoch, of `job_id` (0: all).
  grpc::Status GetStats(const std::string& token, int64_t job_id, int64_t from_day,
                        int64_t to_day) {
    v1::GetStatsRequest req;
    req.set_job_id(job_id);
    *req.mutable_start_time() = TimeUtil::MillisecondsToTimestamp(from_day * kDayMs);
    *req.mutable_end_time() = TimeUtil::MillisecondsToTimestamp(to_day * kDayMs);
    v1::GetStatsResponse out;
    return Call(&LogServiceImpl::GetStats, token, req, &out);
  }
  static void ExpectInvalid(const grpc::Status& s, const std::string& field) {
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << field << ": " << s.error_message();
    EXPECT_THAT(s.error_message(), StartsWith(field));
  }

  testing::RunFixture f_;
  SimulatedClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  Authenticator auth_{f_.store(), f_.store(), "cluster-token", nullptr, &clock_};
  ReportWriter writer_{f_.store(), &clock_, {}};  // Not running: the queries do not use it.
  LogTailHub hub_;
  LogServiceImpl service_{f_.store(), f_.store(), f_.store(), &auth_, &writer_, &hub_};
  int64_t own_run_ = 0, other_run_ = 0;
  v1::Job other_job_;
};

TEST_F(LogQueriesTest, AScopedCallerReadsOnlyTheRunsAndStatsOfItsGroups) {
  EXPECT_TRUE(GetRun("viewer-token", own_run_).ok());
  grpc::Status denied = GetRun("viewer-token", other_run_);
  EXPECT_EQ(denied.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(denied.error_message(), HasSubstr("not in a group this credential is granted"));
  // A run that does not exist gets the same answer: ids reveal nothing.
  grpc::Status missing = GetRun("viewer-token", other_run_ + 1000);
  EXPECT_EQ(missing.error_code(), denied.error_code());
  EXPECT_EQ(GetRun("admin-token", other_run_ + 1000).error_code(), grpc::StatusCode::NOT_FOUND);

  std::vector<int64_t> listed;
  ASSERT_TRUE(ListRuns("viewer-token", v1::ListRunsRequest(), &listed).ok());
  EXPECT_THAT(listed, UnorderedElementsAre(own_run_));
  listed.clear();
  ASSERT_TRUE(ListRuns("admin-token", v1::ListRunsRequest(), &listed).ok());
  EXPECT_THAT(listed, UnorderedElementsAre(own_run_, other_run_));
  v1::ListRunsRequest of_other_group;
  of_other_group.set_group_id(other_job_.group_id());
  EXPECT_EQ(ListRuns("viewer-token", of_other_group).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  v1::ListRunsRequest of_other_job;
  of_other_job.set_job_id(other_job_.id());
  EXPECT_EQ(ListRuns("viewer-token", of_other_job).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);

  EXPECT_TRUE(GetStats("viewer-token", f_.job().id(), 0, 7).ok());
  EXPECT_EQ(GetStats("viewer-token", other_job_.id(), 0, 7).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  grpc::Status totals = GetStats("viewer-token", 0, 0, 7);  // Totals count every group's runs.
  EXPECT_EQ(totals.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(totals.error_message(), StartsWith("job_id"));
  EXPECT_TRUE(GetStats("admin-token", 0, 0, 7).ok());
}

TEST_F(LogQueriesTest, ACallWithoutAValidTokenIsRefusedBeforeAnyQuery) {
  EXPECT_EQ(GetRun("wrong-token", own_run_).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(ListRuns("", v1::ListRunsRequest()).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(GetStats("cluster-token", 0, 0, 1).error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

// The same bad request gets the same answer from an admin and from a
// scoped caller: InvalidArgument naming the field, before any object is
// looked up.
TEST_F(LogQueriesTest, ABadQueryIsRefusedNamingTheFieldWhoeverSendsIt) {
  for (const std::string token : {"admin-token", "viewer-token"}) {
    SCOPED_TRACE(token);
    ExpectInvalid(GetRun(token, 0), "run_id");
    ExpectInvalid(GetRun(token, -7), "run_id");
    ExpectInvalid(GetRun(token, own_run_, /*log_lines=*/-1), "log_lines");

    v1::ListRunsRequest req;
    req.set_page_size(1001);
    ExpectInvalid(ListRuns(token, req), "page_size");
    req = v1::ListRunsRequest();
    req.set_page_token("not-a-token");
    ExpectInvalid(ListRuns(token, req), "page_token");
    req = v1::ListRunsRequest();
    req.add_statuses(static_cast<v1::RunStatus>(99));
    ExpectInvalid(ListRuns(token, req), "statuses[0]");
    req = v1::ListRunsRequest();
    *req.mutable_start_time() = TimeUtil::MillisecondsToTimestamp(2 * kDayMs);
    *req.mutable_end_time() = TimeUtil::MillisecondsToTimestamp(kDayMs);
    ExpectInvalid(ListRuns(token, req), "end_time");

    ExpectInvalid(GetStats(token, -1, 0, 7), "job_id");
    ExpectInvalid(GetStats(token, f_.job().id(), 7, 7), "end_time");
    ExpectInvalid(GetStats(token, f_.job().id(), 0, 367), "end_time");
    v1::GetStatsRequest no_start;
    no_start.set_job_id(f_.job().id());
    *no_start.mutable_end_time() = TimeUtil::MillisecondsToTimestamp(kDayMs);
    v1::GetStatsResponse out;
    ExpectInvalid(Call(&LogServiceImpl::GetStats, token, no_start, &out), "start_time");
  }
}

// GetRun's log is read a page at a time and answered up to 3 MiB of text, so
// a run with a large log cannot make one call build a huge answer.
TEST_F(LogQueriesTest, GetRunAnswersItsLogInPagesUpToABoundOfBytes) {
  // 1,200 short lines: the first 1,000 asked for, across pages, in order.
  ASSERT_TRUE(
      f_.store()->ApplyReports({testing::LogLines(own_run_, 1, 1200)}, f_.group().id()).ok());
  v1::GetRunRequest req;
  req.set_run_id(own_run_);
  absl::StatusOr<v1::GetRunResponse> small = GetRunWithLog(f_.store(), req);
  ASSERT_TRUE(small.ok()) << small.status();
  ASSERT_EQ(small->log_lines_size(), 1000);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(small->log_lines(i).line_number(), i + 1);

  // 120 lines of 60 KiB (7 MiB) on another run: as many as fit in 3 MiB.
  const int64_t big = f_.AddRun(f_.job(), 120'000);
  v1::ReportItem lines = testing::LogLines(big, 1, 120);
  for (v1::LogLine& l : *lines.mutable_log()->mutable_lines())
    l.set_text(std::string(60 << 10, 'x'));
  ASSERT_TRUE(f_.store()->ApplyReports({lines}, f_.group().id()).ok());
  req.set_run_id(big);
  req.set_log_lines(100000);
  absl::StatusOr<v1::GetRunResponse> capped = GetRunWithLog(f_.store(), req);
  ASSERT_TRUE(capped.ok()) << capped.status();
  EXPECT_EQ(capped->log_lines_size(), static_cast<int>(kMaxGetRunLogBytes / (60 << 10)));
  EXPECT_EQ(capped->log_lines(capped->log_lines_size() - 1).line_number(),
            capped->log_lines_size());
}

}  // namespace
}  // namespace gnomon::logsvc

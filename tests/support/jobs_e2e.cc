#include "tests/support/jobs_e2e.h"

namespace gnomon::testing {

::testing::AssertionResult JobsE2E::StartWithExecutor(const std::string& app) {
  if (!cluster_.Start()) return ::testing::AssertionFailure() << cluster_.Output();
  admin_ = v1::JobAdmin::NewStub(
      grpc::CreateChannel(cluster_.address(), grpc::InsecureChannelCredentials()));
  if (!cluster_.CtlJson({"group", "create", app}, &group_)) {
    return ::testing::AssertionFailure() << "group create " << app << "\n" << cluster_.Output();
  }
  executor_ = cluster_.StartExecutor(app, group_.access_token());
  if (!cluster_.AwaitOnline(group_.id(), 1)) {
    return ::testing::AssertionFailure() << executor_->Output();
  }
  return ::testing::AssertionSuccess();
}

v1::Job JobsE2E::Get(int64_t job_id) {
  v1::GetJobRequest g;
  g.set_job_id(job_id);
  v1::Job job;
  grpc::Status s = admin_->GetJob(Ctx().get(), g, &job);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return job;
}

std::vector<v1::Run> JobsE2E::Runs(int64_t job_id) {
  v1::ListRunsRequest l;
  l.set_job_id(job_id);
  l.set_page_size(1000);
  v1::ListRunsResponse out;
  grpc::Status s = admin_->ListRuns(Ctx().get(), l, &out);
  EXPECT_TRUE(s.ok()) << s.error_message();
  return {out.runs().begin(), out.runs().end()};
}

}  // namespace gnomon::testing

#include "tests/support/slow_run.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "services/common/client/auth_metadata.h"

namespace gnomon::testing {

::testing::AssertionResult StartSlowRun(GnomonCluster& cluster, const std::string& app,
                                        SlowRun* out) {
  if (!cluster.CtlJson({"group", "create", app}, &out->group))
    return ::testing::AssertionFailure() << "group create failed: " << cluster.Output();
  out->executor = cluster.StartExecutor(app, out->group.access_token());
  if (!out->executor->WaitForLine("started as", absl::Seconds(30)))
    return ::testing::AssertionFailure() << "executor did not start: " << out->executor->Output();
  v1::Job job;
  if (!cluster.CtlJson({"job", "create", "--group", absl::StrCat(out->group.id()), "--handler",
                        "slow", "--params", "600000", "--manual"},
                       &job)) {
    return ::testing::AssertionFailure() << "job create failed";
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  CommandResult r;
  // Until the executor has registered, a trigger finds no executor.
  while ((r = cluster.Ctl({"job", "trigger", absl::StrCat(job.id())})).exit_code != 0 &&
         absl::Now() < deadline) {
    cluster.PollInterval(absl::Milliseconds(200));
  }
  v1::ListRunsResponse runs;
  if (!cluster.CtlJson({"run", "list", "--job", absl::StrCat(job.id())}, &runs) ||
      runs.runs_size() != 1) {
    return ::testing::AssertionFailure() << "no run: " << r.err;
  }
  out->run_id = runs.runs(0).id();
  return ::testing::AssertionSuccess();
}

std::string ViewerToken(GnomonCluster& cluster, const SlowRun& slow, const std::string& name) {
  v1::CreateTokenResponse t;
  EXPECT_TRUE(cluster.CtlJson(
      {"token", "create", name, "--role", "viewer", "--group", absl::StrCat(slow.group.id())}, &t));
  return t.secret();
}

std::unique_ptr<Follower<v1::LogLine>> FollowRunLog(std::shared_ptr<grpc::Channel> channel,
                                                    const std::string& token, int64_t run_id) {
  return std::make_unique<Follower<v1::LogLine>>(
      [channel, token, run_id](grpc::ClientContext* ctx) {
        ctx->AddMetadata(std::string(kAuthorizationKey), BearerValue(token));
        v1::StreamRunLogRequest req;
        req.set_run_id(run_id);
        req.set_follow(true);
        return v1::LogService::NewStub(channel)->StreamRunLog(ctx, req);
      });
}

}  // namespace gnomon::testing

// An open stream ends when its credential goes (docs/security.md,
// "Credentials on open streams"): a run's log followed over gRPC and over
// HTTP (the console's live log) with API tokens that are then revoked, and
// executors watched with a user's session whose user is then deleted — each
// ends UNAUTHENTICATED, while an admin's stream on the same run stays open.
// Real gnomond, real executor, real gRPC and HTTP.
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.pb.h"
#include "gnomon/v1/log.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/http_get.h"
#include "tests/support/slow_run.h"
#include "tests/support/stream_follower.h"

namespace gnomon {
namespace {

using testing::Follower;
using testing::kPatience;

class OpenStreamsE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    std::optional<std::string> url = cluster_.HttpUrl();
    ASSERT_TRUE(url) << cluster_.Output();
    http_ = *url;
    channel_ = grpc::CreateChannel(cluster_.address(), grpc::InsecureChannelCredentials());
    ASSERT_TRUE(testing::StartSlowRun(cluster_, "streams-app", &slow_));
  }
  std::string Token(const std::string& name) { return testing::ViewerToken(cluster_, slow_, name); }
  // StreamRunLog following the run, with `token`.
  std::unique_ptr<Follower<v1::LogLine>> FollowLog(const std::string& token) {
    return testing::FollowRunLog(Channel(), token, slow_.run_id);
  }
  // One channel for every stream (made in SetUp), alive as long as they are.
  std::shared_ptr<grpc::Channel> Channel() { return channel_; }

  testing::GnomonCluster cluster_{{"--http-listen=127.0.0.1:0"}};
  std::shared_ptr<grpc::Channel> channel_;
  std::string http_;
  testing::SlowRun slow_;
};

TEST_F(OpenStreamsE2E, StreamsEndWhenTheirTokenIsRevokedOrTheirUserDeleted) {
  const std::string grpc_token = Token("grpc-follower");
  const std::string http_token = Token("console");
  const std::string password_file = cluster_.dir() + "/watcher.pw";
  std::ofstream(password_file) << "watcher-password-0123\n";
  ASSERT_EQ(cluster_
                .Ctl({"user", "create", "watcher", "--role", "viewer", "--group",
                      absl::StrCat(slow_.group.id()), "--password-file", password_file})
                .exit_code,
            0);
  testing::CommandResult login =
      cluster_.Ctl({"user", "login", "watcher", "--password-file", password_file});
  ASSERT_EQ(login.exit_code, 0) << login.err;
  const std::string session = login.out.substr(0, login.out.find('\n'));

  // Open: two log followers over gRPC (one an admin's), one over HTTP, one watch.
  auto admin = FollowLog(cluster_.admin_token());
  auto revoked = FollowLog(grpc_token);
  Follower<v1::WatchExecutorsResponse> watch([&](grpc::ClientContext* ctx) {
    ctx->AddMetadata(std::string(kAuthorizationKey), BearerValue(session));
    v1::WatchExecutorsRequest req;
    req.add_app_names("streams-app");
    auto stub = v1::Registry::NewStub(Channel());
    return stub->WatchExecutors(ctx, req);
  });
  absl::Notification http_opened;
  absl::Mutex http_mu;
  testing::HttpResult http_result;
  absl::Time http_ended;
  std::thread http([&] {
    testing::HttpResult r = testing::HttpCall(
        "POST", http_ + "/v1/LogService/StreamRunLog",
        absl::StrCat(R"({"runId": ")", slow_.run_id, R"(", "follow": true})"),
        {"Authorization: Bearer " + http_token}, {}, false, [&](const std::string& so_far) {
          if (so_far.find("data: {\"lineNumber\"") != std::string::npos &&
              !http_opened.HasBeenNotified()) {
            http_opened.Notify();
          }
        });
    absl::MutexLock l(&http_mu);
    http_result = r;
    http_ended = absl::Now();
  });
  ASSERT_TRUE(admin->Opened());
  ASSERT_TRUE(revoked->Opened());
  ASSERT_TRUE(watch.Opened());
  ASSERT_TRUE(http_opened.WaitForNotificationWithTimeout(kPatience));

  const absl::Time revocation = absl::Now();
  ASSERT_EQ(cluster_.Ctl({"token", "revoke", "grpc-follower"}).exit_code, 0);
  ASSERT_EQ(cluster_.Ctl({"token", "revoke", "console"}).exit_code, 0);
  ASSERT_EQ(cluster_.Ctl({"user", "delete", "watcher"}).exit_code, 0);

  grpc::Status s = revoked->Ended();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED) << s.error_message();
  EXPECT_EQ(s.error_message(), "missing or invalid credentials");
  s = watch.Ended();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED) << s.error_message();
  http.join();
  {
    absl::MutexLock l(&http_mu);
    EXPECT_EQ(http_result.status, 200);
    EXPECT_NE(http_result.body.find("event: error\ndata: {\"code\":\"UNAUTHENTICATED\""),
              std::string::npos)
        << http_result.body;
    std::cout << "streams ended after the revocation: gRPC log "
              << absl::FormatDuration(revoked->ended_at() - revocation) << ", watch "
              << absl::FormatDuration(watch.ended_at() - revocation) << ", HTTP log "
              << absl::FormatDuration(http_ended - revocation) << "\n";
  }
  // The admin's stream on the same run was not touched: it ends when we go.
  EXPECT_FALSE(admin->HasEnded());
  admin->context()->TryCancel();
  EXPECT_EQ(admin->Ended().error_code(), grpc::StatusCode::CANCELLED);
}

}  // namespace
}  // namespace gnomon

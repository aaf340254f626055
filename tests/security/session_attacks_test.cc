// A stolen login session on a real two-replica gnomond (shared store): the
// token copied from a user's browser, used against the other replica and
// holding a live log follow there. It must stop working everywhere when its
// user logs out, and every session of a user must end when the user's
// password changes — the new one works, the old one no longer logs in.
// Replicas remember a valid credential for 5 s (docs/security.md), so the
// other replica refuses within 6 s: polled here up to kPatience, the time it
// took printed, not asserted (the machines are shared). An admin's calls keep
// being answered throughout.
#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/log.grpc.pb.h"
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

constexpr char kUser[] = "dana";

class SessionAttacksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    for (int i = 0; i < 2; ++i) {
      channels_[i] = grpc::CreateChannel(cluster_.address(i), grpc::InsecureChannelCredentials());
      std::optional<std::string> url = cluster_.HttpUrl(i);
      ASSERT_TRUE(url) << cluster_.Output();
      http_[i] = *url;
    }
    ASSERT_TRUE(testing::StartSlowRun(cluster_, "session-app", &slow_));
    v1::CreateUserRequest create;
    *create.mutable_user() = User();
    create.set_password("dana-password-1");
    grpc::ClientContext ctx;
    Authorize(&ctx, cluster_.admin_token());
    v1::User user;
    ASSERT_TRUE(Stub(0)->CreateUser(&ctx, create, &user).ok());
  }

  // The user: a viewer of every group.
  static v1::User User() {
    v1::User user;
    user.set_name(kUser);
    user.set_role(v1::ROLE_VIEWER);
    user.mutable_grants()->set_all_groups(true);
    return user;
  }
  std::unique_ptr<v1::JobAdmin::Stub> Stub(int replica) {
    return v1::JobAdmin::NewStub(channels_[replica]);
  }
  static void Authorize(grpc::ClientContext* ctx, const std::string& token) {
    ctx->AddMetadata(std::string(kAuthorizationKey), BearerValue(token));
  }
  // JobAdmin.Login on `replica` with the user's password: its session token,
  // or the status it was refused with.
  grpc::Status Login(int replica, const std::string& password, std::string* token) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey),
                    "Basic " + absl::Base64Escape(absl::StrCat(kUser, ":", password)));
    v1::CreateTokenResponse out;
    grpc::Status s = Stub(replica)->Login(&ctx, v1::LoginRequest(), &out);
    *token = out.secret();
    return s;
  }
  grpc::StatusCode WhoAmI(int replica, const std::string& token) {
    grpc::ClientContext ctx;
    Authorize(&ctx, token);
    v1::WhoAmIResponse out;
    return Stub(replica)->WhoAmI(&ctx, v1::WhoAmIRequest(), &out).error_code();
  }
  // WhoAmI over HTTP on `replica`: the HTTP status.
  int HttpWhoAmI(int replica, const std::string& token) {
    return testing::HttpCall("POST", http_[replica] + "/v1/JobAdmin/WhoAmI", "{}",
                             {"Authorization: Bearer " + token})
        .status;
  }
  // Whether `token` is refused UNAUTHENTICATED on both replicas, over gRPC
  // and HTTP, within kPatience; prints how long the slower replica took.
  bool RefusedEverywhere(const std::string& token, const std::string& what) {
    const absl::Time start = absl::Now();
    const absl::Time deadline = start + kPatience;
    for (int i = 0; i < 2; ++i) {
      while (WhoAmI(i, token) != grpc::StatusCode::UNAUTHENTICATED) {
        if (absl::Now() > deadline) {
          ADD_FAILURE() << what << ": replica " << i << " still accepts the session";
          return false;
        }
        cluster_.PollInterval(absl::Milliseconds(100));
      }
      EXPECT_EQ(HttpWhoAmI(i, token), 401) << what << ", replica " << i;
    }
    std::printf("%s: refused on both replicas after %.1f s\n", what.c_str(),
                absl::ToDoubleSeconds(absl::Now() - start));
    return true;
  }
  void ExpectAdminAnswered() {
    grpc::ClientContext ctx;
    Authorize(&ctx, cluster_.admin_token());
    v1::ListJobsResponse out;
    EXPECT_TRUE(Stub(1)->ListJobs(&ctx, v1::ListJobsRequest(), &out).ok());
  }

  testing::GnomonCluster cluster_{{"--http-listen=127.0.0.1:0"}, 2};
  std::shared_ptr<grpc::Channel> channels_[2];
  std::string http_[2];
  testing::SlowRun slow_;
};

// The user logs in on replica 0 (gRPC); an attacker has the token and uses
// it on replica 1, over gRPC and HTTP, and follows a run's log there. The
// user logs out (over HTTP, as the console does): the token is refused on
// both replicas and the attacker's follow ends UNAUTHENTICATED.
TEST_F(SessionAttacksTest, LogoutEndsAStolenSessionOnEveryReplicaAndItsOpenFollow) {
  std::string stolen;
  ASSERT_TRUE(Login(0, "dana-password-1", &stolen).ok());
  ASSERT_EQ(WhoAmI(1, stolen), grpc::StatusCode::OK);
  ASSERT_EQ(HttpWhoAmI(1, stolen), 200);
  auto follow = testing::FollowRunLog(channels_[1], stolen, slow_.run_id);
  ASSERT_TRUE(follow->Opened());

  testing::HttpResult out = testing::HttpCall("POST", http_[0] + "/v1/JobAdmin/Logout", "{}",
                                              {"Authorization: Bearer " + stolen});
  ASSERT_EQ(out.status, 200) << out.body;
  EXPECT_EQ(WhoAmI(0, stolen), grpc::StatusCode::UNAUTHENTICATED) << "the replica logged out on";
  EXPECT_TRUE(RefusedEverywhere(stolen, "after Logout"));
  EXPECT_EQ(follow->Ended().error_code(), grpc::StatusCode::UNAUTHENTICATED);
  ExpectAdminAnswered();

  // Logout is for login sessions: an API token is refused (it is revoked
  // with `token revoke`) and keeps working.
  grpc::ClientContext ctx;
  Authorize(&ctx, cluster_.admin_token());
  v1::LogoutResponse refused;
  EXPECT_EQ(Stub(1)->Logout(&ctx, v1::LogoutRequest(), &refused).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(WhoAmI(1, cluster_.admin_token()), grpc::StatusCode::OK);
}

// The user's password changes (an admin resets it after a suspected leak):
// every session of the user ends on both replicas, the old password no longer
// logs in, the new one does.
TEST_F(SessionAttacksTest, ANewPasswordEndsEverySessionOfTheUser) {
  std::string on_zero, on_one;
  ASSERT_TRUE(Login(0, "dana-password-1", &on_zero).ok());
  ASSERT_TRUE(Login(1, "dana-password-1", &on_one).ok());
  ASSERT_EQ(WhoAmI(1, on_zero), grpc::StatusCode::OK);
  ASSERT_EQ(WhoAmI(0, on_one), grpc::StatusCode::OK);

  v1::UpdateUserRequest update;
  *update.mutable_user() = User();
  update.set_password("dana-password-2");
  grpc::ClientContext ctx;
  Authorize(&ctx, cluster_.admin_token());
  v1::User updated;
  ASSERT_TRUE(Stub(0)->UpdateUser(&ctx, update, &updated).ok());

  EXPECT_TRUE(RefusedEverywhere(on_zero, "a session of the old password (replica 0)"));
  EXPECT_TRUE(RefusedEverywhere(on_one, "a session of the old password (replica 1)"));
  std::string token;
  EXPECT_EQ(Login(1, "dana-password-1", &token).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  ASSERT_TRUE(Login(1, "dana-password-2", &token).ok());
  EXPECT_EQ(WhoAmI(0, token), grpc::StatusCode::OK);
  ExpectAdminAnswered();
}

}  // namespace
}  // namespace gnomon

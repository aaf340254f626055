#include "services/common/server/authenticator.h"

#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "grpcpp/test/server_context_test_spouse.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/metrics/testing/samples.h"
#include "services/common/server/grpc_server.h"
#include "services/common/server/grpc_status.h"
#include "services/common/server/passwords.h"
#include "services/common/server/tokens.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/testing/failing_job_store.h"
#include "services/common/store/testing/temp_store.h"

namespace gnomon {
namespace {

using metrics::testing::SampleOf;
using Metadata = std::vector<std::pair<std::string, std::string>>;

// A JobAdmin whose handlers authorize as other methods of the table: GetJob as
// itself (admin, answering the caller's credential identity in the job's
// description), GetGroup as Registry.Session (group of app, answering the
// caller's group), ListJobs as Registry.WatchExecutors (admin or cluster,
// answering the credential in next_page_token) and ListGroups as a method the
// table does not have. CreateJob and Login authorize as themselves (operator;
// password), answering the caller's role and user in the job's description
// and the token's role and user.
class Authorizing final : public v1::JobAdmin::Service {
 public:
  explicit Authorizing(Authenticator* auth) : auth_(auth) {}
  grpc::Status CreateJob(grpc::ServerContext* ctx, const v1::CreateJobRequest*,
                         v1::Job* out) override {
    absl::StatusOr<Caller> caller =
        auth_->Authorize(*ctx, v1::JobAdmin::service_full_name(), "CreateJob");
    if (!caller.ok()) return ToGrpcStatus(caller.status());
    out->set_description(
        absl::StrCat(std::string(RoleName(caller->access.role)), "/", caller->user));
    return grpc::Status::OK;
  }
  grpc::Status Login(grpc::ServerContext* ctx, const v1::LoginRequest*,
                     v1::CreateTokenResponse* out) override {
    absl::StatusOr<Caller> caller =
        auth_->Authorize(*ctx, v1::JobAdmin::service_full_name(), "Login");
    if (!caller.ok()) return ToGrpcStatus(caller.status());
    out->mutable_token()->set_role(caller->access.role);
    out->mutable_token()->set_user(caller->user);
    return grpc::Status::OK;
  }
  grpc::Status GetJob(grpc::ServerContext* ctx, const v1::GetJobRequest*, v1::Job* out) override {
    absl::StatusOr<Caller> caller =
        auth_->Authorize(*ctx, v1::JobAdmin::service_full_name(), "GetJob");
    if (!caller.ok()) return ToGrpcStatus(caller.status());
    out->set_description(caller->credential);
    return grpc::Status::OK;
  }
  grpc::Status GetGroup(grpc::ServerContext* ctx, const v1::GetGroupRequest*,
                        v1::Group* out) override {
    absl::StatusOr<Caller> caller =
        auth_->Authorize(*ctx, v1::Registry::service_full_name(), "Session");
    if (!caller.ok()) return ToGrpcStatus(caller.status());
    *out = caller->group;
    return grpc::Status::OK;
  }
  grpc::Status ListJobs(grpc::ServerContext* ctx, const v1::ListJobsRequest*,
                        v1::ListJobsResponse* out) override {
    absl::StatusOr<Caller> caller =
        auth_->Authorize(*ctx, v1::Registry::service_full_name(), "WatchExecutors");
    if (!caller.ok()) return ToGrpcStatus(caller.status());
    out->set_next_page_token(caller->credential);
    return grpc::Status::OK;
  }
  grpc::Status ListGroups(grpc::ServerContext* ctx, const v1::ListGroupsRequest*,
                          v1::ListGroupsResponse*) override {
    return ToGrpcStatus(
        auth_->Authorize(*ctx, v1::JobAdmin::service_full_name(), "NotInTheTable").status());
  }

 private:
  Authenticator* const auth_;
};

class AuthenticatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    ASSERT_TRUE(store_.AddGroup("billing", "billing-token", 1).ok());
    ASSERT_TRUE(store_.AddGroup("payroll", "payroll-token", 1).ok());
    ASSERT_TRUE(store_->CreateAdminToken("ops", Sha256Hex("admin-token"), 1).ok());
    server_.AddService(&service_, v1::JobAdmin::service_full_name());
    absl::StatusOr<int> port = server_.Start("127.0.0.1:0");
    ASSERT_TRUE(port.ok()) << port.status();
    stub_ = v1::JobAdmin::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", *port), grpc::InsecureChannelCredentials()));
  }
  static void Add(grpc::ClientContext& ctx, const Metadata& md) {
    for (const auto& [k, v] : md) ctx.AddMetadata(k, v);
  }
  grpc::Status Admin(const Metadata& md, std::string* credential = nullptr) {
    grpc::ClientContext ctx;
    Add(ctx, md);
    v1::Job out;
    grpc::Status s = stub_->GetJob(&ctx, v1::GetJobRequest(), &out);
    if (credential != nullptr) *credential = out.description();
    return s;
  }
  // A call roles make on each other (Registry.WatchExecutors).
  grpc::Status BetweenRoles(const Metadata& md, std::string* credential = nullptr) {
    grpc::ClientContext ctx;
    Add(ctx, md);
    v1::ListJobsResponse out;
    grpc::Status s = stub_->ListJobs(&ctx, v1::ListJobsRequest(), &out);
    if (credential != nullptr) *credential = out.next_page_token();
    return s;
  }
  // A call that needs the operator role: the caller's "role/user", or the status.
  absl::StatusOr<std::string> Operate(const std::string& token) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(authorization_, BearerValue(token));
    v1::Job out;
    grpc::Status s = stub_->CreateJob(&ctx, v1::CreateJobRequest(), &out);
    if (!s.ok())
      return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
    return out.description();
  }
  // A login over TCP from 127.0.0.1, or, with `http_client`, as gnomond's
  // HTTP/JSON gateway makes it (in process, naming its client's address).
  grpc::Status Login(const std::string& user, const std::string& password,
                     v1::CreateTokenResponse* out, const std::string& http_client = "") {
    grpc::ClientContext ctx;
    ctx.AddMetadata(authorization_, "Basic " + absl::Base64Escape(user + ":" + password));
    if (http_client.empty()) return stub_->Login(&ctx, v1::LoginRequest(), out);
    ctx.AddMetadata(std::string(kHttpClientKey), http_client);
    auto in_process = v1::JobAdmin::NewStub(server_.server()->InProcessChannel({}));
    return in_process->Login(&ctx, v1::LoginRequest(), out);
  }
  // A user with a cheap hash (the iteration count is stored with it).
  void AddUser(const std::string& name, const std::string& password, v1::Role role) {
    v1::User u;
    u.set_name(name);
    u.set_role(role);
    if (role != v1::ROLE_ADMIN) u.mutable_grants()->add_group_ids(1);
    ASSERT_TRUE(store_->CreateUser(u, HashPassword(password, 1000), 1).ok());
  }
  grpc::Status Group(const Metadata& md, v1::Group* out) {
    grpc::ClientContext ctx;
    Add(ctx, md);
    return stub_->GetGroup(&ctx, v1::GetGroupRequest(), out);
  }
  double Failures(const std::string& reason) {
    return SampleOf(registry_, "gnomon_auth_failures_total{reason=\"" + reason + "\"}")
        .value_or(-1);
  }

  const std::string authorization_{kAuthorizationKey}, access_{kAccessTokenKey}, app_{kAppNameKey};
  store::testing::TempStore store_;
  metrics::MetricsRegistry registry_;
  ServerMetrics metrics_{registry_};
  SimulatedClock clock_{absl::Now()};
  Authenticator auth_{store_.get(), store_.get(), "cluster-token", &metrics_, &clock_};
  Authorizing service_{&auth_};
  GrpcServer server_;
  std::unique_ptr<v1::JobAdmin::Stub> stub_;
};

TEST_F(AuthenticatorTest, AdminMethodsTakeAnApiTokenAndTheClusterTokenOnlyBetweenRoles) {
  EXPECT_TRUE(Admin({{authorization_, BearerValue("admin-token")}}).ok());
  EXPECT_EQ(Admin({{authorization_, BearerValue("cluster-token")}}).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(BetweenRoles({{authorization_, BearerValue("cluster-token")}}).ok());
  EXPECT_TRUE(BetweenRoles({{authorization_, BearerValue("admin-token")}}).ok());
  // A group's token is no admin credential, in either header.
  EXPECT_EQ(Admin({{authorization_, BearerValue("billing-token")}}).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Admin({{access_, "billing-token"}, {app_, "billing"}}).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(AuthenticatorTest, RevokedAndExpiredApiTokensAreRefused) {
  ASSERT_TRUE(store_->CreateAdminToken("gone", Sha256Hex("revoked-token"), 1).ok());
  ASSERT_TRUE(store_->RevokeAdminToken("gone", 2).ok());
  ASSERT_TRUE(store_->CreateAdminToken("old", Sha256Hex("expired-token"), 1, /*expire_ms=*/2).ok());
  ASSERT_TRUE(store_
                  ->CreateAdminToken("new", Sha256Hex("fresh-token"), 1,
                                     /*expire_ms=*/absl::ToUnixMillis(absl::Now() + absl::Hours(1)))
                  .ok());
  EXPECT_EQ(Admin({{authorization_, BearerValue("revoked-token")}}).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Admin({{authorization_, BearerValue("expired-token")}}).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(Admin({{authorization_, BearerValue("fresh-token")}}).ok());
}

// Rate limits count calls per credential: each admin token, and the cluster
// token, is a different identity, named without the secret.
TEST_F(AuthenticatorTest, CallersCarryTheirCredentialIdentityNeverTheToken) {
  std::string admin, again, cluster;
  ASSERT_TRUE(Admin({{authorization_, BearerValue("admin-token")}}, &admin).ok());
  ASSERT_TRUE(
      Admin({{authorization_, BearerValue("admin-token")}}, &again).ok());  // From the cache.
  ASSERT_TRUE(BetweenRoles({{authorization_, BearerValue("cluster-token")}}, &cluster).ok());
  EXPECT_EQ(admin, "admin:" + Sha256Hex("admin-token"));
  EXPECT_EQ(again, admin);
  EXPECT_EQ(cluster, "cluster");
  EXPECT_EQ(admin.find("admin-token"), std::string::npos);
}

TEST_F(AuthenticatorTest, GroupMethodsTakeTheTokenOfTheAppInMetadata) {
  v1::Group caller;
  ASSERT_TRUE(Group({{access_, "payroll-token"}, {app_, "payroll"}}, &caller).ok());
  EXPECT_EQ(caller.app_name(), "payroll");
  EXPECT_EQ(Group({{authorization_, BearerValue("admin-token")}}, &caller).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
}

// Every refusal is the same answer, whatever was wrong; only the metrics
// (and the log) tell the reasons apart.
TEST_F(AuthenticatorTest, EveryRefusalIsTheSameAnswer) {
  v1::Group unused;
  const std::vector<grpc::Status> refusals = {
      Admin({}),
      Admin({{authorization_, "Basic x"}}),
      Admin({{authorization_, BearerValue("wrong")}}),
      Group({}, &unused),
      Group({{access_, "billing-token"}}, &unused),                    // No app.
      Group({{access_, "billing-token"}, {app_, "nosuch"}}, &unused),  // Unknown app, a real token.
      Group({{access_, "billing-token"}, {app_, "payroll"}}, &unused),  // Another group's token.
  };
  for (size_t i = 0; i < refusals.size(); ++i) {
    EXPECT_EQ(refusals[i].error_code(), grpc::StatusCode::UNAUTHENTICATED) << i;
    EXPECT_EQ(refusals[i].error_message(), kRefusedMessage) << i;
    EXPECT_TRUE(refusals[i].error_details().empty()) << i;
  }
  EXPECT_EQ(Failures("missing_credentials"), 3);
  EXPECT_EQ(Failures("malformed"), 1);
  EXPECT_EQ(Failures("invalid_admin_token"), 1);
  EXPECT_EQ(Failures("unknown_app"), 1);
  EXPECT_EQ(Failures("wrong_access_token"), 1);
}

TEST_F(AuthenticatorTest, AMethodNotInTheTableIsRefusedWhateverTheCredentials) {
  for (const std::string& token : {"admin-token", "cluster-token"}) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(authorization_, BearerValue(token));
    v1::ListGroupsResponse out;
    grpc::Status s = stub_->ListGroups(&ctx, v1::ListGroupsRequest(), &out);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED) << token;
    EXPECT_EQ(s.error_message(), kRefusedMessage);
  }
}

// A method's least role is checked right after the credential: a viewer may
// read but not change, an operator may change, an admin may do anything.
TEST_F(AuthenticatorTest, EachRoleReachesTheMethodsItsRankAllows) {
  store::TokenScope viewer{v1::ROLE_VIEWER, {}, ""}, op{v1::ROLE_OPERATOR, {}, ""};
  viewer.grants.add_group_ids(1);
  op.grants.add_group_ids(1);
  ASSERT_TRUE(store_->CreateAdminToken("dash", Sha256Hex("viewer-token"), 1, 0, viewer).ok());
  ASSERT_TRUE(store_->CreateAdminToken("deploy", Sha256Hex("operator-token"), 1, 0, op).ok());
  EXPECT_TRUE(Admin({{authorization_, BearerValue("viewer-token")}}).ok());  // GetJob reads.
  absl::StatusOr<std::string> refused = Operate("viewer-token");
  EXPECT_THAT(refused,
              StatusIs(absl::StatusCode::kPermissionDenied, "role viewer may not call CreateJob"));
  EXPECT_EQ(Operate("operator-token").value_or(""), "operator/");
  EXPECT_EQ(Operate("admin-token").value_or(""), "admin/");
}

// A login session carries its user's role as the user has it now (within
// the 5 s the authenticator remembers a token), not as it was at login, and
// ends when the user is deleted.
TEST_F(AuthenticatorTest, ASessionTakesItsUsersRoleAsItIsNow) {
  AddUser("alice", "alice-password-1", v1::ROLE_OPERATOR);
  // The row says admin; the user's role wins.
  ASSERT_TRUE(store_
                  ->CreateAdminToken("login.alice.1", Sha256Hex("alice-session"), 1, 0,
                                     store::TokenScope{v1::ROLE_ADMIN, {}, "alice"})
                  .ok());
  EXPECT_EQ(Operate("alice-session").value_or(""), "operator/alice");
  v1::User demoted;
  demoted.set_name("alice");
  demoted.set_role(v1::ROLE_VIEWER);
  demoted.mutable_grants()->add_group_ids(1);
  ASSERT_TRUE(store_->UpdateUser(demoted, std::nullopt, 2).ok());
  EXPECT_TRUE(Operate("alice-session").ok());  // Remembered for up to 5 s.
  clock_.Advance(absl::Seconds(5));
  EXPECT_THAT(Operate("alice-session"), StatusIs(absl::StatusCode::kPermissionDenied));
  ASSERT_TRUE(store_->DeleteUser("alice", 3).ok());
  clock_.Advance(absl::Seconds(5));
  EXPECT_THAT(Operate("alice-session"), StatusIs(absl::StatusCode::kUnauthenticated));
}

TEST_F(AuthenticatorTest, LoginTakesAUsersPasswordAndRefusesAllElseAlike) {
  AddUser("alice", "alice-password-1", v1::ROLE_OPERATOR);
  v1::CreateTokenResponse out;
  ASSERT_TRUE(Login("alice", "alice-password-1", &out).ok());
  EXPECT_EQ(out.token().user(), "alice");
  EXPECT_EQ(out.token().role(), v1::ROLE_OPERATOR);
  const std::vector<grpc::Status> refusals = {
      Login("alice", "wrong-password-1", &out),
      Login("nobody", "alice-password-1", &out),  // Unknown user: the same answer.
      [&] {
        grpc::ClientContext ctx;  // An API token is no password.
        ctx.AddMetadata(authorization_, BearerValue("admin-token"));
        return stub_->Login(&ctx, v1::LoginRequest(), &out);
      }(),
  };
  for (size_t i = 0; i < refusals.size(); ++i) {
    EXPECT_EQ(refusals[i].error_code(), grpc::StatusCode::UNAUTHENTICATED) << i;
    EXPECT_EQ(refusals[i].error_message(), kRefusedMessage) << i;
  }
  EXPECT_EQ(Failures("wrong_password"), 2);
  EXPECT_EQ(Failures("malformed"), 1);
}

// When the store cannot check a credential the caller is told so, and
// nothing of the store's error (which can name hosts, tables, SQL): it may
// not even have authenticated.
TEST_F(AuthenticatorTest, AStoreFailureIsUnavailableWithoutTheStoresError) {
  store::testing::StoreCallHook hook;
  store::testing::FailingJobStore groups(store_.get(), &hook);
  Authenticator auth(store_.get(), &groups, "cluster-token", nullptr, &clock_);
  std::atomic<int> failures{1};
  hook.Set([&](std::string_view call, store::testing::CallPhase phase) {
    return call == "GetGroupByApp" && phase == store::testing::CallPhase::kBefore && failures-- > 0
               ? absl::UnavailableError("mysql: lost connection to db-7.internal:3306")
               : absl::OkStatus();
  });
  grpc::ServerContext context;
  grpc::testing::ServerContextTestSpouse spouse(&context);
  spouse.AddClientMetadata(std::string(kAppNameKey), "billing");
  spouse.AddClientMetadata(std::string(kAccessTokenKey), "billing-token");
  absl::StatusOr<Caller> caller =
      auth.Authorize(context, v1::Registry::service_full_name(), "Session");
  EXPECT_TRUE(absl::IsUnavailable(caller.status())) << caller.status();
  EXPECT_EQ(caller.status().message(), kUnverifiableMessage);
  // Once the store answers again, so does the check.
  EXPECT_TRUE(auth.Authorize(context, v1::Registry::service_full_name(), "Session").ok());
}

// Guessing is slowed per user name and client address: after 10 failures,
// one per 6 s, and a throttled attempt is refused even with the right
// password. The user's own logins cost nothing, and a stranger's guesses do
// not lock the user out at another address.
TEST_F(AuthenticatorTest, FailedLoginsAreThrottledPerUserNameAndAddress) {
  AddUser("alice", "alice-password-1", v1::ROLE_VIEWER);
  AddUser("bob", "bob-password-12", v1::ROLE_VIEWER);
  v1::CreateTokenResponse out;
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(Login("alice", "alice-password-1", &out).ok()) << i;
  for (int i = 0; i < 10; ++i)
    EXPECT_FALSE(Login("alice", "guess-" + std::to_string(i), &out).ok());
  EXPECT_EQ(Login("alice", "alice-password-1", &out).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Failures("login_throttled"), 1);
  EXPECT_TRUE(Login("bob", "bob-password-12", &out).ok());  // Another name has its own budget.
  // Alice elsewhere (through the HTTP gateway, from another address) is not locked out.
  EXPECT_TRUE(Login("alice", "alice-password-1", &out, "192.0.2.7").ok());
  clock_.Advance(absl::Seconds(6));
  EXPECT_TRUE(Login("alice", "alice-password-1", &out).ok());
}

// Guessing across names from one address is slowed too: 30 failures, then
// one per 2 s; other addresses are unaffected.
TEST_F(AuthenticatorTest, FailedLoginsAreThrottledPerAddressAcrossNames) {
  AddUser("alice", "alice-password-1", v1::ROLE_VIEWER);
  v1::CreateTokenResponse out;
  for (int i = 0; i < 30; ++i)
    EXPECT_FALSE(Login("name-" + std::to_string(i), "guess-guess-1", &out, "198.51.100.9").ok());
  EXPECT_EQ(Failures("wrong_password"), 30);
  EXPECT_FALSE(Login("alice", "alice-password-1", &out, "198.51.100.9").ok());
  EXPECT_EQ(Failures("login_throttled"), 1);
  EXPECT_TRUE(Login("alice", "alice-password-1", &out, "203.0.113.5").ok());
  EXPECT_TRUE(Login("alice", "alice-password-1", &out).ok());
  clock_.Advance(absl::Seconds(2));
  EXPECT_TRUE(Login("alice", "alice-password-1", &out, "198.51.100.9").ok());
}

}  // namespace
}  // namespace gnomon

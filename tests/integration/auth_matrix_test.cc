// Every RPC declared in gnomon's protos (read from the descriptors, so a new
// one is covered without touching this file), called on a real gnomond with
// bad credentials: each is refused with the one answer docs/operations.md
// gives, nothing is written, the server stays up and no token reaches its log.
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "google/protobuf/descriptor.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "proto/testing/declared_methods.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/server/method_credentials.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

using google::protobuf::MethodDescriptor;
using Metadata = std::vector<std::pair<std::string, std::string>>;

// docs/operations.md, "Authentication": the answer to every refusal.
constexpr char kRefusedMessage[] = "missing or invalid credentials";

// Calls `method` without knowing its types: an empty message (valid for any
// type) is sent `messages` times (0 or 1), the first answer (if any) is read,
// then the status.
grpc::Status RawCall(grpc::GenericStub& stub, const MethodDescriptor* method, const Metadata& md,
                     int messages, absl::Duration deadline = absl::Seconds(20)) {
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
  for (const auto& [k, v] : md) ctx.AddMetadata(k, v);
  grpc::CompletionQueue cq;
  auto call = stub.PrepareCall(
      &ctx, absl::StrCat("/", method->service()->full_name(), "/", method->name()), &cq);
  // One operation at a time, so the next event is always the one just started.
  auto await = [&cq] {
    void* tag;
    bool ok;
    cq.Next(&tag, &ok);
  };
  call->StartCall(nullptr);
  await();
  if (messages > 0) {
    grpc::Slice empty{std::string()};
    grpc::ByteBuffer buffer(&empty, 1);
    call->Write(buffer, nullptr);
    await();
  }
  call->WritesDone(nullptr);
  await();
  grpc::ByteBuffer answer;
  call->Read(&answer, nullptr);
  await();
  grpc::Status status;
  call->Finish(&status, nullptr);
  await();
  cq.Shutdown();
  void* tag;
  bool ok;
  while (cq.Next(&tag, &ok)) {
  }
  return status;
}

class AuthMatrixTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    channel_ = grpc::CreateChannel(cluster_.address(), grpc::InsecureChannelCredentials());
    ASSERT_TRUE(cluster_.CtlJson({"group", "create", "matrix-app"}, &group_));
    v1::Job job;
    ASSERT_TRUE(cluster_.CtlJson(
        {"job", "create", "--group", absl::StrCat(group_.id()), "--handler", "h", "--manual"},
        &job));
  }
  // Groups and jobs in the store, read with the admin token.
  std::pair<int, int> Counts() {
    auto admin = v1::JobAdmin::NewStub(channel_);
    grpc::ClientContext gctx, jctx;
    gctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_.admin_token()));
    jctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_.admin_token()));
    v1::ListGroupsResponse groups;
    v1::ListJobsResponse jobs;
    EXPECT_TRUE(admin->ListGroups(&gctx, v1::ListGroupsRequest(), &groups).ok());
    EXPECT_TRUE(admin->ListJobs(&jctx, v1::ListJobsRequest(), &jobs).ok());
    return {groups.groups_size(), jobs.jobs_size()};
  }

  // Polls until `token` is refused (an expiring token's end); false if not in time.
  bool RefusedWithin(const std::string& token, absl::Duration limit) {
    const absl::Time deadline = absl::Now() + limit;
    while (cluster_.Ctl({"group", "list", "--token", token}).exit_code == 0) {
      if (absl::Now() > deadline) return false;
      cluster_.PollInterval(absl::Milliseconds(200));
    }
    return true;
  }

  static constexpr char kClusterToken[] = "matrix-cluster-token-0123456789abcdef";
  testing::GnomonCluster cluster_{{absl::StrCat("--cluster-token=", kClusterToken)}};
  v1::Group group_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(AuthMatrixTest, EveryMethodRefusesBadCredentialsTheSameWay) {
  const std::string authorization(kAuthorizationKey), access(kAccessTokenKey), app(kAppNameKey);
  const std::string wrong_bearer = "wrong-bearer-token-7f3a",
                    wrong_group = "wrong-group-token-9c1d";
  // API tokens that were valid: one revoked, one expired.
  v1::CreateTokenResponse revoked, expired;
  ASSERT_TRUE(cluster_.CtlJson({"token", "create", "revoked"}, &revoked));
  ASSERT_EQ(cluster_.Ctl({"token", "revoke", "revoked"}).exit_code, 0);
  ASSERT_TRUE(cluster_.CtlJson({"token", "create", "expired", "--ttl", "1s"}, &expired));
  ASSERT_TRUE(RefusedWithin(revoked.secret(), absl::Seconds(15)));
  ASSERT_TRUE(RefusedWithin(expired.secret(), absl::Seconds(15)));
  const std::vector<std::pair<std::string, Metadata>> rows = {
      {"no credentials", {}},
      {"wrong bearer token", {{authorization, BearerValue(wrong_bearer)}}},
      {"revoked API token", {{authorization, BearerValue(revoked.secret())}}},
      {"expired API token", {{authorization, BearerValue(expired.secret())}}},
      {"wrong group token", {{app, group_.app_name()}, {access, wrong_group}}},
      // A real token of a real group, for an app no group has.
      {"unknown app", {{app, "no-such-app"}, {access, group_.access_token()}}},
      // Each kind of credential where the other is required.
      {"group token as bearer", {{authorization, BearerValue(group_.access_token())}}},
      {"admin token as group token", {{app, group_.app_name()}, {access, cluster_.admin_token()}}},
  };
  // The cluster token opens only the calls roles make on each other.
  const std::vector<std::pair<std::string, Metadata>> cluster_row = {
      {"cluster token", {{authorization, BearerValue(kClusterToken)}}}};
  const std::pair<int, int> before = Counts();
  ASSERT_EQ(before, std::make_pair(1, 1));
  grpc::GenericStub stub(channel_);
  absl::StatusOr<std::vector<const MethodDescriptor*>> methods = testing::DeclaredMethods();
  ASSERT_TRUE(methods.ok()) << methods.status();
  ASSERT_GT(methods->size(), 20u);
  for (const MethodDescriptor* m : *methods) {
    // A client stream is tried with no message and with one; the others need one.
    for (int messages = m->client_streaming() ? 0 : 1; messages <= 1; ++messages) {
      const bool between_roles = m->full_name() == "gnomon.v1.Registry.WatchExecutors";
      std::vector<std::pair<std::string, Metadata>> all = rows;
      if (!between_roles) all.insert(all.end(), cluster_row.begin(), cluster_row.end());
      for (const auto& [row, md] : all) {
        grpc::Status s = RawCall(stub, m, md, messages);
        const std::string where =
            absl::StrCat(m->full_name(), ", ", row, ", ", messages, " message(s)");
        EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAUTHENTICATED)
            << where << ": " << s.error_message();
        EXPECT_EQ(s.error_message(), kRefusedMessage) << where;
      }
    }
  }
  EXPECT_EQ(Counts(), before);  // Also: the server still answers.
  EXPECT_EQ(cluster_.gnomond()->WaitFor(absl::ZeroDuration()), std::nullopt);  // Still running.
  const std::string log = cluster_.Output();
  EXPECT_NE(log.find("auth: refused"), std::string::npos);
  for (const std::string& secret :
       {wrong_bearer, wrong_group, group_.access_token(), revoked.secret(), expired.secret(),
        std::string(kClusterToken)}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << "a token in the log";
  }
}

// Authenticated but below the method's least role (docs/security.md): every
// method refuses a viewer what needs an operator or admin, and an operator
// what needs an admin, before reading the request, and changes nothing. Each
// role's own methods are not refused for its role.
TEST_F(AuthMatrixTest, EveryMethodRefusesARoleBelowItsLeastRole) {
  v1::CreateTokenResponse viewer, op;
  ASSERT_TRUE(
      cluster_.CtlJson({"token", "create", "viewer", "--role", "viewer", "--all-groups"}, &viewer));
  ASSERT_TRUE(
      cluster_.CtlJson({"token", "create", "operator", "--role", "operator", "--all-groups"}, &op));
  const std::pair<int, int> before = Counts();
  grpc::GenericStub stub(channel_);
  absl::StatusOr<std::vector<const MethodDescriptor*>> methods = testing::DeclaredMethods();
  ASSERT_TRUE(methods.ok()) << methods.status();
  int refused = 0;
  for (const MethodDescriptor* m : *methods) {
    const Credential* credential =
        RequiredCredential(absl::StrCat("/", m->service()->full_name(), "/", m->name()));
    if (credential == nullptr || *credential == Credential::kGroupOfApp ||
        *credential == Credential::kPassword) {
      continue;
    }
    const Permission needs =
        *RequiredPermission(absl::StrCat("/", m->service()->full_name(), "/", m->name()));
    for (const auto& [role, secret, rank] :
         {std::tuple{"viewer", viewer.secret(), 1}, {"operator", op.secret(), 2}}) {
      const int needed = needs == Permission::kAdminister ? 3
                         : needs == Permission::kOperate  ? 2
                                                          : 1;
      // An allowed call may be a stream that stays open: a short deadline ends it.
      grpc::Status s = RawCall(stub, m, {{std::string(kAuthorizationKey), BearerValue(secret)}}, 1,
                               rank < needed ? absl::Seconds(20) : absl::Seconds(2));
      const std::string role_refusal = absl::StrCat("role ", role, " may not call ", m->name());
      if (rank < needed) {
        ++refused;
        EXPECT_EQ(s.error_code(), grpc::StatusCode::PERMISSION_DENIED)
            << m->full_name() << " as " << role;
        EXPECT_EQ(s.error_message(), role_refusal) << m->full_name();
      } else {
        EXPECT_NE(s.error_message(), role_refusal) << m->full_name();
      }
    }
  }
  EXPECT_GT(refused, 20);
  EXPECT_EQ(Counts(), before);
}

}  // namespace
}  // namespace gnomon

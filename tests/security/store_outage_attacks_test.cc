// While the store is down, callers who have not authenticated learn that
// credentials cannot be checked — and nothing of the store's error (its
// host, port, driver messages): a real gnomond on a private MariaDB that the
// test stops, asked over gRPC (an admin call, a login, an executor's
// session) and over HTTP with credentials it has never seen. (MariaDB mode
// only, as scripts/test runs it; skipped otherwise.)
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/server/authenticator.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/http_get.h"
#include "tests/support/throwaway_mariadb.h"

namespace gnomon {
namespace {

// What the store's errors would show: none of it may reach the caller.
void ExpectNothingOfTheStore(const std::string& message, const std::string& db_url) {
  const std::string port = db_url.substr(db_url.rfind(':') + 1, 5);
  for (const std::string& leak : {std::string("mysql"), std::string("MariaDB"),
                                  std::string("127.0.0.1"), std::string("connect"), port}) {
    EXPECT_FALSE(absl::StrContains(message, leak)) << leak << " in: " << message;
  }
}

TEST(StoreOutageAttacks, CallersWithoutACheckedCredentialLearnNothingOfTheStore) {
  testing::PrivateMariadb m = testing::StartPrivateMariadb();
  if (!m.skip.empty()) GTEST_SKIP() << m.skip;
  ASSERT_TRUE(m.status.ok()) << m.status;
  const std::string url = m.db->Url("gnomon_outage");
  testing::GnomonCluster cluster({"--store=" + url, "--http-listen=127.0.0.1:0"});
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  std::optional<std::string> http = cluster.HttpUrl();
  ASSERT_TRUE(http) << cluster.Output();
  auto channel = grpc::CreateChannel(cluster.address(), grpc::InsecureChannelCredentials());
  ASSERT_TRUE(m.db->Stop().ok());

  {  // An admin call with a token gnomond has never seen.
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue("a-token-never-seen-before-0123"));
    v1::ListJobsResponse out;
    const grpc::Status s = v1::JobAdmin::NewStub(channel)->ListJobs(&ctx, {}, &out);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
    EXPECT_EQ(s.error_message(), kUnverifiableMessage);
    ExpectNothingOfTheStore(s.error_message(), url);
  }
  {  // A login.
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey),
                    "Basic " + absl::Base64Escape("someone:a-password-guess"));
    v1::CreateTokenResponse out;
    const grpc::Status s = v1::JobAdmin::NewStub(channel)->Login(&ctx, {}, &out);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
    ExpectNothingOfTheStore(s.error_message(), url);
  }
  {  // An executor's session for an app gnomond has never looked up.
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAppNameKey), "never-seen-app");
    ctx.AddMetadata(std::string(kAccessTokenKey), "a-group-token-never-seen");
    auto session = v1::Registry::NewStub(channel)->Session(&ctx);
    v1::SessionResponse in;
    while (session->Read(&in)) {
    }
    const grpc::Status s = session->Finish();
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
    ExpectNothingOfTheStore(s.error_message(), url);
  }
  {  // Over HTTP: 503, the same words.
    const testing::HttpResult r =
        testing::HttpCall("POST", *http + "/v1/JobAdmin/ListJobs", "{}",
                          {"Authorization: Bearer a-token-never-seen-before-4567"});
    EXPECT_EQ(r.status, 503) << r.body;
    EXPECT_TRUE(absl::StrContains(r.body, "credentials cannot be checked")) << r.body;
    ExpectNothingOfTheStore(r.body, url);
  }
  ASSERT_TRUE(m.db->Resume().ok());
}

}  // namespace
}  // namespace gnomon

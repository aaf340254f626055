// ServerMetrics (requests through the interceptor, authentication failures)
// and StoreMetrics, against a real gRPC server and a SQLite store.
#include "services/common/server/server_metrics.h"

#include <memory>
#include <string>

#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/metrics/testing/samples.h"
#include "services/common/server/authenticator.h"
#include "services/common/server/grpc_server.h"
#include "services/common/server/grpc_status.h"
#include "services/common/server/store_metrics.h"
#include "services/common/server/tokens.h"
#include "services/common/store/observed_store.h"
#include "services/common/store/testing/temp_store.h"

namespace gnomon {
namespace {

using metrics::testing::SampleOf;

TEST(RpcLabels, OnlyMethodsGnomonServes) {
  using Labels = std::pair<std::string, std::string>;
  EXPECT_EQ(RpcLabels("/gnomon.v1.JobAdmin/CreateJob"), Labels("gnomon.v1.JobAdmin", "CreateJob"));
  EXPECT_EQ(RpcLabels("/grpc.health.v1.Health/Check"), Labels("grpc.health.v1.Health", "Check"));
  EXPECT_EQ(RpcLabels("/gnomon.v1.JobAdmin/MadeUp"), Labels("other", "other"));
  EXPECT_EQ(RpcLabels("/made.Up/Call"), Labels("other", "other"));
  EXPECT_EQ(RpcLabels(nullptr), Labels("other", "other"));
}

TEST(IsStoreError, AnswersAreNotErrors) {
  EXPECT_FALSE(IsStoreError(absl::OkStatus()));
  EXPECT_FALSE(IsStoreError(absl::NotFoundError("")));
  EXPECT_FALSE(IsStoreError(absl::AlreadyExistsError("")));
  EXPECT_FALSE(IsStoreError(absl::FailedPreconditionError("")));
  EXPECT_TRUE(IsStoreError(absl::UnavailableError("")));
  EXPECT_TRUE(IsStoreError(absl::DeadlineExceededError("")));
  EXPECT_TRUE(IsStoreError(absl::InternalError("")));
}

class ServerMetricsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(real_.status().ok()) << real_.status(); }
  std::optional<double> Sample(const std::string& series) { return SampleOf(registry_, series); }

  store::testing::TempStore real_;
  metrics::MetricsRegistry registry_;
};

TEST_F(ServerMetricsTest, StoreCallsByOperationAndTheStoresOwnCounts) {
  StoreMetrics metrics(registry_, real_.get());
  store::ObservedStore store(real_.get(), &metrics);
  v1::Group g;
  g.set_app_name("billing");
  g.set_access_token("t");
  ASSERT_TRUE(store.CreateGroup(g, 1).ok());
  EXPECT_TRUE(absl::IsNotFound(store.GetGroup(999).status()));
  metrics.Observe(store::StoreCall::kInsertRuns, absl::UnavailableError("down"),
                  absl::Milliseconds(3));
  EXPECT_EQ(Sample("gnomon_store_operation_duration_seconds_count{operation=\"CreateGroup\"}"), 1);
  EXPECT_EQ(Sample("gnomon_store_operation_duration_seconds_count{operation=\"GetGroup\"}"), 1);
  EXPECT_EQ(Sample("gnomon_store_errors_total{operation=\"GetGroup\"}"),
            0);  // Not found is an answer.
  EXPECT_EQ(Sample("gnomon_store_errors_total{operation=\"InsertRuns\"}"), 1);
  EXPECT_EQ(Sample("gnomon_store_operation_duration_seconds_count{operation=\"ListLeases\"}"),
            std::nullopt);
  EXPECT_EQ(Sample("gnomon_store_transactions_total"), real_->committed_transactions());
  EXPECT_GT(Sample("gnomon_store_statements_total").value_or(0), 0);
}

// A JobAdmin whose GetJob checks admin credentials and GetGroup an
// executor's group token; every other method is unimplemented.
class AuthedAdmin final : public v1::JobAdmin::Service {
 public:
  explicit AuthedAdmin(Authenticator* auth) : auth_(auth) {}
  grpc::Status GetJob(grpc::ServerContext* ctx, const v1::GetJobRequest*, v1::Job*) override {
    return ToGrpcStatus(
        auth_->Authorize(*ctx, v1::JobAdmin::service_full_name(), "GetJob").status());
  }
  // Checked as the registry's Session, which takes a group token.
  grpc::Status GetGroup(grpc::ServerContext* ctx, const v1::GetGroupRequest*, v1::Group*) override {
    return ToGrpcStatus(
        auth_->Authorize(*ctx, v1::Registry::service_full_name(), "Session").status());
  }

 private:
  Authenticator* const auth_;
};

TEST_F(ServerMetricsTest, EveryCallIsCountedAndRefusedCredentialsByReason) {
  ASSERT_TRUE(real_.AddGroup("billing", "group-token", 1).ok());
  ASSERT_TRUE(real_->CreateAdminToken("ops", Sha256Hex("admin-token"), 1).ok());
  ServerMetrics metrics(registry_);
  Authenticator auth(real_.get(), real_.get(), "cluster-token", &metrics);
  AuthedAdmin service(&auth);
  GrpcServer server(&metrics);
  server.AddService(&service, v1::JobAdmin::service_full_name());
  absl::StatusOr<int> port = server.Start("127.0.0.1:0");
  ASSERT_TRUE(port.ok()) << port.status();
  auto stub = v1::JobAdmin::NewStub(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", *port), grpc::InsecureChannelCredentials()));
  auto call = [&](const std::string& key, const std::string& value) {
    grpc::ClientContext ctx;
    if (!key.empty()) ctx.AddMetadata(key, value);
    v1::Job out;
    return stub->GetJob(&ctx, v1::GetJobRequest(), &out).error_code();
  };
  const std::string authorization(kAuthorizationKey), access(kAccessTokenKey);
  EXPECT_EQ(call("", ""), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(call(authorization, "Basic x"), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(call(authorization, BearerValue("wrong")), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(call(authorization, BearerValue("admin-token")), grpc::StatusCode::OK);
  {
    grpc::ClientContext ctx;
    ctx.AddMetadata(access, "nope");
    ctx.AddMetadata(std::string(kAppNameKey), "billing");
    v1::Group out;
    EXPECT_EQ(stub->GetGroup(&ctx, v1::GetGroupRequest(), &out).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
  }
  {
    grpc::ClientContext ctx;
    v1::Job out;
    EXPECT_EQ(stub->UpdateJob(&ctx, v1::UpdateJobRequest(), &out).error_code(),
              grpc::StatusCode::UNIMPLEMENTED);
  }
  server.Shutdown(absl::ZeroDuration());

  EXPECT_EQ(Sample("gnomon_auth_failures_total{reason=\"missing_credentials\"}"), 1);
  EXPECT_EQ(Sample("gnomon_auth_failures_total{reason=\"malformed\"}"), 1);
  EXPECT_EQ(Sample("gnomon_auth_failures_total{reason=\"invalid_admin_token\"}"), 1);
  EXPECT_EQ(Sample("gnomon_auth_failures_total{reason=\"wrong_access_token\"}"), 1);
  EXPECT_EQ(Sample("gnomon_auth_failures_total{reason=\"unknown_app\"}"), 0);
  // grpc-ecosystem's names, labels and code spellings.
  const std::string get_job =
      "grpc_method=\"GetJob\",grpc_service=\"gnomon.v1.JobAdmin\",grpc_type=\"unary\"";
  EXPECT_EQ(Sample("grpc_server_started_total{" + get_job + "}"), 4);
  EXPECT_EQ(Sample("grpc_server_handled_total{grpc_code=\"Unauthenticated\"," + get_job + "}"), 3);
  EXPECT_EQ(Sample("grpc_server_handled_total{grpc_code=\"OK\"," + get_job + "}"), 1);
  EXPECT_EQ(
      Sample("grpc_server_handled_total{grpc_code=\"Unimplemented\",grpc_method=\"UpdateJob\","
             "grpc_service=\"gnomon.v1.JobAdmin\",grpc_type=\"unary\"}"),
      1);
  EXPECT_EQ(Sample("grpc_server_handling_seconds_count{" + get_job + "}"), 4);
  // The old names only with legacy_names.
  EXPECT_EQ(Sample("gnomon_rpc_requests_total{code=\"OK\",method=\"GetJob\","
                   "service=\"gnomon.v1.JobAdmin\"}"),
            std::nullopt);
}

TEST_F(ServerMetricsTest, LegacyNamesAreKeptBesideTheNewOnesWhenAsked) {
  ServerMetrics metrics(registry_, /*legacy_names=*/true);
  metrics.Started("/gnomon.v1.JobAdmin/GetJob", "unary");
  metrics.Handled("/gnomon.v1.JobAdmin/GetJob", "unary", grpc::StatusCode::NOT_FOUND,
                  absl::Milliseconds(2));
  metrics.Handled("/gnomon.v1.Registry/Session", "bidi_stream", grpc::StatusCode::CANCELLED,
                  absl::Seconds(30));
  EXPECT_EQ(Sample("grpc_server_handled_total{grpc_code=\"NotFound\",grpc_method=\"GetJob\","
                   "grpc_service=\"gnomon.v1.JobAdmin\",grpc_type=\"unary\"}"),
            1);
  EXPECT_EQ(Sample("gnomon_rpc_requests_total{code=\"NOT_FOUND\",method=\"GetJob\","
                   "service=\"gnomon.v1.JobAdmin\"}"),
            1);
  EXPECT_EQ(Sample("gnomon_rpc_requests_total{code=\"CANCELLED\",method=\"Session\","
                   "service=\"gnomon.v1.Registry\"}"),
            1);
  // As before: the old histogram leaves streams out.
  EXPECT_EQ(Sample("gnomon_rpc_request_duration_seconds_count{method=\"Session\","
                   "service=\"gnomon.v1.Registry\"}"),
            std::nullopt);
  EXPECT_EQ(GrpcCodeLabel(grpc::StatusCode::RESOURCE_EXHAUSTED), std::string("ResourceExhausted"));
  EXPECT_EQ(GrpcCodeLabel(grpc::StatusCode::UNAUTHENTICATED), std::string("Unauthenticated"));
}

}  // namespace
}  // namespace gnomon

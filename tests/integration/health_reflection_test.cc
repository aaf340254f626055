// Every gnomon server answers grpc.health.v1.Health and server reflection, so
// Kubernetes gRPC probes and grpcurl work without extra files. Checked on a
// real gnomond and a real sample executor with a client generated from
// grpc's own protos.
#include <memory>
#include <set>
#include <string>

#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gnomon/v1/common.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/throwaway_mariadb.h"

namespace gnomon {
namespace {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

HealthCheckResponse::ServingStatus Check(const std::string& address, const std::string& service) {
  auto stub = grpc::health::v1::Health::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  HealthCheckRequest req;
  req.set_service(service);
  HealthCheckResponse resp;
  grpc::Status s = stub->Check(&ctx, req, &resp);
  EXPECT_TRUE(s.ok()) << service << ": " << s.error_message();
  return resp.status();
}

// Watches `service` until it reports `want` (true) or `timeout` passes
// (false): Health.Watch streams every change, so nothing polls.
bool WatchUntil(const std::string& address, const std::string& service,
                HealthCheckResponse::ServingStatus want, absl::Duration timeout) {
  auto stub = grpc::health::v1::Health::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  HealthCheckRequest req;
  req.set_service(service);
  auto stream = stub->Watch(&ctx, req);
  HealthCheckResponse resp;
  while (stream->Read(&resp)) {
    if (resp.status() == want) return true;
  }
  return false;
}

std::set<std::string> ListServices(const std::string& address) {
  auto stub = grpc::reflection::v1alpha::ServerReflection::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  auto stream = stub->ServerReflectionInfo(&ctx);
  grpc::reflection::v1alpha::ServerReflectionRequest req;
  req.set_list_services("");
  EXPECT_TRUE(stream->Write(req));
  stream->WritesDone();
  grpc::reflection::v1alpha::ServerReflectionResponse resp;
  std::set<std::string> names;
  if (stream->Read(&resp)) {
    for (const auto& s : resp.list_services_response().service()) names.insert(s.name());
  }
  EXPECT_TRUE(stream->Finish().ok());
  return names;
}

TEST(HealthReflection, GnomondServesHealthAndReflectionForEveryService) {
  testing::GnomonCluster cluster;
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  // Alive at once; ready once the scheduler holds its partitions.
  EXPECT_EQ(Check(cluster.address(), "liveness"), HealthCheckResponse::SERVING);
  EXPECT_TRUE(WatchUntil(cluster.address(), "", HealthCheckResponse::SERVING, absl::Seconds(30)))
      << cluster.Output();
  for (const char* svc : {"gnomon.v1.JobAdmin", "gnomon.v1.Registry", "gnomon.v1.LogService"}) {
    EXPECT_EQ(Check(cluster.address(), svc), HealthCheckResponse::SERVING) << svc;
  }
  std::set<std::string> services = ListServices(cluster.address());
  for (const char* svc : {"gnomon.v1.JobAdmin", "gnomon.v1.Registry", "gnomon.v1.LogService",
                          "grpc.health.v1.Health"}) {
    EXPECT_TRUE(services.count(svc)) << svc;
  }
}

TEST(HealthReflection, ReadinessFollowsTheStoreWhileLivenessStaysUp) {
  // A database outage takes gnomond out of the Service (readiness) without
  // getting it restarted (liveness), and it comes back by itself.
  testing::PrivateMariadb m = testing::StartPrivateMariadb();
  if (!m.skip.empty()) GTEST_SKIP() << m.skip;
  ASSERT_TRUE(m.status.ok()) << m.status;
  testing::ThrowawayMariadb* db = m.db.get();
  testing::GnomonCluster cluster({"--store=" + db->Url("gnomon_health")});
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  const std::string address = cluster.address();
  ASSERT_TRUE(WatchUntil(address, "", HealthCheckResponse::SERVING, absl::Seconds(30)))
      << cluster.Output();

  ASSERT_TRUE(db->Stop().ok());
  EXPECT_TRUE(WatchUntil(address, "", HealthCheckResponse::NOT_SERVING, absl::Seconds(30)))
      << cluster.Output();
  for (const char* svc : {"gnomon.v1.JobAdmin", "gnomon.v1.Registry", "gnomon.v1.LogService"}) {
    EXPECT_TRUE(WatchUntil(address, svc, HealthCheckResponse::NOT_SERVING, absl::Seconds(30)))
        << svc;
  }
  EXPECT_EQ(Check(address, "liveness"), HealthCheckResponse::SERVING);

  ASSERT_TRUE(db->Resume().ok());
  EXPECT_TRUE(WatchUntil(address, "", HealthCheckResponse::SERVING, absl::Seconds(60)))
      << cluster.Output();
  for (const char* svc : {"gnomon.v1.JobAdmin", "gnomon.v1.Registry", "gnomon.v1.LogService"}) {
    EXPECT_EQ(Check(address, svc), HealthCheckResponse::SERVING) << svc;
  }
  // The log says why, as docs/operations.md shows.
  EXPECT_THAT(cluster.Output(),
              ::testing::HasSubstr("health: gnomon.v1.JobAdmin NOT_SERVING: store unreachable"));
  EXPECT_THAT(cluster.Output(), ::testing::HasSubstr("health: gnomon.v1.JobAdmin SERVING again"));
}

}  // namespace
}  // namespace gnomon

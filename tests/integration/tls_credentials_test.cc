// gnomon's TLS credentials (services/common/tls) between a real gRPC server
// and clients on loopback, with certificates openssl makes at test time:
// plaintext refused, peers verified against the configured roots, client
// certificates required and verified, names checked, files reloaded.
#include "services/common/tls/tls_credentials.h"

#include <fstream>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "services/common/metrics/metrics_registry.h"
#include "services/common/metrics/metrics_server.h"
#include "services/common/server/grpc_server.h"
#include "services/common/status/status_matchers.h"
#include "services/common/tls/pem_check.h"
#include "tests/support/http_get.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_pki.h"

namespace gnomon {
namespace {

using testing::TempDir;
using testing::TestPki;

class TlsCredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pki_.MakeCa("ca")) << pki_.error();
    ASSERT_TRUE(pki_.MakeCa("other-ca")) << pki_.error();
    ASSERT_TRUE(pki_.MakeLeaf("server", "ca")) << pki_.error();
    ASSERT_TRUE(pki_.MakeLeaf("client", "ca")) << pki_.error();
    ASSERT_TRUE(pki_.MakeLeaf("stranger", "other-ca")) << pki_.error();
  }

  tls::TlsOptions Server(bool require_client_cert = false) const {
    tls::TlsOptions o;
    o.enabled = true;
    o.cert_file = pki_.crt("server");
    o.key_file = pki_.key("server");
    o.ca_file = pki_.crt("ca");
    o.require_client_cert = require_client_cert;
    o.reload_interval = absl::Seconds(1);
    return o;
  }
  // A client trusting `ca`, presenting `cert` ("" for none).
  tls::TlsOptions Client(const std::string& ca, const std::string& cert = "") const {
    tls::TlsOptions o;
    o.enabled = true;
    o.ca_file = pki_.crt(ca);
    if (!cert.empty()) {
      o.cert_file = pki_.crt(cert);
      o.key_file = pki_.key(cert);
    }
    return o;
  }
  int Serve(const tls::TlsOptions& o) {
    absl::StatusOr<int> port = server_.Start("127.0.0.1:0", o);
    EXPECT_TRUE(port.ok()) << port.status();
    return port.ok() ? *port : 0;
  }
  // A health check over a fresh connection (never a cached one).
  static grpc::Status Check(int port, const tls::TlsOptions& client,
                            const std::string& host = "127.0.0.1") {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    absl::StatusOr<tls::Dialer> dial = tls::MakeDialer(client, args);
    if (!dial.ok())
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, std::string(dial.status().message()));
    auto stub = grpc::health::v1::Health::NewStub((*dial)(absl::StrCat(host, ":", port)));
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(absl::Now() + absl::Seconds(5)));
    grpc::health::v1::HealthCheckRequest req;
    grpc::health::v1::HealthCheckResponse resp;
    return stub->Check(&ctx, req, &resp);
  }

  TempDir dir_;
  TestPki pki_{dir_.path()};
  GrpcServer server_;
};

TEST_F(TlsCredentialsTest, ATlsServerAnswersAVerifyingClientAndRefusesPlaintext) {
  const int port = Serve(Server());
  EXPECT_TRUE(Check(port, Client("ca")).ok());
  EXPECT_EQ(Check(port, tls::TlsOptions{}).error_code(), grpc::StatusCode::UNAVAILABLE);
  // A client whose roots did not sign the server's certificate.
  EXPECT_EQ(Check(port, Client("other-ca")).error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(TlsCredentialsTest, MutualTlsRefusesClientsWithoutACertificateFromItsCa) {
  const int port = Serve(Server(/*require_client_cert=*/true));
  EXPECT_TRUE(Check(port, Client("ca", "client")).ok());
  EXPECT_EQ(Check(port, Client("ca")).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(Check(port, Client("ca", "stranger")).error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(TlsCredentialsTest, TheServersNameIsCheckedUnlessTheClientAsksForTheChainOnly) {
  ASSERT_TRUE(pki_.MakeLeaf("named", "ca", {"DNS:gnomon.example"})) << pki_.error();
  tls::TlsOptions server = Server();
  server.cert_file = pki_.crt("named");
  server.key_file = pki_.key("named");
  const int port = Serve(server);
  EXPECT_EQ(Check(port, Client("ca")).error_code(),
            grpc::StatusCode::UNAVAILABLE);  // 127.0.0.1 not named
  tls::TlsOptions by_name = Client("ca");
  by_name.server_name = "gnomon.example";
  EXPECT_TRUE(Check(port, by_name).ok());
  tls::TlsOptions chain_only = Client("ca");
  chain_only.server_name = "*";
  EXPECT_TRUE(Check(port, chain_only).ok());
  chain_only.ca_file = pki_.crt("other-ca");  // The chain is still verified.
  EXPECT_EQ(Check(port, chain_only).error_code(), grpc::StatusCode::UNAVAILABLE);
}

// cert-manager renews a certificate by rewriting the Secret's files; the
// server must serve the new one without a restart.
TEST_F(TlsCredentialsTest, ARotatedCertificateIsServedWithoutARestart) {
  const int port = Serve(Server());
  ASSERT_TRUE(Check(port, Client("ca")).ok());
  ASSERT_TRUE(pki_.MakeLeaf("renewed", "other-ca")) << pki_.error();
  ASSERT_TRUE(pki_.Install("renewed", "server")) << pki_.error();
  // Reloaded within a few reload intervals (1 s); polled with a deadline.
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (!Check(port, Client("other-ca")).ok() && absl::Now() < deadline) {
    absl::Notification().WaitForNotificationWithTimeout(absl::Milliseconds(200));
  }
  EXPECT_TRUE(Check(port, Client("other-ca")).ok());
  EXPECT_EQ(Check(port, Client("ca")).error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(TlsCredentialsTest, MetricsAreServedOverHttpsOnlyAndARenewedCertificateIsPickedUp) {
  absl::StatusOr<std::unique_ptr<metrics::MetricsServer>> server =
      metrics::MetricsServer::Start("127.0.0.1:0", std::make_shared<metrics::MetricsRegistry>(),
                                    Server(/*require_client_cert=*/true));
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string https = absl::StrCat("https://", (*server)->address(), "/metrics");
  const testing::HttpsClient client{pki_.crt("ca"), pki_.crt("client"), pki_.key("client")};
  EXPECT_TRUE(testing::HttpGet(https, client));
  EXPECT_FALSE(testing::HttpGet(absl::StrCat("http://", (*server)->address(), "/metrics")));
  EXPECT_FALSE(testing::HttpGet(https, {pki_.crt("ca"), "", ""}));  // No client certificate.
  EXPECT_FALSE(
      testing::HttpGet(https, {pki_.crt("ca"), pki_.crt("stranger"), pki_.key("stranger")}));

  ASSERT_TRUE(pki_.MakeLeaf("renewed", "other-ca")) << pki_.error();
  ASSERT_TRUE(pki_.Install("renewed", "server")) << pki_.error();
  const testing::HttpsClient renewed{pki_.crt("other-ca"), pki_.crt("client"), pki_.key("client")};
  const absl::Time deadline = absl::Now() + absl::Seconds(30);
  while (!testing::HttpGet(https, renewed) && absl::Now() < deadline) {
    absl::Notification().WaitForNotificationWithTimeout(absl::Milliseconds(200));
  }
  EXPECT_TRUE(testing::HttpGet(https, renewed));
  EXPECT_FALSE(testing::HttpGet(https, client));  // The old certificate is no longer served.
}

TEST_F(TlsCredentialsTest, BadFilesAreRefusedUpFrontNamingTheFile) {
  const std::string missing = dir_.path() + "/missing.crt";
  absl::Status s = tls::CheckFiles(missing, pki_.key("server"), "");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kNotFound));
  EXPECT_NE(s.message().find(missing), std::string::npos) << s;
  const std::string text = dir_.path() + "/not-pem.crt";
  std::ofstream(text) << "hello\n";
  s = tls::CheckFiles(text, pki_.key("server"), "");
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_NE(s.message().find(text), std::string::npos) << s;
  s = tls::CheckFiles(pki_.crt("server"), pki_.key("client"), "");  // Someone else's key.
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_NE(s.message().find("does not match"), std::string::npos) << s;
  s = tls::CheckFiles("", "", text);
  EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument));
  // A server with such files does not start.
  tls::TlsOptions bad = Server();
  bad.key_file = pki_.key("client");
  EXPECT_FALSE(server_.Start("127.0.0.1:0", bad).ok());
}

}  // namespace
}  // namespace gnomon

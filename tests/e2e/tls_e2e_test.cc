// TLS everywhere, as docs/operations.md ("TLS") sets it up: gnomond serving
// TLS and requiring client certificates, a sample executor doing the same,
// gnomonctl with a client certificate. A job runs end to end — the
// executor's registry session and result reports, the scheduler's dispatch
// to the executor — and clients without the right certificate are refused.
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/http_get.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_pki.h"

namespace gnomon {
namespace {

class TlsE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* ca : {"ca", "other-ca"}) ASSERT_TRUE(pki_.MakeCa(ca)) << pki_.error();
    for (const char* leaf : {"gnomond", "executor", "operator"}) {
      ASSERT_TRUE(pki_.MakeLeaf(leaf, "ca")) << pki_.error();
    }
    ASSERT_TRUE(pki_.MakeLeaf("stranger", "other-ca")) << pki_.error();
  }
  // gnomonctl's TLS flags for a client presenting `cert`.
  std::vector<std::string> CtlTls(const std::string& cert) const {
    return {"--ca", pki_.crt("ca"), "--cert", pki_.crt(cert), "--key", pki_.key(cert)};
  }

  testing::TempDir dir_;
  testing::TestPki pki_{dir_.path()};
};

TEST_F(TlsE2E, AJobRunsOverMutualTlsAndClientsWithoutTheRightCertificateAreRefused) {
  testing::GnomonCluster cluster(
      {absl::StrCat("--tls-cert=", pki_.crt("gnomond")),
       absl::StrCat("--tls-key=", pki_.key("gnomond")), absl::StrCat("--tls-ca=", pki_.crt("ca")),
       "--tls-require-client-cert", "--metrics-listen=127.0.0.1:0", "--http-listen=127.0.0.1:0"});
  cluster.set_ctl_flags(CtlTls("operator"));
  ASSERT_TRUE(cluster.Start()) << cluster.Output();

  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "tls-app"}, &group));
  auto executor = cluster.StartExecutor(
      "tls-app", group.access_token(),
      {absl::StrCat("--tls-cert=", pki_.crt("executor")),
       absl::StrCat("--tls-key=", pki_.key("executor")), absl::StrCat("--tls-ca=", pki_.crt("ca")),
       "--metrics-listen=127.0.0.1:0"});
  // It connects out over mutual TLS: gnomond requires its client certificate.
  ASSERT_TRUE(executor->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30)))
      << executor->Output();
  // Both serve /metrics over HTTPS only (no client certificate asked by default).
  for (testing::Subprocess* p : {cluster.gnomond(), executor.get()}) {
    std::optional<std::string> line = p->WaitForLine("metrics on https://", absl::Seconds(5));
    ASSERT_TRUE(line) << p->Output();
    const std::string url = line->substr(line->find("https://"));
    EXPECT_TRUE(testing::HttpGet(url, {pki_.crt("ca"), "", ""})) << url;
    EXPECT_FALSE(testing::HttpGet(absl::StrCat("http://", url.substr(8)), {})) << url;
  }
  // The HTTP API too: HTTPS with gnomond's certificate, no plaintext.
  {
    std::optional<std::string> line =
        cluster.gnomond()->WaitForLine("HTTP API on https://", absl::Seconds(5));
    ASSERT_TRUE(line) << cluster.Output();
    const std::string base(absl::StripAsciiWhitespace(line->substr(line->find("https://"))));
    const std::vector<std::string> auth = {"Authorization: Bearer " + cluster.admin_token()};
    testing::HttpResult groups = testing::HttpCall("POST", base + "/v1/JobAdmin/ListGroups", "",
                                                   auth, {pki_.crt("ca"), "", ""});
    EXPECT_EQ(groups.status, 200) << groups.body;
    EXPECT_NE(groups.body.find("tls-app"), std::string::npos) << groups.body;
    EXPECT_EQ(
        testing::HttpCall(
            "POST", absl::StrCat("http://", base.substr(8), "/v1/JobAdmin/ListGroups"), "", auth)
            .status,
        0);
  }

  v1::Job job;
  ASSERT_TRUE(cluster.CtlJson({"job", "create", "--group", absl::StrCat(group.id()), "--handler",
                               "demo", "--every", "1s", "--params", "over-tls", "--start"},
                              &job));
  v1::ListRunsResponse runs;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  const v1::Run* done = nullptr;
  while (done == nullptr && absl::Now() < deadline) {
    ASSERT_TRUE(cluster.CtlJson({"run", "list", "--job", absl::StrCat(job.id())}, &runs));
    for (const v1::Run& r : runs.runs()) {
      if (r.status() == v1::RUN_STATUS_SUCCEEDED) done = &r;
    }
    if (done == nullptr) cluster.PollInterval(absl::Milliseconds(200));
  }
  ASSERT_NE(done, nullptr) << runs.DebugString() << cluster.Output() << executor->Output();
  v1::GetRunResponse detail;
  ASSERT_TRUE(cluster.CtlJson({"run", "get", absl::StrCat(done->id())}, &detail));
  std::string log;
  for (const auto& l : detail.log_lines()) log += l.text() + "\n";
  EXPECT_NE(log.find("over-tls"), std::string::npos) << log;

  // Refused: plaintext, no client certificate, a certificate from another CA.
  const std::vector<std::string> list = {"job", "list"};
  cluster.set_ctl_flags({});
  testing::CommandResult plain = cluster.Ctl(list);
  EXPECT_EQ(plain.exit_code, 5) << plain.out << plain.err;  // UNAVAILABLE
  EXPECT_NE(plain.err.find("UNAVAILABLE"), std::string::npos) << plain.err;
  cluster.set_ctl_flags({"--ca", pki_.crt("ca")});
  EXPECT_EQ(cluster.Ctl(list).exit_code, 5);
  cluster.set_ctl_flags(CtlTls("stranger"));
  EXPECT_EQ(cluster.Ctl(list).exit_code, 5);
  // A missing file is the user's to fix, before anything is sent.
  cluster.set_ctl_flags({"--ca", dir_.path() + "/nope.crt"});
  testing::CommandResult missing = cluster.Ctl(list);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.crt"), std::string::npos) << missing.err;
  // The right certificate still works (the refusals broke nothing).
  cluster.set_ctl_flags(CtlTls("operator"));
  EXPECT_EQ(cluster.Ctl(list).exit_code, 0);

  // The chart's exec probe: health over mutual TLS, checking the chain only
  // (a pod dials itself at 127.0.0.1, which its certificate need not name).
  std::vector<std::string> probe = CtlTls("gnomond");
  probe.insert(probe.end(), {"--tls-server-name", "*"});
  cluster.set_ctl_flags(probe);
  testing::CommandResult live = cluster.Ctl({"health", "check", "--service", "liveness"});
  EXPECT_EQ(live.exit_code, 0) << live.out << live.err;
  EXPECT_NE(live.out.find("SERVING"), std::string::npos) << live.out;
  EXPECT_EQ(cluster.Ctl({"health", "check", "--service", "gnomon.v1.JobAdmin"}).exit_code, 0);
  EXPECT_EQ(cluster.Ctl({"health", "check", "--service", "no.such.Service"}).exit_code,
            3);  // NOT_FOUND
  cluster.set_ctl_flags({});
  EXPECT_EQ(cluster.Ctl({"health", "check"}).exit_code, 5);  // Plaintext: refused, UNAVAILABLE.
}

}  // namespace
}  // namespace gnomon

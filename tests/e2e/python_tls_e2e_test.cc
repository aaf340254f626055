// The Python reference executor (services/executor-sdk/python) over mutual
// TLS: gnomond requires client certificates. The Python sample executor with
// GNOMON_TLS_CA, GNOMON_TLS_CERT, GNOMON_TLS_KEY and GNOMON_TLS_SERVER_NAME
// registers and runs a job to SUCCEEDED; the same executor without a client
// certificate, or verifying a name gnomond's certificate does not carry, is
// refused and gets no run; a certificate without its key fails at start.
#include <csignal>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_pki.h"

namespace gnomon {
namespace {

constexpr char kPython[] = "/usr/bin/python3";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class PythonTlsE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(pki_.MakeCa("ca")) << pki_.error();
    for (const char* leaf : {"gnomond", "executor", "operator"}) {
      ASSERT_TRUE(pki_.MakeLeaf(leaf, "ca")) << pki_.error();
    }
    // The executor protocol's stubs, generated once by the package itself.
    testing::CommandResult gen = testing::RunCommand(
        {kPython, "-c",
         "import sys; from gnomon_executor import stubs; stubs.generate(sys.argv[1], sys.argv[2])",
         std::string(GNOMON_SOURCE_DIR) + "/proto", stubs_dir()},
        PythonEnv());
    ASSERT_EQ(gen.exit_code, 0) << gen.out << gen.err;
  }

  std::string stubs_dir() const { return dir_.path() + "/stubs"; }
  std::map<std::string, std::string> PythonEnv() const {
    return {{"PYTHONPATH", std::string(GNOMON_SOURCE_DIR) + "/services/executor-sdk/python"},
            {"PYTHONDONTWRITEBYTECODE", "1"},
            {"GNOMON_PY_STUBS", stubs_dir()}};
  }
  std::string invocations(const std::string& name) const {
    return absl::StrCat(dir_.path(), "/", name, ".invocations");
  }
  // python3 -m gnomon_executor.sample named `name` in `app`, with `tls_env`
  // (GNOMON_TLS_*) and `flags`.
  std::unique_ptr<testing::Subprocess> StartPython(
      const testing::GnomonCluster& cluster, const v1::Group& group, const std::string& name,
      const std::map<std::string, std::string>& tls_env,
      const std::vector<std::string>& flags = {}) {
    std::map<std::string, std::string> env = PythonEnv();
    env.insert(tls_env.begin(), tls_env.end());
    env["GNOMON_APP"] = group.app_name();
    env["GNOMON_REGISTRY"] = cluster.addresses();
    env["GNOMON_ACCESS_TOKEN"] = group.access_token();
    std::vector<std::string> argv = {kPython,          "-m", "gnomon_executor.sample",
                                     "--name",         name, "--invocations-file",
                                     invocations(name)};
    argv.insert(argv.end(), flags.begin(), flags.end());
    return std::make_unique<testing::Subprocess>(argv, env);
  }

  testing::TempDir dir_;
  testing::TestPki pki_{dir_.path()};
};

TEST_F(PythonTlsE2E, RunsAJobWithAClientCertificateAndIsRefusedWithoutOne) {
  testing::GnomonCluster cluster({absl::StrCat("--tls-cert=", pki_.crt("gnomond")),
                                  absl::StrCat("--tls-key=", pki_.key("gnomond")),
                                  absl::StrCat("--tls-ca=", pki_.crt("ca")),
                                  "--tls-require-client-cert"});
  cluster.set_ctl_flags(
      {"--ca", pki_.crt("ca"), "--cert", pki_.crt("operator"), "--key", pki_.key("operator")});
  ASSERT_TRUE(cluster.Start()) << cluster.Output();

  // With its client certificate (gnomond's names 127.0.0.1 and localhost; the
  // executor dials 127.0.0.1 and verifies "localhost").
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "py-tls"}, &group));
  auto executor = StartPython(cluster, group, "py-mtls",
                              {{"GNOMON_TLS_CA", pki_.crt("ca")},
                               {"GNOMON_TLS_CERT", pki_.crt("executor")},
                               {"GNOMON_TLS_KEY", pki_.key("executor")},
                               {"GNOMON_TLS_SERVER_NAME", "localhost"}});
  ASSERT_TRUE(executor->WaitForLine("registered app \"py-tls\"", absl::Seconds(60)))
      << executor->Output() << cluster.Output();
  v1::Job job;
  ASSERT_TRUE(cluster.CtlJson({"job", "create", "--group", absl::StrCat(group.id()), "--handler",
                               "demo", "--manual", "--params", "python-over-mtls"},
                              &job));
  const v1::Run ran = cluster.TriggerUntilSucceeded(job.id());
  ASSERT_EQ(ran.status(), v1::RUN_STATUS_SUCCEEDED) << cluster.Output() << executor->Output();
  EXPECT_EQ(ran.executor_address(), "py-mtls");
  v1::GetRunResponse detail;
  ASSERT_TRUE(cluster.CtlJson({"run", "get", absl::StrCat(ran.id())}, &detail));
  std::string log;
  for (const auto& l : detail.log_lines()) log += l.text() + "\n";
  EXPECT_NE(log.find("python-over-mtls"), std::string::npos) << log;
  EXPECT_NE(ReadAll(invocations("py-mtls")).find(absl::StrCat(ran.id(), " ", job.id())),
            std::string::npos);

  // Refused: no client certificate (the CA alone, by flag), or a client
  // certificate but a server name gnomond's certificate does not carry.
  v1::Group refused_group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "py-refused"}, &refused_group));
  auto no_cert =
      StartPython(cluster, refused_group, "py-no-cert", {}, {"--tls-ca", pki_.crt("ca")});
  auto wrong_name = StartPython(cluster, refused_group, "py-wrong-name",
                                {{"GNOMON_TLS_CA", pki_.crt("ca")},
                                 {"GNOMON_TLS_CERT", pki_.crt("executor")},
                                 {"GNOMON_TLS_KEY", pki_.key("executor")}},
                                {"--tls-server-name", "gnomond.wrong.example"});
  for (testing::Subprocess* p : {no_cert.get(), wrong_name.get()}) {
    ASSERT_TRUE(p->WaitForLine("registry session with", absl::Seconds(60))) << p->Output();
    ASSERT_TRUE(p->WaitForLine("scheduler stream to", absl::Seconds(60))) << p->Output();
  }
  v1::Job refused_job;
  ASSERT_TRUE(cluster.CtlJson({"job", "create", "--group", absl::StrCat(refused_group.id()),
                               "--handler", "demo", "--manual"},
                              &refused_job));
  v1::TriggerJobResponse fired;
  ASSERT_TRUE(cluster.CtlJson({"job", "trigger", absl::StrCat(refused_job.id())}, &fired));
  ASSERT_EQ(fired.run_ids_size(), 1);
  v1::Run failed;
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  while (absl::Now() < deadline && failed.status() != v1::RUN_STATUS_FAILED) {
    v1::GetRunResponse run;
    ASSERT_TRUE(cluster.CtlJson({"run", "get", absl::StrCat(fired.run_ids(0))}, &run));
    failed = run.run();
    ASSERT_NE(failed.status(), v1::RUN_STATUS_SUCCEEDED)
        << no_cert->Output() << wrong_name->Output();
    if (failed.status() != v1::RUN_STATUS_FAILED) cluster.PollInterval(absl::Milliseconds(100));
  }
  ASSERT_EQ(failed.status(), v1::RUN_STATUS_FAILED) << cluster.Output();
  EXPECT_EQ(failed.trigger_code(), v1::HANDLE_CODE_NO_EXECUTOR) << failed.trigger_message();
  for (testing::Subprocess* p : {no_cert.get(), wrong_name.get()}) {
    const std::string out = p->Output();
    EXPECT_EQ(out.find("registered app"), std::string::npos) << out;
    EXPECT_EQ(out.find("connected to gnomond replica"), std::string::npos) << out;
  }
  for (const char* name : {"py-no-cert", "py-wrong-name"}) {
    EXPECT_EQ(ReadAll(invocations(name)), "") << name;
  }

  // A certificate without its key: refused at start, naming the variable.
  std::map<std::string, std::string> env = PythonEnv();
  env["GNOMON_ACCESS_TOKEN"] = group.access_token();
  env["GNOMON_TLS_CA"] = pki_.crt("ca");
  env["GNOMON_TLS_CERT"] = pki_.crt("executor");
  testing::CommandResult half = testing::RunCommand({kPython, "-m", "gnomon_executor.sample"}, env);
  EXPECT_EQ(half.exit_code, 2) << half.out << half.err;
  EXPECT_NE(half.err.find("GNOMON_TLS_KEY"), std::string::npos) << half.err;

  // The accepted executor stops gracefully (deregistering over mutual TLS).
  executor->Kill(SIGTERM);
  EXPECT_EQ(executor->Wait(), 0) << executor->Output();
}

}  // namespace
}  // namespace gnomon

// No gnomon credential reaches a script job (issue #29): a real gnomond, a
// sample executor started with scripts allowed and its group's token in
// GNOMON_ACCESS_TOKEN (as an operator passes it), and a shell script job that
// prints its environment and tries to read its parent's, the executor's,
// /proc/PID/environ. The run must succeed, and neither the token nor any
// GNOMON_* variable may reach its log.
//
// Executors run as an unprivileged service user, and their scripts as the
// same user. Root reads every process's environ whatever its dumpable flag,
// so when the test runs as root the executor runs as nobody (65534), which
// its script then is too.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/subprocess.h"

namespace gnomon {
namespace {

constexpr char kScript[] = R"sh(echo "script-credentials-marker ran as $(id -u)"
env
cat /proc/$PPID/environ > parent.env
echo "parent-environ-exit=$?"
tr '\0' '\n' < parent.env
exit 0
)sh";

constexpr int kNobody = 65534;

// The sample executor of `app` with scripts allowed and `token` in its
// environment; as nobody when this test is root, with directories it owns.
std::unique_ptr<testing::Subprocess> StartScriptingExecutor(const testing::GnomonCluster& cluster,
                                                            const testing::TempDir& dir,
                                                            const std::string& app,
                                                            const std::string& token) {
  std::vector<std::string> argv;
  if (::geteuid() == 0) {
    EXPECT_EQ(::chown(dir.path().c_str(), kNobody, kNobody), 0);
    argv = {"setpriv", absl::StrCat("--reuid=", kNobody), absl::StrCat("--regid=", kNobody),
            "--clear-groups"};
  }
  argv.insert(argv.end(), {SAMPLE_EXECUTOR_PATH, absl::StrCat("--app=", app),
                           absl::StrCat("--registry=", cluster.addresses()), "--allow-scripts",
                           absl::StrCat("--spool-dir=", dir.path(), "/spool"),
                           absl::StrCat("--log-dir=", dir.path(), "/logs")});
  return std::make_unique<testing::Subprocess>(
      argv,
      std::map<std::string, std::string>{{"GNOMON_ACCESS_TOKEN", token}, {"TMPDIR", dir.path()}});
}

TEST(ScriptCredentialsE2E, ScriptSeesNoGnomonVariableAndCannotReadTheExecutorsEnviron) {
  testing::GnomonCluster cluster;
  ASSERT_TRUE(cluster.Start()) << cluster.Output();
  v1::Group group;
  ASSERT_TRUE(cluster.CtlJson({"group", "create", "script-env"}, &group));
  const std::string token = group.access_token();
  ASSERT_GE(token.size(), 16u);
  testing::TempDir executor_dir;
  auto executor = StartScriptingExecutor(cluster, executor_dir, "script-env", token);
  ASSERT_TRUE(executor->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30)))
      << executor->Output();

  const std::string script = cluster.dir() + "/print-env.sh";
  std::ofstream(script) << kScript;
  v1::Job job;
  ASSERT_TRUE(cluster.CtlJson(
      {"job", "create", "--group", absl::StrCat(group.id()), "--script-shell", script, "--manual"},
      &job));

  // Triggered once the scheduler routes to the executor.
  const absl::Time deadline = absl::Now() + absl::Seconds(60);
  v1::ListExecutorsResponse online;
  while (!(cluster.CtlJson({"executor", "list", "--group", absl::StrCat(group.id())}, &online) &&
           online.groups_size() == 1 && online.groups(0).executors_size() == 1)) {
    ASSERT_LT(absl::Now(), deadline) << online.DebugString() << executor->Output();
    cluster.PollInterval(absl::Milliseconds(100));
  }
  v1::TriggerJobResponse triggered;
  ASSERT_TRUE(cluster.CtlJson({"job", "trigger", absl::StrCat(job.id())}, &triggered));
  ASSERT_EQ(triggered.run_ids_size(), 1);
  const std::string run_id = absl::StrCat(triggered.run_ids(0));

  v1::GetRunResponse detail;
  while (true) {
    ASSERT_TRUE(cluster.CtlJson({"run", "get", run_id}, &detail));
    const v1::RunStatus s = detail.run().status();
    if (s == v1::RUN_STATUS_SUCCEEDED || s == v1::RUN_STATUS_FAILED) break;
    ASSERT_LT(absl::Now(), deadline) << detail.DebugString() << executor->Output();
    cluster.PollInterval(absl::Milliseconds(100));
  }
  std::string log;
  for (const auto& l : detail.log_lines()) absl::StrAppend(&log, l.text(), "\n");
  ASSERT_EQ(detail.run().status(), v1::RUN_STATUS_SUCCEEDED) << detail.DebugString();
  ASSERT_NE(log.find("script-credentials-marker ran"), std::string::npos) << log;
  ASSERT_EQ(log.find("script-credentials-marker ran as 0\n"), std::string::npos)
      << "a script run as root reads any process's environ: this test proves nothing";
  // The rest of the environment is kept.
  EXPECT_NE(log.find("\nPATH="), std::string::npos) << log;

  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    EXPECT_FALSE(absl::StrContains(line, token)) << "the group token reached the script: " << line;
    EXPECT_FALSE(absl::StartsWith(line, "GNOMON_"))
        << "a GNOMON_ variable reached the script: " << line;
    EXPECT_FALSE(absl::StrContains(line, "GNOMON_ACCESS_TOKEN")) << line;
  }
  // Reading the executor's environ was refused (it is not dumpable), so the
  // absence above is not just a matter of what it inherited.
  EXPECT_TRUE(absl::StrContains(log, "parent-environ-exit=") &&
              !absl::StrContains(log, "parent-environ-exit=0\n"))
      << log;
}

}  // namespace
}  // namespace gnomon

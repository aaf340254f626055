// A script job trying to leave its box, through a real gnomond and a sample
// executor with scripts allowed (its group's token in GNOMON_ACCESS_TOKEN,
// as an operator passes it). Any operator can write a script, so each of
// these is an attack by one:
// * reading credentials: a script that prints its environment and tries to
//   read its parent's, the executor's, /proc/PID/environ. The run succeeds,
//   and neither the token nor any GNOMON_* variable reaches its log;
// * outliving its run: children in the background, in a session of their
//   own (setsid) and double-forked out of the script's process tree are all
//   gone once the run has ended, whether the script exits or is killed; and
//   a script may open at most 1024 files by default.
//
// Executors run as an unprivileged service user, and their scripts as the
// same user. Root reads every process's environ whatever its dumpable flag,
// so when the test runs as root the executor runs as nobody (65534), which
// its scripts then are too.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.pb.h"
#include "gtest/gtest.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/stream_follower.h"
#include "tests/support/subprocess.h"

namespace gnomon {
namespace {

using testing::kPatience;

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

// Children that try to outlive a script: one in the background, one in a
// session of its own, one double-forked out of the script's tree (reparented
// to whoever reaps orphans). Each prints "name=PID". `then` ends the script.
std::string EscapingScript(const std::string& then) {
  return absl::StrCat(R"sh(sleep 1000 >/dev/null 2>&1 &
echo "background=$!"
setsid sleep 1000 >/dev/null 2>&1 &
echo "setsid=$!"
( setsid sh -c 'exec sleep 1000' >/dev/null 2>&1 & echo "orphan=$!" )
echo "nofile=$(ulimit -n)"
)sh",
                      then, "\n");
}

class ScriptAttacksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    ASSERT_TRUE(cluster_.CtlJson({"group", "create", "script-box"}, &group_));
    token_ = group_.access_token();
    ASSERT_GE(token_.size(), 16u);
    executor_ = StartScriptingExecutor(cluster_, executor_dir_, "script-box", token_);
    ASSERT_TRUE(executor_->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30)))
        << executor_->Output();
    v1::ListExecutorsResponse online;
    ASSERT_TRUE(cluster_.AwaitOnline(group_.id(), 1, absl::Seconds(60), &online))
        << online.DebugString() << executor_->Output();
  }

  // Creates a manual shell-script job of `script` and triggers it: its run.
  int64_t Trigger(const std::string& name, const std::string& script) {
    const std::string path = absl::StrCat(cluster_.dir(), "/", name, ".sh");
    std::ofstream(path) << script;
    v1::Job job;
    EXPECT_TRUE(cluster_.CtlJson(
        {"job", "create", "--group", absl::StrCat(group_.id()), "--script-shell", path, "--manual"},
        &job));
    v1::TriggerJobResponse triggered;
    EXPECT_TRUE(cluster_.CtlJson({"job", "trigger", absl::StrCat(job.id())}, &triggered));
    EXPECT_EQ(triggered.run_ids_size(), 1);
    return triggered.run_ids_size() == 1 ? triggered.run_ids(0) : 0;
  }
  // The run and its log once `ready` holds for them (false after kPatience).
  bool AwaitRun(int64_t run_id,
                const std::function<bool(const v1::Run&, const std::string&)>& ready, v1::Run* run,
                std::string* log) {
    const absl::Time deadline = absl::Now() + kPatience;
    while (true) {
      v1::GetRunResponse detail;
      if (cluster_.CtlJson({"run", "get", absl::StrCat(run_id)}, &detail)) {
        log->clear();
        for (const auto& l : detail.log_lines()) absl::StrAppend(log, l.text(), "\n");
        *run = detail.run();
        if (ready(*run, *log)) return true;
      }
      if (absl::Now() > deadline) {
        ADD_FAILURE() << run->DebugString() << *log << executor_->Output();
        return false;
      }
      cluster_.PollInterval(absl::Milliseconds(100));
    }
  }
  static bool Final(const v1::Run& run, const std::string&) {
    return run.status() == v1::RUN_STATUS_SUCCEEDED || run.status() == v1::RUN_STATUS_FAILED;
  }
  // The pids the escaping script printed.
  static std::map<std::string, pid_t> Children(const std::string& log) {
    std::map<std::string, pid_t> out;
    for (absl::string_view line : absl::StrSplit(log, '\n')) {
      std::pair<std::string, std::string> kv = absl::StrSplit(line, absl::MaxSplits('=', 1));
      int pid = 0;
      if ((kv.first == "background" || kv.first == "setsid" || kv.first == "orphan") &&
          absl::SimpleAtoi(kv.second, &pid) && pid > 1)
        out[kv.first] = pid;
    }
    return out;
  }
  // Whether every one of them is gone within kPatience.
  void ExpectAllGone(const std::map<std::string, pid_t>& children, const std::string& when) {
    ASSERT_EQ(children.size(), 3u) << "the script did not start its children";
    const absl::Time deadline = absl::Now() + kPatience;
    for (const auto& [name, pid] : children) {
      while (!(::kill(pid, 0) == -1 && errno == ESRCH) && absl::Now() < deadline)
        cluster_.PollInterval(absl::Milliseconds(50));
      EXPECT_TRUE(::kill(pid, 0) == -1 && errno == ESRCH)
          << "the " << name << " child (pid " << pid << ") outlived its run " << when;
    }
  }

  testing::GnomonCluster cluster_;
  v1::Group group_;
  std::string token_;
  testing::TempDir executor_dir_;
  std::unique_ptr<testing::Subprocess> executor_;
};

TEST_F(ScriptAttacksTest, ScriptSeesNoGnomonVariableAndCannotReadTheExecutorsEnviron) {
  const int64_t run_id = Trigger("print-env", kScript);
  v1::Run run;
  std::string log;
  ASSERT_TRUE(AwaitRun(run_id, Final, &run, &log));
  ASSERT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED) << run.DebugString() << log;
  ASSERT_NE(log.find("script-credentials-marker ran"), std::string::npos) << log;
  ASSERT_EQ(log.find("script-credentials-marker ran as 0\n"), std::string::npos)
      << "a script run as root reads any process's environ: this test proves nothing";
  // The rest of the environment is kept.
  EXPECT_NE(log.find("\nPATH="), std::string::npos) << log;

  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    EXPECT_FALSE(absl::StrContains(line, token_)) << "the group token reached the script: " << line;
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

// The script exits at once, successfully, leaving its children behind: the
// run succeeds, and none of them survives it.
TEST_F(ScriptAttacksTest, ChildrenDoNotOutliveAScriptThatExits) {
  const int64_t run_id = Trigger("escape-exit", EscapingScript("exit 0"));
  v1::Run run;
  std::string log;
  ASSERT_TRUE(AwaitRun(run_id, Final, &run, &log));
  EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED) << run.DebugString() << log;
  EXPECT_TRUE(absl::StrContains(log, "nofile=1024\n")) << log;
  ExpectAllGone(Children(log), "after the script exited");
}

// The script waits with its children about; the run is killed: it ends
// FAILED, and the kill reaches the children that left its process group.
TEST_F(ScriptAttacksTest, KillReachesChildrenThatLeftTheScriptsGroup) {
  const int64_t run_id = Trigger("escape-kill", EscapingScript("exec sleep 1000"));
  v1::Run run;
  std::string log;
  ASSERT_TRUE(AwaitRun(
      run_id, [](const v1::Run&, const std::string& l) { return Children(l).size() == 3; }, &run,
      &log));
  const std::map<std::string, pid_t> children = Children(log);
  testing::CommandResult killed = cluster_.Ctl({"run", "kill", absl::StrCat(run_id)});
  ASSERT_EQ(killed.exit_code, 0) << killed.out << killed.err;
  ASSERT_TRUE(AwaitRun(run_id, Final, &run, &log));
  EXPECT_EQ(run.status(), v1::RUN_STATUS_FAILED) << run.DebugString();
  ExpectAllGone(children, "after it was killed");
}

}  // namespace
}  // namespace gnomon

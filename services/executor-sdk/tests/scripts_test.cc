// Script (GLUE) runs, RunProcess cancellation, and local run-log files.
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gnomon/executor/process.h"
#include "services/executor-sdk/src/logger.h"
#include "services/executor-sdk/src/run_log_files.h"
#include "services/executor-sdk/src/script_runner.h"
#include "services/executor-sdk/tests/test_env.h"

namespace gnomon::executor {
namespace {

using testing::BeanRun;
using testing::DispatchClient;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

// True while `pid` exists and is not a zombie.
bool Alive(int pid) {
  std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

// Waits (polling /proc, the only view of another process's death) until gone.
bool WaitGone(int pid, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (Alive(pid)) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
  return true;
}

int ReadPid(const std::string& path, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  int pid = 0;
  while (absl::Now() < deadline) {
    std::string text = ReadFile(path);
    if (!text.empty() && text.back() == '\n' &&
        absl::SimpleAtoi(text.substr(0, text.size() - 1), &pid)) {
      return pid;
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
  return 0;
}

v1::RunRequest ScriptRun(int64_t run_id, v1::ScriptLanguage language, const std::string& source,
                         const std::string& params, absl::Duration timeout = absl::ZeroDuration()) {
  v1::RunRequest run =
      BeanRun(run_id, run_id, "", params, v1::BLOCK_STRATEGY_SERIAL_EXECUTION, timeout);
  run.mutable_script()->set_language(language);
  run.mutable_script()->set_source(source);
  run.set_shard_index(2);
  run.set_shard_total(5);
  return run;
}

class ScriptsTest : public SdkTest {
 protected:
  std::unique_ptr<Executor> StartScripting() {
    ExecutorOptions options = Options();
    options.allow_scripts = true;
    options.script_kill_grace = absl::Milliseconds(300);
    return StartExecutor(options, [](Executor&) {});
  }
};

TEST_F(ScriptsTest, ShellScriptGetsArgumentsAndAPrivateDirectory) {
  auto executor = StartScripting();
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch
                  .Send(ScriptRun(1, v1::SCRIPT_LANGUAGE_SHELL,
                                  "echo \"args: $1 $2 $3\"\npwd\necho oops >&2\n", "hello"))
                  ->has_accepted());
  auto result = logs_.WaitForResult(1, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200) << result->handle_message();
  std::vector<v1::LogLine> lines = logs_.lines(1);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text(), "args: hello 2 5");
  EXPECT_NE(lines[1].text().find("gnomon-run-1-"), std::string::npos);
  EXPECT_EQ(lines[2].text(), "oops");
  struct stat st;
  EXPECT_NE(::stat(lines[1].text().c_str(), &st), 0) << "temp dir not removed";
}

// Limits set for scripts are in place when the script starts (and for what
// it starts): the shell reports them.
TEST_F(ScriptsTest, AScriptRunsUnderTheExecutorsScriptLimits) {
  ExecutorOptions options = Options();
  options.allow_scripts = true;
  options.script_max_open_files = 64;
  options.script_max_memory_mib = 256;
  options.script_max_file_mib = 8;
  auto executor = StartExecutor(options, [](Executor&) {});
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch
                  .Send(ScriptRun(8, v1::SCRIPT_LANGUAGE_SHELL,
                                  "ulimit -n\nulimit -d\nsh -c 'ulimit -n'\n", ""))
                  ->has_accepted());
  auto result = logs_.WaitForResult(8, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200) << result->handle_message();
  std::vector<v1::LogLine> lines = logs_.lines(8);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text(), "64");
  EXPECT_EQ(lines[1].text(), "262144");  // KiB
  EXPECT_EQ(lines[2].text(), "64");      // and its children
}

// By default a script may open 1024 files at once, whatever the executor's
// own limit; its memory and the files it writes are not limited.
TEST_F(ScriptsTest, AScriptHasDefaultLimitsOfOpenFilesOnly) {
  auto executor = StartScripting();
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(
      dispatch
          .Send(ScriptRun(10, v1::SCRIPT_LANGUAGE_SHELL, "ulimit -n\nulimit -d\nulimit -f\n", ""))
          ->has_accepted());
  auto result = logs_.WaitForResult(10, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200) << result->handle_message();
  std::vector<v1::LogLine> lines = logs_.lines(10);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text(), "1024");
  // The others are the executor's own, as the shell prints them.
  auto shown = [](int resource, rlim_t unit) {
    struct rlimit l;
    ::getrlimit(resource, &l);
    return l.rlim_cur == RLIM_INFINITY ? std::string("unlimited")
                                       : std::to_string(l.rlim_cur / unit);
  };
  EXPECT_EQ(lines[1].text(), shown(RLIMIT_DATA, 1024));
  EXPECT_EQ(lines[2].text(), shown(RLIMIT_FSIZE, 512));  // ulimit -f counts 512-byte blocks in sh
}

TEST_F(ScriptsTest, PythonScriptExitCodeDecides) {
  auto executor = StartScripting();
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch
                  .Send(ScriptRun(2, v1::SCRIPT_LANGUAGE_PYTHON,
                                  "import sys\nprint('py', sys.argv[1:])\nsys.exit(3)\n", "x"))
                  ->has_accepted());
  auto result = logs_.WaitForResult(2, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 500);
  EXPECT_NE(result->handle_message().find("code 3"), std::string::npos);
  ASSERT_TRUE(logs_.WaitForLines(2, 1, kTestWait));
  EXPECT_EQ(logs_.lines(2)[0].text(), "py ['x', '2', '5']");
}

// An executor that runs scripts is not dumpable (a script of its user cannot
// read its /proc/PID/environ or memory); its scripts are, after their execve.
TEST_F(ScriptsTest, ScriptingExecutorIsNotDumpableButItsScriptsAre) {
  auto executor = StartScripting();
  EXPECT_EQ(::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), 0);
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch
                  .Send(ScriptRun(8, v1::SCRIPT_LANGUAGE_PYTHON,
                                  "import ctypes\n"
                                  "print('dumpable', ctypes.CDLL(None).prctl(3, 0, 0, 0, 0))\n",
                                  ""))
                  ->has_accepted());
  auto result = logs_.WaitForResult(8, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200) << result->handle_message();
  ASSERT_TRUE(logs_.WaitForLines(8, 1, kTestWait));
  EXPECT_EQ(logs_.lines(8)[0].text(), "dumpable 1");  // PR_GET_DUMPABLE is 3
}

TEST_F(ScriptsTest, NodeScriptRunsWithNode) {
  ASSERT_NE(internal::FindOnPath("node"), "")
      << "node is not on PATH (scripts/test's machines have it)";
  auto executor = StartScripting();
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(
      dispatch
          .Send(ScriptRun(
              5, v1::SCRIPT_LANGUAGE_NODEJS,
              "console.log('node', process.argv.slice(2).join(' '));\nprocess.exit(4);\n", "p"))
          ->has_accepted());
  auto result = logs_.WaitForResult(5, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 500);
  EXPECT_NE(result->handle_message().find("code 4"), std::string::npos) << result->handle_message();
  ASSERT_TRUE(logs_.WaitForLines(5, 1, kTestWait));
  EXPECT_EQ(logs_.lines(5)[0].text(), "node p 2 5");
}

TEST_F(ScriptsTest, AMissingInterpreterFailsTheRunNamingItAndTheExecutor) {
  if (!internal::FindOnPath("pwsh").empty())
    GTEST_SKIP() << "pwsh is installed here: nothing is missing";
  auto executor = StartScripting();
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(
      dispatch.Send(ScriptRun(6, v1::SCRIPT_LANGUAGE_POWERSHELL, "Write-Output 'hi'\n", ""))
          ->has_accepted());
  auto result = logs_.WaitForResult(6, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 500);
  char host[256] = {};
  ASSERT_EQ(::gethostname(host, sizeof(host) - 1), 0);
  EXPECT_EQ(
      result->handle_message(),
      absl::StrCat("pwsh (PowerShell 7) is not installed on the executor on host ", host,
                   " (not found on its PATH): install it there, or run this job in a group whose "
                   "executors have it"));
  EXPECT_TRUE(logs_.lines(6).empty());  // Nothing ran.
}

TEST_F(ScriptsTest, KillStopsTheScriptsWholeProcessGroup) {
  auto executor = StartScripting();
  std::string dir = TempDir("kill");
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(
      dispatch
          .Send(ScriptRun(3, v1::SCRIPT_LANGUAGE_SHELL,
                          "sleep 1000 &\necho $! > \"$1.child\"\necho $$ > \"$1.pid\"\nwait\n",
                          dir + "/s"))
          ->has_accepted());
  int shell = ReadPid(dir + "/s.pid", kTestWait);
  int child = ReadPid(dir + "/s.child", kTestWait);
  ASSERT_GT(shell, 0);
  ASSERT_GT(child, 0);
  ASSERT_TRUE(Alive(shell) && Alive(child));
  std::optional<v1::KillResponse> found = dispatch.Kill(3);
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(found->found());
  auto result = logs_.WaitForResult(3, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 503);
  EXPECT_TRUE(WaitGone(shell, kTestWait));
  EXPECT_TRUE(WaitGone(child, kTestWait)) << "background child of the script survived";
}

TEST_F(ScriptsTest, ABackgroundChildDoesNotOutliveAScriptThatExits) {
  auto executor = StartScripting();
  std::string dir = TempDir("background");
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch
                  .Send(ScriptRun(7, v1::SCRIPT_LANGUAGE_SHELL,
                                  "sleep 1000 >/dev/null 2>&1 &\necho $! > \"$1.child\"\nexit 0\n",
                                  dir + "/b"))
                  ->has_accepted());
  auto result = logs_.WaitForResult(7, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200);
  int child = ReadPid(dir + "/b.child", kTestWait);
  ASSERT_GT(child, 0);
  EXPECT_TRUE(WaitGone(child, kTestWait)) << "the script's background child outlived its run";
}

// A child that leaves the script's process group (setsid) or double-forks
// away from it is still collected and killed when the script exits.
TEST_F(ScriptsTest, AChildThatLeftTheGroupDoesNotOutliveAScriptThatExits) {
  auto executor = StartScripting();
  std::string dir = TempDir("setsid");
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch
                  .Send(ScriptRun(8, v1::SCRIPT_LANGUAGE_SHELL,
                                  "setsid sleep 1000 >/dev/null 2>&1 &\n"
                                  "echo $! > \"$1.child\"\n"
                                  "( setsid sh -c 'echo $$ > \"$0.orphan\"; exec sleep 1000' "
                                  "\"$1\" >/dev/null 2>&1 & )\n"
                                  "while [ ! -s \"$1.orphan\" ]; do sleep 0.01; done\n"
                                  "exit 0\n",
                                  dir + "/x"))
                  ->has_accepted());
  auto result = logs_.WaitForResult(8, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200);
  int child = ReadPid(dir + "/x.child", kTestWait);
  int orphan = ReadPid(dir + "/x.orphan", kTestWait);
  ASSERT_GT(child, 0);
  ASSERT_GT(orphan, 0);
  EXPECT_TRUE(WaitGone(child, kTestWait)) << "a setsid child outlived its run";
  EXPECT_TRUE(WaitGone(orphan, kTestWait)) << "a double-forked setsid child outlived its run";
}

// The same when the run is killed while the script still runs.
TEST_F(ScriptsTest, KillReachesAChildThatLeftTheGroup) {
  auto executor = StartScripting();
  std::string dir = TempDir("setsid-kill");
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch
                  .Send(ScriptRun(9, v1::SCRIPT_LANGUAGE_SHELL,
                                  "setsid sleep 1000 >/dev/null 2>&1 &\n"
                                  "echo $! > \"$1.child\"\necho $$ > \"$1.pid\"\nwait\n",
                                  dir + "/k"))
                  ->has_accepted());
  int shell = ReadPid(dir + "/k.pid", kTestWait);
  int child = ReadPid(dir + "/k.child", kTestWait);
  ASSERT_GT(shell, 0);
  ASSERT_GT(child, 0);
  std::optional<v1::KillResponse> found = dispatch.Kill(9);
  ASSERT_TRUE(found.has_value());
  EXPECT_TRUE(found->found());
  auto result = logs_.WaitForResult(9, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_TRUE(WaitGone(shell, kTestWait));
  EXPECT_TRUE(WaitGone(child, kTestWait)) << "a setsid child survived the kill";
}

TEST_F(ScriptsTest, ScriptIgnoringSigtermIsKilledAfterTheGraceAndTimesOut) {
  auto executor = StartScripting();
  std::string dir = TempDir("term");
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(
      dispatch
          .Send(ScriptRun(4, v1::SCRIPT_LANGUAGE_SHELL,
                          "trap '' TERM\necho $$ > \"$1.pid\"\nwhile true; do sleep 0.05; done\n",
                          dir + "/t", absl::Milliseconds(300)))
          ->has_accepted());
  int shell = ReadPid(dir + "/t.pid", kTestWait);
  ASSERT_GT(shell, 0);
  auto result = logs_.WaitForResult(4, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 502);
  EXPECT_TRUE(WaitGone(shell, kTestWait));
}

// RunProcess for handlers: ProcessOptions::env reaches the child (and never
// a GNOMON_ name), ProcessOptions::timeout stops its process group.
TEST_F(ScriptsTest, RunProcessSetsExtraEnvironmentAndStopsAtItsTimeout) {
  std::string dir = TempDir("process");
  // Written by the handlers' threads, read here once their results are in
  // (results travel through the spool and gRPC, which TSan cannot see as
  // ordering): under a lock.
  struct Outcomes {
    absl::Mutex mu;
    absl::StatusOr<int> env_exit ABSL_GUARDED_BY(mu),
        gnomon_exit ABSL_GUARDED_BY(mu), slow_exit ABSL_GUARDED_BY(mu);
    absl::Duration slow_took ABSL_GUARDED_BY(mu);
  } out;
  auto executor = StartExecutor(Options(), [&](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("env", [&](JobContext& ctx) {
                   ProcessOptions options;
                   options.env = {{"JOB_COLOUR", "teal"}, {"HOME", "/nonexistent-home"}};
                   absl::StatusOr<int> env_exit = RunProcess(
                       ctx, {"/bin/sh", "-c", "echo colour=$JOB_COLOUR home=$HOME"}, options);
                   options.env = {{"GNOMON_ACCESS_TOKEN", "x"}};
                   absl::StatusOr<int> gnomon_exit = RunProcess(ctx, {"/bin/true"}, options);
                   absl::MutexLock l(&out.mu);
                   out.env_exit = std::move(env_exit);
                   out.gnomon_exit = std::move(gnomon_exit);
                 }).ok());
    ASSERT_TRUE(e.RegisterHandler("slow", [&](JobContext& ctx) {
                   ProcessOptions options;
                   options.timeout = absl::Milliseconds(200);
                   options.kill_grace = absl::Milliseconds(200);
                   const absl::Time start = absl::Now();
                   absl::StatusOr<int> slow_exit =
                       RunProcess(ctx,
                                  {"/bin/sh", "-c",
                                   "trap '' TERM; echo $$ > \"$0\"; while :; do sleep 0.05; done",
                                   dir + "/slow.pid"},
                                  options);
                   absl::MutexLock l(&out.mu);
                   out.slow_took = absl::Now() - start;
                   out.slow_exit = std::move(slow_exit);
                 }).ok());
  });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(21, 21, "env"))->has_accepted());
  auto result = logs_.WaitForResult(21, kTestWait);
  ASSERT_TRUE(result);
  {
    absl::MutexLock l(&out.mu);
    ASSERT_TRUE(out.env_exit.ok()) << out.env_exit.status();
    EXPECT_EQ(*out.env_exit, 0);
    EXPECT_TRUE(absl::IsInvalidArgument(out.gnomon_exit.status())) << out.gnomon_exit.status();
  }
  std::string log;
  for (const v1::LogLine& line : logs_.lines(21)) absl::StrAppend(&log, line.text(), "\n");
  EXPECT_NE(log.find("colour=teal home=/nonexistent-home"), std::string::npos) << log;

  ASSERT_TRUE(dispatch.Send(BeanRun(22, 22, "slow"))->has_accepted());
  result = logs_.WaitForResult(22, kTestWait);
  ASSERT_TRUE(result);
  {
    absl::MutexLock l(&out.mu);
    EXPECT_TRUE(absl::IsDeadlineExceeded(out.slow_exit.status())) << out.slow_exit.status();
    EXPECT_GE(out.slow_took, absl::Milliseconds(200));
  }
  int shell = ReadPid(dir + "/slow.pid", kTestWait);
  ASSERT_GT(shell, 0);
  EXPECT_TRUE(WaitGone(shell, kTestWait)) << "a SIGTERM-deaf child outlived its timeout";
}

class RunLogTest : public SdkTest {};

TEST_F(RunLogTest, TheLocalFileHoldsTheRunsLinesAndOldFilesArePruned) {
  std::string dir = TempDir("runlogs");
  // An old file is pruned at start; a fresh one stays.
  std::ofstream(dir + "/5.log") << "1\t0\told\n";
  std::ofstream(dir + "/6.log") << "1\t0\tfresh\n";
  struct utimbuf old_times = {std::time(nullptr) - 10 * 86400, std::time(nullptr) - 10 * 86400};
  ASSERT_EQ(::utime((dir + "/5.log").c_str(), &old_times), 0);

  ExecutorOptions options = Options();
  options.log_dir = dir;
  options.log_retention_days = 7;
  auto executor = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext& ctx) {
                   ctx.Log("one");
                   ctx.Log("two");
                   ctx.Log("three\twith tab");
                 }).ok());
  });
  struct stat st;
  EXPECT_NE(::stat((dir + "/5.log").c_str(), &st), 0);
  EXPECT_EQ(::stat((dir + "/6.log").c_str(), &st), 0);

  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(77, 1, "demo"))->has_accepted());
  ASSERT_TRUE(logs_.WaitForResult(77, kTestWait));

  // The file the executor wrote, read back from a line.
  internal::Logger logger;
  internal::RunLogFiles files(dir, 16 << 20, /*retention_days=*/7, &logger);
  std::vector<v1::LogLine> lines;
  ASSERT_TRUE(files
                  .Read(77, /*from_line=*/2,
                        [&](const v1::LogLine& line) {
                          lines.push_back(line);
                          return true;
                        })
                  .ok());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].line_number(), 2);
  EXPECT_EQ(lines[0].text(), "two");
  EXPECT_EQ(lines[1].text(), "three\twith tab");
  EXPECT_TRUE(absl::IsNotFound(files.Read(78, 1, [](const v1::LogLine&) { return true; })));
}

TEST_F(RunLogTest, LocalFileIsBounded) {
  std::string dir = TempDir("bounded");
  ExecutorOptions options = Options();
  options.log_dir = dir;
  options.max_log_file_bytes = 200;
  auto executor = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("chatty", [](JobContext& ctx) {
                   for (int i = 0; i < 100; ++i)
                     ctx.Log("a fairly long log line number " + std::to_string(i));
                 }).ok());
  });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 1, "chatty"))->has_accepted());
  ASSERT_TRUE(logs_.WaitForResult(1, kTestWait));
  std::string text = ReadFile(dir + "/1.log");
  EXPECT_LT(text.size(), 400u);
  EXPECT_NE(text.find("truncated"), std::string::npos);
  // The log service still got every line.
  EXPECT_EQ(logs_.lines(1).size(), 100u);
}

}  // namespace
}  // namespace gnomon::executor

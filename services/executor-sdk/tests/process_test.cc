// Tests with the real gnomon-sample-executor process: a crash with results in
// the spool, a log-service outage, timeouts of a deaf handler, and graceful
// SIGTERM. The registry, log service and Dispatch service are in-process fakes.
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/executor-sdk/src/run_spool.h"
#include "services/executor-sdk/tests/test_env.h"

extern char** environ;

namespace gnomon::executor {
namespace {

using testing::BeanRun;
using testing::DispatchClient;
using testing::FakeLogService;
using testing::TestServer;

// One gnomon-sample-executor child process.
class SampleExecutor {
 public:
  explicit SampleExecutor(const std::vector<std::string>& flags) {
    std::vector<std::string> args = {GNOMON_SAMPLE_EXECUTOR, "--token", kTestToken, "--app",
                                     kTestApp};
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    EXPECT_EQ(::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    out_ = fds[0];
  }
  ~SampleExecutor() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(out_);
  }

  // Reads stdout until the "started as NAME" line; returns NAME.
  std::string WaitStarted(absl::Duration timeout) {
    absl::Time deadline = absl::Now() + timeout;
    std::string text;
    const std::string marker = "gnomon-sample-executor started as ";
    while (absl::Now() < deadline) {
      struct pollfd p = {out_, POLLIN, 0};
      int ms = static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()));
      if (::poll(&p, 1, std::max(ms, 1)) <= 0) continue;
      char buf[256];
      ssize_t n = ::read(out_, buf, sizeof buf);
      if (n <= 0) return "";
      text.append(buf, static_cast<size_t>(n));
      size_t at = text.find(marker);
      size_t nl = at == std::string::npos ? at : text.find('\n', at);
      if (nl != std::string::npos) return text.substr(at + marker.size(), nl - at - marker.size());
    }
    return "";
  }
  // Sends `sig` and returns the exit status.
  int Stop(int sig) {
    ::kill(pid_, sig);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
};

int CountItems(const std::string& dir) {
  return static_cast<int>(internal::RunSpool::CountRecords(dir));
}

class ProcessTest : public SdkTest {
 protected:
  ProcessTest() : log_only_(kTestToken, kTestApp) {}
  FakeLogService log_only_;
};

TEST_F(ProcessTest, ResultsSurviveAnExecutorCrashAndReachTheLogServiceAfterRestart) {
  std::string spool = TempDir("crash-spool");
  auto placeholder = std::make_unique<TestServer>(std::vector<grpc::Service*>{&log_only_});
  int log_port = placeholder->port();
  std::string log_address = placeholder->address();
  placeholder->Stop();  // the log service is down
  std::vector<std::string> flags = {"--registry", server_.address(), "--log-service",
                                    log_address,  "--spool-dir",     spool};
  {
    SampleExecutor first(flags);
    ASSERT_FALSE(first.WaitStarted(kTestWait).empty());
    DispatchClient dispatch(dispatch_);
    ASSERT_TRUE(dispatch.Send(BeanRun(501, 1, "fail"))->has_accepted());
    ASSERT_TRUE(dispatch.Send(BeanRun(502, 2, "demo", "p"))->has_accepted());
    // started + log batch + result for each run, on disk.
    absl::Time deadline = absl::Now() + kTestWait;
    while (CountItems(spool) < 6 && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(10));
    ASSERT_GE(CountItems(spool), 6);
    int status = first.Stop(SIGKILL);  // a crash: no graceful flush
    EXPECT_TRUE(WIFSIGNALED(status));
  }
  TestServer log_server({&log_only_}, log_port);
  SampleExecutor second(flags);
  ASSERT_FALSE(second.WaitStarted(kTestWait).empty());
  auto failed = log_only_.WaitForResult(501, kTestWait);
  auto demo = log_only_.WaitForResult(502, kTestWait);
  ASSERT_TRUE(failed && demo);
  EXPECT_EQ(failed->handle_code(), 500);
  EXPECT_EQ(demo->handle_code(), 200);
  ASSERT_TRUE(log_only_.WaitForLines(502, 3, kTestWait));
  EXPECT_EQ(log_only_.lines(502)[1].text(), "params: p");
  EXPECT_EQ(second.Stop(SIGTERM), 0);
}

TEST_F(ProcessTest, ResultsSurviveALogServiceOutage) {
  auto log_server = std::make_unique<TestServer>(std::vector<grpc::Service*>{&log_only_});
  int log_port = log_server->port();
  SampleExecutor executor({"--registry", server_.address(), "--log-service", log_server->address(),
                           "--spool-dir", TempDir("outage-spool")});
  ASSERT_FALSE(executor.WaitStarted(kTestWait).empty());
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 1, "demo"))->has_accepted());
  ASSERT_TRUE(log_only_.WaitForResult(1, kTestWait));
  log_server->Stop();
  ASSERT_TRUE(dispatch.Send(BeanRun(2, 1, "sharding"))->has_accepted());
  EXPECT_FALSE(log_only_.WaitForResult(2, absl::Milliseconds(500)));
  log_server = std::make_unique<TestServer>(std::vector<grpc::Service*>{&log_only_}, log_port);
  auto result = log_only_.WaitForResult(2, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 200);
  ASSERT_TRUE(log_only_.WaitForLines(2, 1, kTestWait));
  EXPECT_EQ(log_only_.lines(2)[0].text(), "shard 0 of 1");
}

TEST_F(ProcessTest, DeafHandlerTimesOutAndTheJobKeepsRunning) {
  SampleExecutor executor({"--registry", server_.address(), "--cancel-grace", "200ms"});
  ASSERT_FALSE(executor.WaitStarted(kTestWait).empty());
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch
                  .Send(BeanRun(1, 9, "slow", "60000 ignore-cancel",
                                v1::BLOCK_STRATEGY_SERIAL_EXECUTION, absl::Milliseconds(200)))
                  ->has_accepted());
  ASSERT_TRUE(dispatch.Send(BeanRun(2, 9, "slow", "10"))->has_accepted());
  auto timed_out = logs_.WaitForResult(1, kTestWait);
  ASSERT_TRUE(timed_out);
  EXPECT_EQ(timed_out->handle_code(), 502);
  auto next = logs_.WaitForResult(2, kTestWait);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->handle_code(), 200);
  // Graceful stop does not wait for the abandoned handler.
  EXPECT_EQ(executor.Stop(SIGTERM), 0);
}

TEST_F(ProcessTest, SigtermLetsTheRunningRunFinishThenDeregisters) {
  SampleExecutor executor({"--registry", server_.address(), "--name", "sample under test"});
  EXPECT_EQ(executor.WaitStarted(kTestWait), "sample under test");
  ASSERT_TRUE(registry_.WaitForRegistrations(1, kTestWait));
  EXPECT_EQ(registry_.registrations()[0].address(), "sample under test");
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.connected());
  EXPECT_EQ(dispatch_.hellos()[0].executor(), "sample under test");
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 1, "slow", "300"))->has_accepted());
  ASSERT_TRUE(logs_.WaitForStarted(1, kTestWait));
  EXPECT_EQ(executor.Stop(SIGTERM), 0);
  auto result = logs_.WaitForResult(1, absl::ZeroDuration());
  ASSERT_TRUE(result) << "result flushed before exit";
  EXPECT_EQ(result->handle_code(), 200);
  EXPECT_TRUE(registry_.WaitForDeregistrations(1, absl::ZeroDuration()));
}

}  // namespace
}  // namespace gnomon::executor

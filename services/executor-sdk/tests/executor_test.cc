// End-to-end tests of the executor SDK against in-process fakes of gnomond
// (registry, log service, Dispatch): registration, the scheduler stream,
// dispatch, calls, results and logs, refusals, shutdown, options.
#include "gnomon/executor/executor.h"

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/status/status_matchers.h"
#include "services/executor-sdk/testing/fake_servers.h"

namespace gnomon::executor {
namespace {

using testing::LogLines;

// The documented default pool size: 8 x the CPU count, 16 to 64.
uint32_t DefaultCapacity() {
  return static_cast<uint32_t>(
      std::clamp(8 * static_cast<int>(std::thread::hardware_concurrency()), 16, 64));
}

using testing::BeanRun;
using testing::DispatchClient;
using testing::FakeDispatch;
using testing::FakeLogService;
using testing::FakeRegistry;
using ::testing::HasSubstr;
using testing::TestServer;

constexpr char kToken[] = "test-token-123";
constexpr char kApp[] = "sdk-test";
const absl::Duration kWait = absl::Seconds(20);

class ExecutorTest : public ::testing::Test {
 protected:
  ExecutorTest()
      : registry_(kToken, absl::Milliseconds(200)),
        logs_(kToken, kApp),
        dispatch_(kToken, kApp),
        server_({&registry_, &logs_, &dispatch_}) {}

  ExecutorOptions Options() {
    ExecutorOptions options;
    options.app_name = kApp;
    options.registry_endpoints = {server_.address()};
    options.access_token = kToken;
    options.cancel_grace = absl::Milliseconds(300);
    return options;
  }

  std::unique_ptr<Executor> StartExecutor(ExecutorOptions options,
                                          const std::function<void(Executor&)>& register_handlers) {
    auto executor = Executor::Create(std::move(options));
    EXPECT_TRUE(executor.ok()) << executor.status();
    register_handlers(**executor);
    absl::Status started = (*executor)->Start();
    EXPECT_TRUE(started.ok()) << started;
    return std::move(*executor);
  }

  FakeRegistry registry_;
  FakeLogService logs_;
  FakeDispatch dispatch_;
  TestServer server_;
};

TEST_F(ExecutorTest, CreateValidatesOptions) {
  ExecutorOptions options = Options();
  options.access_token.clear();
  EXPECT_THAT(Executor::Create(options), StatusIs(absl::StatusCode::kInvalidArgument));
  options = Options();
  options.app_name = "bad app";
  EXPECT_THAT(Executor::Create(options), StatusIs(absl::StatusCode::kInvalidArgument));
  options = Options();
  options.registry_endpoints.clear();
  EXPECT_THAT(Executor::Create(options), StatusIs(absl::StatusCode::kInvalidArgument));
  options = Options();
  options.access_token = std::string(kToken) + "\n";  // Read from a file with its newline.
  absl::Status newline = Executor::Create(options).status();
  EXPECT_THAT(newline, StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_NE(newline.message().find("newline"), std::string::npos) << newline;
  options = Options();
  options.executor_name = std::string(256, 'n');
  EXPECT_THAT(Executor::Create(options), StatusIs(absl::StatusCode::kInvalidArgument));
  options.executor_name = "tab\there";
  EXPECT_THAT(Executor::Create(options), StatusIs(absl::StatusCode::kInvalidArgument));
  options.executor_name = std::string(255, 'n');
  EXPECT_TRUE(Executor::Create(options).ok());
}

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }

 private:
  const char* name_;
};

TEST_F(ExecutorTest, OptionsFromEnvironmentReadTheNameAndSchedulersAndRefuseListen) {
  {
    ScopedEnv name("GNOMON_EXECUTOR_NAME", "billing-7");
    ScopedEnv schedulers("GNOMON_SCHEDULERS", "gnomond-0:7070, gnomond-1:7070");
    absl::StatusOr<ExecutorOptions> options = OptionsFromEnvironment();
    ASSERT_TRUE(options.ok()) << options.status();
    EXPECT_EQ(options->executor_name, "billing-7");
    EXPECT_THAT(options->scheduler_endpoints,
                ::testing::ElementsAre("gnomond-0:7070", "gnomond-1:7070"));
  }
  for (const char* removed : {"GNOMON_LISTEN", "GNOMON_ADVERTISE"}) {
    ScopedEnv set(removed, "0.0.0.0:9999");
    absl::Status status = OptionsFromEnvironment().status();
    EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument));
    EXPECT_THAT(status.message(), HasSubstr(removed));
    EXPECT_THAT(status.message(), HasSubstr("executors connect out; use GNOMON_EXECUTOR_NAME"));
  }
}

TEST_F(ExecutorTest, RegisterHandlerRejectsDuplicatesAndLateRegistration) {
  auto executor = Executor::Create(Options());
  ASSERT_TRUE(executor.ok());
  ASSERT_TRUE((*executor)->RegisterHandler("a", [](JobContext&) {}).ok());
  EXPECT_THAT((*executor)->RegisterHandler("a", [](JobContext&) {}),
              StatusIs(absl::StatusCode::kAlreadyExists));
  EXPECT_THAT((*executor)->RegisterHandler("", [](JobContext&) {}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  ASSERT_TRUE((*executor)->Start().ok());
  EXPECT_THAT((*executor)->RegisterHandler("b", [](JobContext&) {}),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST_F(ExecutorTest, RegistersWithHandlersAndBeats) {
  auto executor = StartExecutor(Options(), [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("zeta", [](JobContext&) {}).ok());
    ASSERT_TRUE(e.RegisterHandler("alpha", [](JobContext&) {}).ok());
  });
  ASSERT_TRUE(registry_.WaitForRegistrations(1, kWait));
  v1::Register reg = registry_.registrations()[0];
  EXPECT_EQ(reg.app_name(), kApp);
  // The default name: "<hostname>:<pid>".
  char host[256] = {0};
  ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
  EXPECT_EQ(reg.address(), absl::StrCat(host, ":", ::getpid()));
  EXPECT_EQ(reg.address(), executor->name());
  ASSERT_EQ(reg.handlers_size(), 2);
  EXPECT_EQ(reg.handlers(0), "alpha");
  EXPECT_EQ(reg.handlers(1), "zeta");
  EXPECT_EQ(reg.capacity(), DefaultCapacity());
  EXPECT_TRUE(registry_.WaitForBeats(2, kWait));
  executor->Shutdown(absl::Seconds(5));
  EXPECT_TRUE(registry_.WaitForDeregistrations(1, kWait));
}

TEST_F(ExecutorTest, RunsHandlerAndReportsLinesAndResult) {
  auto executor = StartExecutor(Options(), [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext& ctx) {
                   ctx.Log("hello " + ctx.params());
                   ctx.Log("two\nthree");
                   ctx.SetResult(201, "custom");
                 }).ok());
  });
  DispatchClient dispatch(dispatch_);
  auto response = dispatch.Send(BeanRun(1001, 7, "demo", "world"));
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->run_id(), 1001);
  ASSERT_TRUE(response->has_accepted());

  auto result = logs_.WaitForResult(1001, kWait);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->handle_code(), 201);
  EXPECT_EQ(result->handle_message(), "custom");
  EXPECT_TRUE(logs_.WaitForStarted(1001, kWait));
  std::vector<v1::LogLine> lines = logs_.lines(1001);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].text(), "hello world");
  EXPECT_EQ(lines[0].line_number(), 1);
  EXPECT_EQ(lines[1].text(), "two");
  EXPECT_EQ(lines[2].text(), "three");
  EXPECT_EQ(lines[2].line_number(), 3);
}

// A run's log is sent up to its budget (--max-log-mib-per-run): then one
// line says so, the rest is dropped, and the run's result still arrives.
TEST_F(ExecutorTest, ARunsLogStopsAtItsBudgetWithOneLineSayingSo) {
  ExecutorOptions options = Options();
  options.max_log_mib_per_run = 1;
  auto executor = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("chatty", [](JobContext& ctx) {
                   const std::string kib(1023, 'x');
                   for (int i = 0; i < 3000; ++i) ctx.Log(kib);  // 3 MiB
                 }).ok());
  });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1002, 8, "chatty"))->has_accepted());
  auto result = logs_.WaitForResult(1002, kWait);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->handle_code(), 200);
  std::vector<v1::LogLine> lines = logs_.lines(1002);
  ASSERT_EQ(lines.size(), 1026u);  // 1025 lines of 1023 bytes fit in 1 MiB, then the notice.
  EXPECT_EQ(lines[1024].text(), std::string(1023, 'x'));
  EXPECT_EQ(
      lines[1025].text().rfind("[gnomon] this run's log reached its budget of 1048576 bytes", 0),
      0u)
      << lines[1025].text();
  EXPECT_EQ(lines[1025].line_number(), 1026);
}

TEST_F(ExecutorTest, RunsOfOneDispatchMessageAreAnsweredTogetherInOrder) {
  auto executor = StartExecutor(Options(), [](Executor& e) {
    ASSERT_TRUE(
        e.RegisterHandler("demo", [](JobContext& ctx) { ctx.SetResult(200, ctx.params()); }).ok());
  });
  DispatchClient dispatch(dispatch_);
  auto response = dispatch.SendBatch(
      {BeanRun(2001, 7, "demo", "a"), BeanRun(2002, 8, "nope"), BeanRun(2003, 9, "demo", "c")});
  ASSERT_TRUE(response.has_value());
  ASSERT_EQ(response->answers_size(), 3);
  EXPECT_EQ(response->answers(0).run_id(), 2001);
  EXPECT_TRUE(response->answers(0).has_accepted());
  EXPECT_EQ(response->answers(1).run_id(), 2002);
  ASSERT_TRUE(response->answers(1).has_rejected());
  EXPECT_THAT(response->answers(1).rejected().reason(), HasSubstr("\"nope\""));
  EXPECT_EQ(response->answers(2).run_id(), 2003);
  EXPECT_TRUE(response->answers(2).has_accepted());
  for (auto [run, params] : {std::pair<int64_t, const char*>{2001, "a"}, {2003, "c"}}) {
    auto result = logs_.WaitForResult(run, kWait);
    ASSERT_TRUE(result.has_value()) << run;
    EXPECT_EQ(result->handle_message(), params);
  }
}

TEST_F(ExecutorTest, HandlerWithoutResultSucceedsAndThrowingHandlerFails) {
  auto executor = StartExecutor(Options(), [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("quiet", [](JobContext&) {}).ok());
    ASSERT_TRUE(e.RegisterHandler("throws", [](JobContext&) {
                   throw std::runtime_error("disk on fire");
                 }).ok());
  });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 1, "quiet"))->has_accepted());
  ASSERT_TRUE(dispatch.Send(BeanRun(2, 2, "throws"))->has_accepted());
  auto quiet = logs_.WaitForResult(1, kWait);
  auto thrown = logs_.WaitForResult(2, kWait);
  ASSERT_TRUE(quiet && thrown);
  EXPECT_EQ(quiet->handle_code(), 200);
  EXPECT_EQ(thrown->handle_code(), 500);
  EXPECT_NE(thrown->handle_message().find("disk on fire"), std::string::npos);
}

TEST_F(ExecutorTest, RejectsUnknownHandlerAndScriptsWhenNotAllowed) {
  auto executor = StartExecutor(Options(), [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext&) {}).ok());
  });
  DispatchClient dispatch(dispatch_);
  auto unknown = dispatch.Send(BeanRun(5, 5, "nope"));
  ASSERT_TRUE(unknown && unknown->has_rejected());
  EXPECT_EQ(unknown->rejected().code(), 506);
  EXPECT_NE(unknown->rejected().reason().find("nope"), std::string::npos);

  v1::RunRequest script = BeanRun(6, 6, "");
  script.mutable_script()->set_language(v1::SCRIPT_LANGUAGE_SHELL);
  script.mutable_script()->set_source("echo hi");
  auto refused = dispatch.Send(script);
  ASSERT_TRUE(refused && refused->has_rejected());
  EXPECT_EQ(refused->rejected().code(), 506);
  EXPECT_NE(refused->rejected().reason().find("not allowed"), std::string::npos);
}

TEST_F(ExecutorTest, AStaleFencingEpochIsRefusedPerPartition) {
  auto executor = StartExecutor(Options(), [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext&) {}).ok());
  });
  DispatchClient dispatch(dispatch_);
  auto run = [](int64_t id, int32_t partition, int64_t epoch) {
    v1::RunRequest r = BeanRun(id, id, "demo");
    r.set_fence_partition(partition);
    r.set_fence_epoch(epoch);
    return r;
  };
  ASSERT_TRUE(dispatch.Send(run(1, 3, 5))->has_accepted());  // Partition 3's holder, epoch 5.
  // A deposed holder of partition 3 (epoch 4) cannot start runs there...
  auto stale = dispatch.Send(run(2, 3, 4));
  ASSERT_TRUE(stale && stale->has_rejected());
  EXPECT_EQ(stale->rejected().kind(), v1::REJECT_KIND_STALE_EPOCH);
  EXPECT_THAT(stale->rejected().reason(), HasSubstr("partition 3"));
  // ...epoch 0 (no lease) included; other partitions have their own epochs.
  auto zero = dispatch.Send(run(3, 3, 0));
  ASSERT_TRUE(zero && zero->has_rejected());
  EXPECT_TRUE(dispatch.Send(run(4, 7, 1))->has_accepted());
  EXPECT_TRUE(dispatch.Send(run(5, 3, 6))->has_accepted());  // A newer holder.
  auto older = dispatch.Send(run(6, 3, 5));
  ASSERT_TRUE(older && older->has_rejected());
}

TEST_F(ExecutorTest, ConnectsOutWithHelloAndAnswersCalls) {
  ExecutorOptions options = Options();
  options.executor_name = "billing-7";
  auto executor = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext&) {}).ok());
  });
  EXPECT_EQ(executor->name(), "billing-7");
  ASSERT_TRUE(registry_.WaitForRegistrations(1, kWait));
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.connected());
  // Hello names the executor as registered, with the same instance id.
  v1::Hello hello = dispatch_.hellos()[0];
  EXPECT_EQ(hello.app_name(), kApp);
  EXPECT_EQ(hello.executor(), "billing-7");
  EXPECT_EQ(hello.instance_id(), registry_.registrations()[0].instance_id());
  EXPECT_EQ(registry_.registrations()[0].address(), "billing-7");

  std::optional<v1::BeatResponse> beat = dispatch.Beat();
  ASSERT_TRUE(beat.has_value());
  EXPECT_EQ(beat->capacity(), DefaultCapacity());
  EXPECT_EQ(beat->running_runs(), 0u);
  std::optional<v1::IdleBeatResponse> idle = dispatch.IdleBeat(7);
  ASSERT_TRUE(idle.has_value());
  EXPECT_TRUE(idle->idle());
  std::optional<v1::KillResponse> kill = dispatch.Kill(12345);
  ASSERT_TRUE(kill.has_value());
  EXPECT_FALSE(kill->found());

  // A broken stream is opened again, and carries runs.
  dispatch.Break();
  ASSERT_TRUE(dispatch_.WaitForHellos(2, kWait));
  DispatchClient again(dispatch_);
  auto answer = again.Send(BeanRun(77, 7, "demo"));
  ASSERT_TRUE(answer.has_value());
  EXPECT_TRUE(answer->has_accepted());
  EXPECT_TRUE(logs_.WaitForResult(77, kWait).has_value());

  // Shutdown closes the stream.
  executor->Shutdown(absl::Seconds(5));
  EXPECT_TRUE(dispatch_.WaitForOpenStreams(0, kWait));
}

TEST_F(ExecutorTest, ARefusedBeatIsLoggedWithTheRegistrysReasonNotAsACredentialProblem) {
  LogLines log;
  ExecutorOptions options = Options();
  options.logger = log.sink();
  registry_.RefuseBeats(
      grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "beat.busy_jobs: at most 10000 items"));
  auto executor = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext&) {}).ok());
  });
  ASSERT_TRUE(registry_.WaitForRefusals(1, kWait));
  const std::string line = log.WaitFor(LogSeverity::kError, "refused", kWait);
  EXPECT_THAT(line, HasSubstr(absl::StrCat("refused a message of the session of app \"", kApp,
                                           "\" and ended it: INVALID_ARGUMENT: "
                                           "beat.busy_jobs: at most 10000 items")));
  EXPECT_THAT(line, ::testing::Not(HasSubstr("access token")));
  EXPECT_THAT(line, ::testing::Not(HasSubstr("registration")));
}

TEST_F(ExecutorTest, ARefusedRegistrationIsLoggedWithTheRegistrysReason) {
  LogLines log;
  ExecutorOptions options = Options();
  options.logger = log.sink();
  options.access_token = "not-the-group-token";
  auto executor = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext&) {}).ok());
  });
  const std::string line = log.WaitFor(LogSeverity::kError, "refused the registration", kWait);
  EXPECT_THAT(line, HasSubstr(absl::StrCat("refused the registration of app \"", kApp,
                                           "\": UNAUTHENTICATED: bad access token -- check the "
                                           "app name and access token")));
}

TEST_F(ExecutorTest, WrongTokenIsRefusedByRegistryAndRetried) {
  ExecutorOptions options = Options();
  options.access_token = "not-the-group-token";
  options.reconnect_max = absl::Milliseconds(200);
  auto executor = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext&) {}).ok());
  });
  // Refused, then retried with backoff (the admin may fix the token).
  EXPECT_TRUE(registry_.WaitForRefusals(2, kWait));
  EXPECT_TRUE(registry_.registrations().empty());
  // gnomond refuses the scheduler stream too, which is retried as well.
  EXPECT_TRUE(dispatch_.WaitForRefusals(2, kWait));
  EXPECT_TRUE(dispatch_.hellos().empty());
}

TEST_F(ExecutorTest, ARefusedSchedulerStreamIsLoggedAsAnErrorAndRetried) {
  LogLines log;
  ExecutorOptions options = Options();
  options.logger = log.sink();
  options.reconnect_max = absl::Milliseconds(200);
  dispatch_.Refuse(grpc::Status(grpc::StatusCode::PERMISSION_DENIED, "app is disabled"));
  auto executor = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext&) {}).ok());
  });
  const std::string line = log.WaitFor(LogSeverity::kError, "refused the scheduler stream", kWait);
  EXPECT_THAT(line, HasSubstr(absl::StrCat("refused the scheduler stream of app \"", kApp,
                                           "\": PERMISSION_DENIED: app is disabled -- check the "
                                           "app name and access token")));
  EXPECT_TRUE(dispatch_.WaitForRefusals(2, kWait));
  // Accepted once gnomond accepts it again.
  dispatch_.Refuse(grpc::Status::OK);
  EXPECT_TRUE(dispatch_.WaitForConnected(kWait));
}

}  // namespace
}  // namespace gnomon::executor

// SchedulerConnections against in-process FakeDispatch servers: a stream to
// every resolved address, re-resolution, one stream per replica, reconnects,
// answers and replies, credential refusals, Stop.
#include "services/executor-sdk/src/scheduler_connections.h"

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/executor-sdk/src/channels.h"
#include "services/executor-sdk/src/logger.h"
#include "services/executor-sdk/testing/fake_servers.h"

namespace gnomon::executor::internal {
namespace {

using testing::LogLines;

using testing::DispatchClient;
using testing::FakeDispatch;
using ::testing::HasSubstr;
using testing::TestServer;

constexpr char kToken[] = "connections-token";
constexpr char kApp[] = "connections-app";
constexpr char kEndpoint[] = "gnomond.test:7070";
const absl::Duration kWait = absl::Seconds(20);

// A fake gnomond replica on its own port.
struct Replica {
  explicit Replica(const std::string& id, const std::string& token = kToken)
      : dispatch(token, kApp, id), server({&dispatch}) {}
  FakeDispatch dispatch;
  TestServer server;
};

class SchedulerConnectionsTest : public ::testing::Test {
 protected:
  // The test's DNS: what kEndpoint resolves to now.
  void Resolve(std::vector<std::string> addresses) {
    absl::MutexLock lock(&mu_);
    resolved_ = std::move(addresses);
  }

  std::unique_ptr<SchedulerConnections> Start(std::string token = kToken) {
    SchedulerConnectionsOptions options;
    options.connection.app_name = kApp;
    options.connection.access_token = std::move(token);
    options.connection.scheduler_endpoints = {kEndpoint};
    options.connection.scheduler_resolve_interval = absl::Milliseconds(20);
    options.connection.reconnect_initial = absl::Milliseconds(10);
    options.connection.reconnect_max = absl::Milliseconds(100);
    absl::StatusOr<Dialer> dial = ClientDialer(TlsOptions());
    EXPECT_TRUE(dial.ok());
    options.dial = {*dial};
    options.hello.set_app_name(kApp);
    options.hello.set_executor("exec-1");
    options.hello.set_instance_id("instance-1");
    options.resolve =
        [this](const std::string& endpoint) -> absl::StatusOr<std::vector<std::string>> {
      EXPECT_EQ(endpoint, kEndpoint);
      absl::MutexLock lock(&mu_);
      return resolved_;
    };
    auto connections = std::make_unique<SchedulerConnections>(
        std::move(options),
        [this](const v1::DispatchRequest& request) {
          ++answered_;
          v1::DispatchResponse response;
          for (const v1::RunRequest& run : request.runs()) {
            v1::RunAnswer* answer = response.add_answers();
            answer->set_run_id(run.run_id());
            answer->mutable_accepted()->set_queue_position(7);
          }
          return response;
        },
        [](const v1::Call& call) {
          v1::CallReply reply;
          reply.set_id(call.id());
          if (call.has_beat()) reply.mutable_beat()->set_capacity(42);
          if (call.has_kill()) reply.mutable_kill()->set_found(call.kill().run_id() == 5);
          return reply;
        },
        &logger_);
    connections->Start();
    return connections;
  }

  LogLines log_;
  Logger logger_{log_.sink()};
  std::atomic<int> answered_{0};
  absl::Mutex mu_;
  std::vector<std::string> resolved_ ABSL_GUARDED_BY(mu_);
};

TEST(ResolveEndpointTest, PrefersIpv4AndRefusesAnEndpointWithoutAPort) {
  absl::StatusOr<std::vector<std::string>> localhost = ResolveEndpoint("localhost:7070");
  ASSERT_TRUE(localhost.ok()) << localhost.status();
  EXPECT_THAT(*localhost, ::testing::ElementsAre("127.0.0.1:7070"));
  absl::StatusOr<std::vector<std::string>> v6 = ResolveEndpoint("[::1]:7070");
  ASSERT_TRUE(v6.ok()) << v6.status();
  EXPECT_THAT(*v6, ::testing::ElementsAre("[::1]:7070"));
  EXPECT_EQ(ResolveEndpoint("gnomond").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(EndpointHost("gnomond.ns.svc:7070"), "gnomond.ns.svc");
  EXPECT_EQ(EndpointHost("[::1]:7070"), "::1");
}

TEST_F(SchedulerConnectionsTest, ConnectsToEveryResolvedAddressAndFollowsResolution) {
  Replica a("a"), b("b"), c("c");
  Resolve({a.server.address(), b.server.address()});
  auto connections = Start();
  ASSERT_TRUE(a.dispatch.WaitForConnected(kWait));
  ASSERT_TRUE(b.dispatch.WaitForConnected(kWait));
  v1::Hello hello = a.dispatch.hellos()[0];
  EXPECT_EQ(hello.app_name(), kApp);
  EXPECT_EQ(hello.executor(), "exec-1");
  EXPECT_EQ(hello.instance_id(), "instance-1");

  // A new replica appears, another goes: streams follow the resolution.
  Resolve({b.server.address(), c.server.address()});
  ASSERT_TRUE(c.dispatch.WaitForConnected(kWait));
  EXPECT_TRUE(a.dispatch.WaitForOpenStreams(0, kWait));
  EXPECT_THAT(log_.WaitFor(LogSeverity::kInfo, "is no longer resolved", kWait),
              HasSubstr(a.server.address()));
  EXPECT_THAT(connections->addresses(),
              ::testing::UnorderedElementsAre(b.server.address(), c.server.address()));
  EXPECT_EQ(b.dispatch.hellos().size(), 1u) << "the stream to b stayed open";

  // Every stream carries runs and calls.
  for (FakeDispatch* replica : {&b.dispatch, &c.dispatch}) {
    DispatchClient scheduler(*replica);
    auto answers = scheduler.SendBatch({testing::BeanRun(1, 1, "x"), testing::BeanRun(2, 1, "x")});
    ASSERT_TRUE(answers.has_value());
    ASSERT_EQ(answers->answers_size(), 2);
    EXPECT_EQ(answers->answers(1).run_id(), 2);
    EXPECT_EQ(answers->answers(1).accepted().queue_position(), 7u);
    std::optional<v1::BeatResponse> beat = scheduler.Beat();
    ASSERT_TRUE(beat.has_value());
    EXPECT_EQ(beat->capacity(), 42u);
    std::optional<v1::KillResponse> kill = scheduler.Kill(5);
    ASSERT_TRUE(kill.has_value());
    EXPECT_TRUE(kill->found());
  }
  EXPECT_EQ(answered_.load(), 2);

  connections->Stop();
  EXPECT_TRUE(b.dispatch.WaitForOpenStreams(0, kWait));
  EXPECT_TRUE(c.dispatch.WaitForOpenStreams(0, kWait));
}

TEST_F(SchedulerConnectionsTest, KeepsOneStreamPerReplica) {
  // One replica reachable at two addresses (two servers naming the same replica).
  Replica first("same"), second("same");
  Resolve({first.server.address(), second.server.address()});
  auto connections = Start();
  // One of them is connected; the other stream is ended after Welcome
  // without Hello, again after each backoff.
  const absl::Time deadline = absl::Now() + kWait;
  FakeDispatch* connected = nullptr;
  FakeDispatch* refused = nullptr;
  while (connected == nullptr && absl::Now() < deadline) {
    if (first.dispatch.WaitForConnected(absl::Milliseconds(50))) {
      connected = &first.dispatch;
      refused = &second.dispatch;
    } else if (second.dispatch.WaitForConnected(absl::Milliseconds(50))) {
      connected = &second.dispatch;
      refused = &first.dispatch;
    }
  }
  ASSERT_NE(connected, nullptr);
  EXPECT_TRUE(refused->WaitForStreamsWithoutHello(2, kWait));
  EXPECT_TRUE(refused->hellos().empty());
  EXPECT_EQ(connected->hellos().size(), 1u);
  EXPECT_EQ(connections->connected(), 1);
  EXPECT_THAT(log_.WaitFor(LogSeverity::kInfo, "keeping one stream", kWait),
              HasSubstr("is the replica connected through"));

  // Once that stream is gone, the other address may carry the replica.
  Resolve({refused == &first.dispatch ? first.server.address() : second.server.address()});
  EXPECT_TRUE(refused->WaitForConnected(kWait));
}

TEST_F(SchedulerConnectionsTest, ReconnectsAfterTheStreamBreaks) {
  Replica a("a");
  Resolve({a.server.address()});
  auto connections = Start();
  ASSERT_TRUE(a.dispatch.WaitForConnected(kWait));
  a.dispatch.Break();
  ASSERT_TRUE(a.dispatch.WaitForHellos(2, kWait));
  EXPECT_THAT(log_.WaitFor(LogSeverity::kWarning, "scheduler stream ended", kWait),
              HasSubstr(absl::StrCat(a.server.address(), " (", kEndpoint, "): CANCELLED")));
  DispatchClient scheduler(a.dispatch);
  EXPECT_TRUE(scheduler.Beat().has_value());
}

TEST_F(SchedulerConnectionsTest, ACredentialRefusalIsLoggedAsAnErrorAndRetried) {
  Replica a("a");
  Resolve({a.server.address()});
  auto connections = Start("wrong-token");
  ASSERT_TRUE(a.dispatch.WaitForRefusals(2, kWait));
  EXPECT_TRUE(a.dispatch.hellos().empty());
  EXPECT_THAT(log_.WaitFor(LogSeverity::kError, "refused", kWait),
              HasSubstr(absl::StrCat("refused the scheduler stream of app \"", kApp,
                                     "\": UNAUTHENTICATED: bad access token or app -- check the "
                                     "app name and access token (retrying in")));
  EXPECT_EQ(connections->connected(), 0);
}

TEST_F(SchedulerConnectionsTest, AnEndpointThatFailsToResolveKeepsItsStreams) {
  Replica a("a");
  Resolve({a.server.address()});
  auto connections = Start();
  ASSERT_TRUE(a.dispatch.WaitForConnected(kWait));
  Resolve({});  // "no addresses": a DNS hiccup, not a replica gone.
  EXPECT_THAT(log_.WaitFor(LogSeverity::kWarning, "no addresses", kWait), HasSubstr(kEndpoint));
  EXPECT_EQ(a.dispatch.open_streams(), 1);
  EXPECT_EQ(a.dispatch.hellos().size(), 1u);
}

}  // namespace
}  // namespace gnomon::executor::internal

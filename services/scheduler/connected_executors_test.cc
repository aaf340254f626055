// ConnectedExecutors over a real gRPC server (port 0) and a real SQLite
// store: executors connect out, and runs and calls travel on their streams.
// The "executors" here are test threads holding Dispatch.Connect streams.
#include "services/scheduler/connected_executors.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/server/stream_credentials.h"
#include "services/common/store/testing/temp_store.h"

namespace gnomon::scheduler {
namespace {

constexpr char kApp[] = "billing";
constexpr char kToken[] = "billing-token-123";

using Stream = grpc::ClientReaderWriter<v1::ConnectRequest, v1::ConnectResponse>;

v1::RunRequest RunOf(int64_t id) {
  v1::RunRequest r;
  r.set_run_id(id);
  r.set_job_id(7);
  r.mutable_bean()->set_handler("invoice");
  return r;
}

// What a callback got, for the test thread to wait on.
class Outcome {
 public:
  DispatchCallback Callback() {
    return [this](absl::StatusOr<v1::RunAnswer> r) {
      absl::MutexLock l(&mu_);
      result_ = std::move(r);
    };
  }
  absl::StatusOr<v1::RunAnswer> Wait() {
    absl::MutexLock l(&mu_);
    auto done = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return result_.has_value(); };
    EXPECT_TRUE(mu_.AwaitWithTimeout(absl::Condition(&done), absl::Seconds(30)));
    return result_.value_or(absl::DeadlineExceededError("no outcome"));
  }

 private:
  absl::Mutex mu_;
  std::optional<absl::StatusOr<v1::RunAnswer>> result_ ABSL_GUARDED_BY(mu_);
};

class ConnectedExecutorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    ASSERT_TRUE(store_.AddGroup(kApp, kToken, RealClock().NowMillis()).ok());
    ASSERT_TRUE(store_.AddGroup("other", "other-token-456", RealClock().NowMillis()).ok());
    auth_ = std::make_unique<Authenticator>(store_.get(), store_.get(), "");
    executors_ = std::make_unique<ConnectedExecutors>(
        auth_.get(), ConnectedExecutorsOptions{.replica_id = "replica-a",
                                               .answer_timeout = absl::Seconds(5),
                                               .connect_wait = absl::Milliseconds(300)});
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(executors_->service());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    executors_->Start();
    stub_ = v1::Dispatch::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", port_), grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    executors_->CloseAll();
    server_->Shutdown(std::chrono::system_clock::now());
  }

  struct Connection {
    grpc::ClientContext context;
    std::unique_ptr<Stream> stream;
  };
  // Opens a stream as `app` with `token` (no Hello yet).
  std::unique_ptr<Connection> Open(const std::string& app = kApp,
                                   const std::string& token = kToken) {
    auto c = std::make_unique<Connection>();
    c->context.AddMetadata(std::string(kAppNameKey), app);
    c->context.AddMetadata(std::string(kAccessTokenKey), token);
    c->stream = stub_->Connect(&c->context);
    return c;
  }
  // Opens a stream, reads Welcome, says Hello as `name`; waits until attached.
  std::unique_ptr<Connection> Connect(const std::string& name, const std::string& app = kApp,
                                      const std::string& token = kToken) {
    std::unique_ptr<Connection> c = Open(app, token);
    v1::ConnectResponse welcome;
    EXPECT_TRUE(c->stream->Read(&welcome));
    EXPECT_EQ(welcome.welcome().replica_id(), "replica-a");
    v1::ConnectRequest hello;
    hello.mutable_hello()->set_app_name(app);
    hello.mutable_hello()->set_executor(name);
    hello.mutable_hello()->set_instance_id("i-1");
    EXPECT_TRUE(c->stream->Write(hello));
    v1::ExecutorInfo e;
    e.set_app_name(app);
    e.set_address(name);
    EXPECT_TRUE(executors_->AwaitConnected({e}, absl::Now() + absl::Seconds(30)).empty());
    return c;
  }
  // Answers the next runs message on `c`: accepted for each.
  static std::vector<int64_t> AcceptNext(Connection& c) {
    v1::ConnectResponse in;
    std::vector<int64_t> ids;
    if (!c.stream->Read(&in) || !in.has_runs()) return ids;
    v1::ConnectRequest out;
    for (const v1::RunRequest& r : in.runs().runs()) {
      ids.push_back(r.run_id());
      v1::RunAnswer* a = out.mutable_answers()->add_answers();
      a->set_run_id(r.run_id());
      a->mutable_accepted();
    }
    c.stream->Write(out);
    return ids;
  }

  store::testing::TempStore store_;
  std::unique_ptr<Authenticator> auth_;
  std::unique_ptr<ConnectedExecutors> executors_;
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::Dispatch::Stub> stub_;
};

TEST_F(ConnectedExecutorsTest, AStreamWithoutTheGroupsTokenIsRefused) {
  std::unique_ptr<Connection> c = Open(kApp, "wrong-token");
  v1::ConnectResponse in;
  EXPECT_FALSE(c->stream->Read(&in));
  EXPECT_EQ(c->stream->Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
}

TEST_F(ConnectedExecutorsTest, AHelloForAnotherAppIsRefusedNamingTheField) {
  std::unique_ptr<Connection> c = Open();
  v1::ConnectResponse welcome;
  ASSERT_TRUE(c->stream->Read(&welcome));
  v1::ConnectRequest hello;
  hello.mutable_hello()->set_app_name("other");
  hello.mutable_hello()->set_executor("e:1");
  c->stream->Write(hello);
  v1::ConnectResponse in;
  EXPECT_FALSE(c->stream->Read(&in));
  grpc::Status s = c->stream->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(s.error_message().rfind("hello.app_name: ", 0), 0u) << s.error_message();
  EXPECT_FALSE(executors_->Connected("e:1", "other"));
}

TEST_F(ConnectedExecutorsTest, RunsTravelOnTheExecutorsStreamAndAnswersComeBack) {
  std::unique_ptr<Connection> c = Connect("e:1");
  Outcome first, second;
  executors_->Send("e:1", kApp, RunOf(1), first.Callback());
  std::vector<int64_t> ids = AcceptNext(*c);
  executors_->Send("e:1", kApp, RunOf(2), second.Callback());
  if (ids.size() < 2) {
    for (int64_t id : AcceptNext(*c)) ids.push_back(id);
  }
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 2}));
  ASSERT_TRUE(first.Wait().ok());
  EXPECT_TRUE(first.Wait()->has_accepted());
  ASSERT_TRUE(second.Wait().ok());
  EXPECT_TRUE(executors_->AwaitAnswered(absl::Seconds(5)));
}

TEST_F(ConnectedExecutorsTest, ARunQueuedBeforeTheExecutorConnectsIsSentOnceItDoes) {
  Outcome outcome;
  executors_->Send("e:1", kApp, RunOf(1), outcome.Callback());
  std::unique_ptr<Connection> c = Connect("e:1");
  EXPECT_EQ(AcceptNext(*c), std::vector<int64_t>{1});
  ASSERT_TRUE(outcome.Wait().ok());
}

TEST_F(ConnectedExecutorsTest, ARunForAnExecutorThatNeverConnectsFailsUnavailable) {
  Outcome outcome;
  executors_->Send("nobody:1", kApp, RunOf(1), outcome.Callback());
  absl::StatusOr<v1::RunAnswer> r = outcome.Wait();
  EXPECT_TRUE(absl::IsUnavailable(r.status())) << r.status();
  EXPECT_NE(r.status().message().find("not connected to replica replica-a"), std::string::npos);
}

TEST_F(ConnectedExecutorsTest, AnotherAppsExecutorOfTheSameNameGetsNothing) {
  std::unique_ptr<Connection> c = Connect("e:1", "other", "other-token-456");
  Outcome outcome;
  executors_->Send("e:1", kApp, RunOf(1), outcome.Callback());
  EXPECT_TRUE(absl::IsUnavailable(outcome.Wait().status()));
}

TEST_F(ConnectedExecutorsTest, ARunSentOnAStreamThatBreaksIsUnknown) {
  std::unique_ptr<Connection> c = Connect("e:1");
  Outcome outcome;
  executors_->Send("e:1", kApp, RunOf(1), outcome.Callback());
  v1::ConnectResponse in;
  ASSERT_TRUE(c->stream->Read(&in));  // Sent; never answered.
  c->context.TryCancel();
  absl::StatusOr<v1::RunAnswer> r = outcome.Wait();
  EXPECT_TRUE(absl::IsUnknown(r.status())) << r.status();
  c->stream->Finish();
}

TEST_F(ConnectedExecutorsTest, CallsAreAnsweredOverTheStream) {
  std::unique_ptr<Connection> c = Connect("e:1");
  std::thread executor([&] {
    v1::ConnectResponse in;
    while (c->stream->Read(&in)) {
      if (!in.has_call()) continue;
      v1::ConnectRequest out;
      out.mutable_reply()->set_id(in.call().id());
      if (in.call().has_beat()) out.mutable_reply()->mutable_beat()->set_capacity(8);
      if (in.call().has_idle_beat()) {
        out.mutable_reply()->mutable_idle_beat()->set_idle(in.call().idle_beat().job_id() == 7);
      }
      if (in.call().has_kill()) out.mutable_reply()->mutable_kill()->set_found(true);
      c->stream->Write(out);
    }
  });
  EXPECT_TRUE(executors_->Beat("e:1", kApp, absl::Seconds(10)));
  EXPECT_TRUE(executors_->Idle("e:1", kApp, 7, absl::Seconds(10)));
  EXPECT_FALSE(executors_->Idle("e:1", kApp, 8, absl::Seconds(10)));
  v1::KillRequest kill;
  kill.set_run_id(5);
  absl::StatusOr<v1::KillResponse> killed = executors_->Kill("e:1", kApp, kill, absl::Seconds(10));
  ASSERT_TRUE(killed.ok()) << killed.status();
  EXPECT_TRUE(killed->found());
  EXPECT_FALSE(executors_->Beat("nobody:1", kApp, absl::Milliseconds(200)));
  c->context.TryCancel();
  executor.join();
  c->stream->Finish();
}

TEST_F(ConnectedExecutorsTest, AReconnectingExecutorsNewStreamReplacesItsOldOne) {
  std::unique_ptr<Connection> old = Connect("e:1");
  std::unique_ptr<Connection> fresh = Connect("e:1");
  v1::ConnectResponse in;
  EXPECT_FALSE(old->stream->Read(&in));
  EXPECT_EQ(old->stream->Finish().error_code(), grpc::StatusCode::ALREADY_EXISTS);
  Outcome outcome;
  executors_->Send("e:1", kApp, RunOf(1), outcome.Callback());
  EXPECT_EQ(AcceptNext(*fresh), std::vector<int64_t>{1});
  EXPECT_TRUE(outcome.Wait().ok());
}

TEST_F(ConnectedExecutorsTest, CloseAllEndsEveryStreamAndRefusesNewOnes) {
  std::unique_ptr<Connection> c = Connect("e:1");
  executors_->CloseAll();
  v1::ConnectResponse in;
  EXPECT_FALSE(c->stream->Read(&in));
  EXPECT_EQ(c->stream->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
  std::unique_ptr<Connection> late = Open();
  EXPECT_FALSE(late->stream->Read(&in));
  EXPECT_EQ(late->stream->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
  Outcome outcome;
  executors_->Send("e:1", kApp, RunOf(1), outcome.Callback());
  EXPECT_TRUE(absl::IsUnavailable(outcome.Wait().status()));
}

// A group token rotated out ends its executors' streams at the next
// credential check (every kGroupRecheck), and nothing more is sent on them.
TEST(ConnectedExecutorsRecheckTest, AStreamWhoseTokenWasRotatedOutEnds) {
  store::testing::TempStore store;
  ASSERT_TRUE(store.status().ok()) << store.status();
  SimulatedClock clock(absl::FromUnixMillis(1'800'000'000'000));
  absl::StatusOr<v1::Group> group = store.AddGroup(kApp, kToken, clock.NowMillis());
  ASSERT_TRUE(group.ok()) << group.status();
  Authenticator auth(store.get(), store.get(), "");
  ConnectedExecutors executors(&auth, {.replica_id = "replica-a"}, &clock);
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(executors.service());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  executors.Start();
  auto stub = v1::Dispatch::NewStub(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.AddMetadata(std::string(kAppNameKey), kApp);
  ctx.AddMetadata(std::string(kAccessTokenKey), kToken);
  std::unique_ptr<Stream> stream = stub->Connect(&ctx);
  v1::ConnectResponse in;
  ASSERT_TRUE(stream->Read(&in));
  v1::ConnectRequest hello;
  hello.mutable_hello()->set_app_name(kApp);
  hello.mutable_hello()->set_executor("e:1");
  ASSERT_TRUE(stream->Write(hello));
  ASSERT_TRUE(executors
                  .AwaitConnected({[] {
                                    v1::ExecutorInfo e;
                                    e.set_app_name(kApp);
                                    e.set_address("e:1");
                                    return e;
                                  }()},
                                  absl::Now() + absl::Seconds(30))
                  .empty());

  v1::Group rotated = *group;
  rotated.set_access_token("a-new-token-789");
  ASSERT_TRUE(store->UpdateGroup(rotated, clock.NowMillis()).ok());
  clock.BlockUntilWaiters(1);                       // The sweeper waits for its next pass...
  clock.Advance(kGroupRecheck + absl::Seconds(1));  // ...which checks the credentials.
  EXPECT_FALSE(stream->Read(&in));
  EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_FALSE(executors.Connected("e:1", kApp));
  executors.CloseAll();
  server->Shutdown(std::chrono::system_clock::now());
}

}  // namespace
}  // namespace gnomon::scheduler

// Registry.Session over a real gRPC server (port 0) and a real SQLite store:
// what a beat may carry. A beat of an executor in a top-of-the-hour burst
// (25,000 busy jobs: 1,000 listed, the rest counted) is accepted, its session
// stays, and its membership shows the totals with a list kept bounded. A
// message over a protocol limit is refused INVALID_ARGUMENT naming the field
// and the limit, and ends that session. Sessions are served without a
// thread each: hundreds of executors stay registered and beating against a
// server allowed 16 threads, and a newer registration of an executor ends
// its older session.
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/resource_quota.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/client/clock.h"
#include "services/common/server/authenticator.h"
#include "services/common/store/testing/temp_store.h"
#include "services/registry/registry_core.h"
#include "services/registry/registry_service.h"

namespace gnomon::registry {
namespace {

constexpr char kApp[] = "billing";
constexpr char kToken[] = "billing-token-123";
constexpr char kAddress[] = "10.0.0.7:9999";

// A beat listing `listed` busy jobs (one queued run each, job ids from 1)
// and saying `busy` jobs and `queued` runs in all (0: leaves the totals
// unset, as executors older than them do).
v1::SessionRequest BurstBeat(int listed, uint32_t busy, uint32_t queued) {
  v1::SessionRequest req;
  v1::Beat* beat = req.mutable_beat();
  for (int i = 0; i < listed; ++i) {
    v1::JobBusy* b = beat->add_busy_jobs();
    b->set_job_id(i + 1);
    b->set_queued(1);
  }
  beat->set_busy_job_count(busy);
  beat->set_queued_runs(queued);
  beat->set_running_runs(8);
  return req;
}

class RegistrySessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store_.status().ok()) << store_.status();
    ASSERT_TRUE(store_.AddGroup(kApp, kToken, clock_.NowMillis()).ok());
    RegistryOptions options;
    options.remote_refresh = absl::ZeroDuration();
    options.persist_interval = absl::ZeroDuration();  // Every beat reaches the store.
    core_ = std::make_unique<RegistryCore>(store_.get(), &clock_, options);
    auth_ = std::make_unique<Authenticator>(store_.get(), store_.get(), "");
    service_ = std::make_unique<RegistryService>(core_.get(), auth_.get(), store_.get());
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    if (max_threads_ > 0) {
      grpc::ResourceQuota quota("registry_session_test");
      quota.SetMaxThreads(max_threads_);
      builder.SetResourceQuota(quota);
    }
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    stub_ = v1::Registry::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    if (stream_ != nullptr) {
      context_.TryCancel();
      stream_->Finish();
    }
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
    core_->Stop();
  }

  static v1::SessionRequest Registration(const std::string& address) {
    v1::SessionRequest reg;
    reg.mutable_register_()->set_app_name(kApp);
    reg.mutable_register_()->set_address(address);
    reg.mutable_register_()->add_handlers("noop");
    return reg;
  }
  static void AddCredentials(grpc::ClientContext& context) {
    context.AddMetadata(std::string(kAppNameKey), kApp);
    context.AddMetadata(std::string(kAccessTokenKey), kToken);
  }
  // Opens a session and registers; the stream is ready for beats.
  void Register() {
    AddCredentials(context_);
    stream_ = stub_->Session(&context_);
    ASSERT_TRUE(stream_->Write(Registration(kAddress)));
    v1::SessionResponse registered;
    ASSERT_TRUE(stream_->Read(&registered));
    ASSERT_TRUE(registered.has_registered());
  }
  // Sends `beat`; true if it was acknowledged.
  bool Beat(const v1::SessionRequest& beat) {
    v1::SessionResponse ack;
    return stream_->Write(beat) && stream_->Read(&ack) && ack.has_beat_ack();
  }
  // The executor as schedulers see it (nullopt: not a member).
  std::optional<v1::ExecutorInfo> Member() {
    std::shared_ptr<Watcher> watch = core_->Watch({kApp});
    std::optional<v1::WatchExecutorsResponse> snapshot = watch->Next(absl::Seconds(10));
    watch->Close();
    if (!snapshot || snapshot->snapshot().executors_size() == 0) return std::nullopt;
    return snapshot->snapshot().executors(0);
  }
  // How many executors schedulers see.
  int MemberCount() {
    std::shared_ptr<Watcher> watch = core_->Watch({kApp});
    std::optional<v1::WatchExecutorsResponse> snapshot = watch->Next(absl::Seconds(10));
    watch->Close();
    return snapshot ? snapshot->snapshot().executors_size() : -1;
  }
  // Its row in the store, as other registry replicas read it.
  std::optional<v1::ExecutorInfo> Row() {
    absl::StatusOr<std::vector<v1::ExecutorInfo>> rows = store_->ListExecutors();
    EXPECT_TRUE(rows.ok()) << rows.status();
    if (!rows.ok() || rows->empty()) return std::nullopt;
    return rows->front();
  }

  int max_threads_ = 0;  // The server's thread quota (0: gRPC's default).
  SimulatedClock clock_{absl::FromUnixSeconds(1'800'000'000)};
  store::testing::TempStore store_;
  std::unique_ptr<RegistryCore> core_;
  std::unique_ptr<Authenticator> auth_;
  std::unique_ptr<RegistryService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::Registry::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::SessionRequest, v1::SessionResponse>> stream_;
};

TEST_F(RegistrySessionTest, ABurstBeatIsAcceptedAndTheMemberShowsItsTotals) {
  ASSERT_NO_FATAL_FAILURE(Register());
  // What the SDK sends with 25,000 jobs busy: the 1,000 most loaded, and totals.
  ASSERT_TRUE(Beat(BurstBeat(kBusyJobsKept, 25000, 24992)));
  std::optional<v1::ExecutorInfo> member = Member();
  ASSERT_TRUE(member.has_value());
  EXPECT_EQ(member->busy_job_count(), 25000u);
  EXPECT_EQ(member->queued_runs(), 24992u);
  EXPECT_EQ(member->running_runs(), 8u);
  EXPECT_TRUE(member->busy_jobs_partial());
  ASSERT_EQ(member->busy_jobs_size(), kBusyJobsKept);
  EXPECT_EQ(member->busy_jobs(0).job_id(), 1);
  std::optional<v1::ExecutorInfo> row = Row();
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->busy_job_count(), 25000u);
  EXPECT_EQ(row->busy_jobs_size(), kBusyJobsKept);

  // The session stays: the burst drains and later beats are acknowledged.
  ASSERT_TRUE(Beat(BurstBeat(3, 3, 3)));
  member = Member();
  ASSERT_TRUE(member.has_value());
  EXPECT_EQ(member->busy_job_count(), 3u);
  EXPECT_EQ(member->busy_jobs_size(), 3);
  EXPECT_FALSE(member->busy_jobs_partial());
}

TEST_F(RegistrySessionTest, AnOlderExecutorListingEveryBusyJobIsKeptBounded) {
  ASSERT_NO_FATAL_FAILURE(Register());
  // No totals, 10,000 jobs listed (the protocol maximum): accepted, counted,
  // and kept to the first kBusyJobsKept in membership and in the store.
  ASSERT_TRUE(Beat(BurstBeat(10000, 0, 0)));
  std::optional<v1::ExecutorInfo> member = Member();
  ASSERT_TRUE(member.has_value());
  EXPECT_EQ(member->busy_job_count(), 10000u);
  EXPECT_EQ(member->queued_runs(), 10000u);
  EXPECT_TRUE(member->busy_jobs_partial());
  ASSERT_EQ(member->busy_jobs_size(), kBusyJobsKept);
  EXPECT_EQ(member->busy_jobs(kBusyJobsKept - 1).job_id(), kBusyJobsKept);
  std::optional<v1::ExecutorInfo> row = Row();
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->busy_jobs_size(), kBusyJobsKept);
  EXPECT_LT(row->ByteSizeLong(), 16u << 10);
}

TEST_F(RegistrySessionTest, ABeatOverTheProtocolLimitIsRefusedNamingTheFieldAndTheLimit) {
  ASSERT_NO_FATAL_FAILURE(Register());
  ASSERT_TRUE(stream_->Write(BurstBeat(10001, 10001, 10001)));
  v1::SessionResponse response;
  EXPECT_FALSE(stream_->Read(&response));
  grpc::Status status = stream_->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "beat.busy_jobs: at most 10000 items");
  stream_.reset();
  EXPECT_FALSE(Member().has_value());  // Its session ended.
}

TEST_F(RegistrySessionTest, ANewerRegistrationOfTheSameExecutorEndsItsOlderSession) {
  ASSERT_NO_FATAL_FAILURE(Register());
  grpc::ClientContext newer_context;
  AddCredentials(newer_context);
  auto newer = stub_->Session(&newer_context);
  ASSERT_TRUE(newer->Write(Registration(kAddress)));
  v1::SessionResponse response;
  ASSERT_TRUE(newer->Read(&response));
  ASSERT_TRUE(response.has_registered());

  // The registry cancels the older stream: its executor reconnects.
  EXPECT_FALSE(stream_->Read(&response));
  EXPECT_EQ(stream_->Finish().error_code(), grpc::StatusCode::CANCELLED);
  stream_.reset();
  // The newer session is the member, and beats on; its end removes it.
  ASSERT_TRUE(newer->Write(BurstBeat(1, 1, 1)));
  ASSERT_TRUE(newer->Read(&response));
  EXPECT_TRUE(response.has_beat_ack());
  EXPECT_EQ(MemberCount(), 1);
  ASSERT_TRUE(newer->WritesDone());
  EXPECT_TRUE(newer->Finish().ok());
  EXPECT_EQ(MemberCount(), 0);
}

// A server allowed 16 threads, as a synchronous Session handler (a thread
// per connected executor) could not serve this many.
class RegistryManySessionsTest : public RegistrySessionTest {
 protected:
  RegistryManySessionsTest() { max_threads_ = 16; }
};

TEST_F(RegistryManySessionsTest, HundredsOfExecutorsStayRegisteredAndBeatingAtOnce) {
  constexpr int kExecutors = 300;
  constexpr absl::Duration kPatience = absl::Seconds(120);  // Bounds a broken test only.
  absl::Mutex mu;
  int acknowledged = 0, refused = 0, closed = 0;
  std::string first_error;
  absl::Notification release;
  auto fail = [&](const std::string& what) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (first_error.empty()) first_error = what;
  };
  // Each executor registers, beats once and, acknowledged, holds its session
  // open until every executor is; then it ends it.
  auto executor = [&](int i) {
    grpc::ClientContext context;
    AddCredentials(context);
    context.set_deadline(absl::ToChronoTime(absl::Now() + kPatience));
    auto stream = stub_->Session(&context);
    v1::SessionResponse registered, ack;
    const bool ok =
        stream->Write(Registration(absl::StrCat("10.1.", i / 100, ".", i % 100, ":9999"))) &&
        stream->Read(&registered) && registered.has_registered() &&
        stream->Write(BurstBeat(1, 1, 0)) && stream->Read(&ack) && ack.has_beat_ack();
    if (!ok) {
      stream->WritesDone();
      grpc::Status status = stream->Finish();
      absl::MutexLock l(&mu);
      ++refused;
      fail(absl::StrCat("executor ", i, ": ", status.error_code(), " ", status.error_message()));
      return;
    }
    {
      absl::MutexLock l(&mu);
      ++acknowledged;
    }
    release.WaitForNotificationWithTimeout(kPatience);
    stream->WritesDone();
    grpc::Status status = stream->Finish();
    absl::MutexLock l(&mu);
    if (status.ok()) {
      ++closed;
    } else {
      fail(absl::StrCat("executor ", i, " closing: ", status.error_code(), " ",
                        status.error_message()));
    }
  };
  std::vector<std::thread> executors;
  executors.reserve(kExecutors);
  for (int i = 0; i < kExecutors; ++i) executors.emplace_back(executor, i);
  {
    absl::MutexLock l(&mu);
    auto answered = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return acknowledged + refused == kExecutors;
    };
    EXPECT_TRUE(mu.AwaitWithTimeout(absl::Condition(&answered), kPatience))
        << acknowledged << " acknowledged, " << refused << " refused";
    EXPECT_EQ(acknowledged, kExecutors) << first_error;
  }
  // All of them at once.
  EXPECT_EQ(MemberCount(), kExecutors);
  release.Notify();
  for (std::thread& t : executors) t.join();
  absl::MutexLock l(&mu);
  EXPECT_EQ(closed, acknowledged) << first_error;
  EXPECT_EQ(MemberCount(), 0);  // Each left as its stream closed.
}

}  // namespace
}  // namespace gnomon::registry

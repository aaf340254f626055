// ReportResults over a real gRPC server (callback API), a real ReportWriter
// and a SQLite store: what an executor's reporter relies on. Many reporters
// are served at once by a server of few threads; a store slower than the
// reporters slows them (a stream reads on only as the writer has room) and
// drops nothing; a refused credential reads nothing; a bad item ends the
// stream naming its field once what came before is acknowledged; a
// half-closed stream whose acks do not come (the store down) ends OK after a
// while; a server stopping ends the streams that wait on the store.
#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/resource_quota.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/store/testing/failing_run_store.h"
#include "services/log/log_service.h"
#include "services/log/testing/run_fixtures.h"

namespace gnomon::logsvc {
namespace {

using store::testing::CallPhase;
using testing::LogLines;
using testing::Started;
using ::testing::StartsWith;

constexpr absl::Duration kPatience = absl::Seconds(120);  // Bounds a broken test only.

class ReportResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(f_.status().ok()) << f_.status();
    writer_ = std::make_unique<ReportWriter>(&runs_, &RealClock(), options_);
    service_ = std::make_unique<LogServiceImpl>(f_.store(), &runs_, f_.store(), &auth_,
                                                writer_.get(), &hub_);
    writer_thread_ = std::thread([this] { writer_->Run(); });
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    if (max_threads_ > 0) {
      grpc::ResourceQuota quota("report_results_test");
      quota.SetMaxThreads(max_threads_);
      builder.SetResourceQuota(quota);
    }
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    stub_ = v1::LogService::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));
  }
  void TearDown() override {
    // A test that failed before releasing the store lets it go now.
    if (!store_release_.HasBeenNotified()) store_release_.Notify();
    // As gnomond stops: the server (every stream ended), then the writer.
    StopServer();
    if (writer_ != nullptr) writer_->Stop();
    if (writer_thread_.joinable()) writer_thread_.join();
  }
  void StopServer() {
    if (server_ == nullptr) return;
    server_->Shutdown(std::chrono::system_clock::now());
    server_->Wait();
    server_.reset();
  }

  void AddCredentials(grpc::ClientContext& context, const std::string& token = "billing-token") {
    context.AddMetadata(std::string(kAppNameKey), f_.group().app_name());
    context.AddMetadata(std::string(kAccessTokenKey), token);
    context.set_deadline(absl::ToChronoTime(absl::Now() + kPatience));
  }
  // One message: log line `line` of `run`, item `sequence`.
  static v1::ReportResultsRequest Line(int64_t run, int64_t line, int64_t sequence) {
    v1::ReportResultsRequest req;
    v1::ReportItem* item = req.add_items();
    *item = LogLines(run, line, line);
    item->set_sequence(sequence);
    return req;
  }
  // The lines of `run` stored.
  std::vector<int64_t> StoredLines(int64_t run) {
    std::vector<int64_t> lines;
    absl::StatusOr<std::vector<v1::LogLine>> read = f_.store()->ReadRunLog(run, 1, 100'000);
    EXPECT_TRUE(read.ok()) << read.status();
    if (read.ok()) {
      for (const v1::LogLine& l : *read) lines.push_back(l.line_number());
    }
    return lines;
  }

  testing::RunFixture f_;
  // What the store hooks read lives here, not in a test's body: the writer's
  // thread may call the store (a retry, a batch queued at the end) after the
  // body has returned, until TearDown stops it.
  std::atomic<bool> store_down_{false};
  absl::Notification store_entered_, store_release_;
  store::testing::StoreCallHook hook_;
  store::testing::FailingRunStore runs_{f_.store(), &hook_};
  Authenticator auth_{f_.store(), f_.store(), "cluster-token"};
  LogTailHub hub_;
  ReportWriterOptions options_;  // Set before SetUp.
  int max_threads_ = 0;          // The server's thread quota (0: gRPC's default).
  std::unique_ptr<ReportWriter> writer_;
  std::unique_ptr<LogServiceImpl> service_;
  std::thread writer_thread_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::LogService::Stub> stub_;
};

TEST_F(ReportResultsTest, ItemsAreAcknowledgedOnceStoredAndAHalfCloseEndsTheStreamOk) {
  const int64_t run = f_.AddRun(f_.job(), 60'000);
  grpc::ClientContext context;
  AddCredentials(context);
  auto stream = stub_->ReportResults(&context);
  v1::ReportResultsRequest req;
  *req.add_items() = Started(run, 60'000);
  req.mutable_items(0)->set_sequence(7);
  *req.add_items() = LogLines(run, 1, 3);
  req.mutable_items(1)->set_sequence(8);
  ASSERT_TRUE(stream->Write(req));
  ASSERT_TRUE(stream->Write(v1::ReportResultsRequest()));  // An empty message: nothing to ack.
  ASSERT_TRUE(stream->Write(Line(run, 4, 9)));
  // Half-closed before the acks come: they are still written.
  ASSERT_TRUE(stream->WritesDone());
  std::vector<int64_t> sequences;
  v1::ReportResultsResponse resp;
  while (stream->Read(&resp)) {
    for (const v1::ReportItemAck& a : resp.acks()) {
      sequences.push_back(a.sequence());
      EXPECT_EQ(a.run_id(), run);
      EXPECT_EQ(a.ack(), v1::REPORT_ACK_APPLIED) << a.sequence();
    }
  }
  grpc::Status status = stream->Finish();
  EXPECT_TRUE(status.ok()) << status.error_code() << " " << status.error_message();
  EXPECT_THAT(sequences, ::testing::ElementsAre(7, 8, 9));
  EXPECT_THAT(StoredLines(run), ::testing::ElementsAre(1, 2, 3, 4));
}

TEST_F(ReportResultsTest, AWrongTokenIsRefusedBeforeAnythingIsRead) {
  const int64_t run = f_.AddRun(f_.job(), 60'000);
  grpc::ClientContext context;
  AddCredentials(context, "not-the-token");
  auto stream = stub_->ReportResults(&context);
  stream->Write(Line(run, 1, 1));  // May fail: the call may be over already.
  stream->WritesDone();
  v1::ReportResultsResponse resp;
  EXPECT_FALSE(stream->Read(&resp));
  grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
  EXPECT_EQ(hook_.calls("ApplyReports"), 0);
  EXPECT_TRUE(StoredLines(run).empty());
}

TEST_F(ReportResultsTest, ABadItemEndsTheStreamNamingItsFieldAfterWhatCameBeforeIsAcknowledged) {
  const int64_t run = f_.AddRun(f_.job(), 60'000);
  grpc::ClientContext context;
  AddCredentials(context);
  auto stream = stub_->ReportResults(&context);
  ASSERT_TRUE(stream->Write(Line(run, 1, 1)));
  v1::ReportResultsRequest bad = Line(run, 2, 2);
  *bad.add_items() = LogLines(run, 3, 3);
  bad.mutable_items(1)->set_sequence(3);
  bad.mutable_items(1)->mutable_log()->set_run_id(0);
  stream->Write(bad);
  std::vector<int64_t> sequences;
  v1::ReportResultsResponse resp;
  while (stream->Read(&resp)) {
    for (const v1::ReportItemAck& a : resp.acks()) sequences.push_back(a.sequence());
  }
  grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), StartsWith("items[1].log"));
  EXPECT_THAT(sequences, ::testing::ElementsAre(1));
  // The bad message is refused whole.
  EXPECT_THAT(StoredLines(run), ::testing::ElementsAre(1));
}

TEST_F(ReportResultsTest, AHalfClosedStreamWhoseAcksDoNotComeEndsOkAfterAWhile) {
  const int64_t run = f_.AddRun(f_.job(), 60'000);
  store_down_ = true;  // For good: a store outage.
  hook_.Set(store::testing::FailWhile(&store_down_, "ApplyReports"));
  grpc::ClientContext context;
  AddCredentials(context);
  auto stream = stub_->ReportResults(&context);
  ASSERT_TRUE(stream->Write(Line(run, 1, 1)));
  ASSERT_TRUE(hook_.AwaitCalls("ApplyReports", 1, kPatience));
  ASSERT_TRUE(stream->WritesDone());
  // The stream waits a while for the acks, then ends: the executor keeps
  // the item, unacknowledged, to send again.
  v1::ReportResultsResponse resp;
  EXPECT_FALSE(stream->Read(&resp));
  grpc::Status status = stream->Finish();
  EXPECT_TRUE(status.ok()) << status.error_code() << " " << status.error_message();
  EXPECT_TRUE(StoredLines(run).empty());
}

// A store slower than the reporter: the writer may hold 4 items, and takes
// one per transaction.
class ReportResultsBackPressureTest : public ReportResultsTest {
 protected:
  static constexpr size_t kMaxQueued = 4;
  ReportResultsBackPressureTest() {
    options_.max_queued = kMaxQueued;
    options_.max_batch = 1;
    options_.min_commit_interval = absl::ZeroDuration();
  }
  // Read by a store hook (see store_down_): whether the reporter has sent
  // everything, and the most items queued seen at a transaction.
  absl::Mutex progress_mu_;
  bool sent_ ABSL_GUARDED_BY(progress_mu_) = false;
  size_t most_queued_ ABSL_GUARDED_BY(progress_mu_) = 0;
};

TEST_F(ReportResultsBackPressureTest, AReporterAheadOfTheStoreIsSlowedAndNothingIsDropped) {
  constexpr int kMessages = 64;  // Each one item; all of them fit in the stream's window.
  const int64_t run = f_.AddRun(f_.job(), 60'000);
  // The first transaction waits until the reporter has sent everything;
  // then, at each transaction, the items read and not yet taken by the
  // writer are at most max_queued: the stream read its next message only
  // while fewer waited (and one message is one item).
  hook_.Set([this](std::string_view call, CallPhase phase) {
    if (call != "ApplyReports" || phase != CallPhase::kBefore) return absl::OkStatus();
    absl::MutexLock l(&progress_mu_);
    progress_mu_.AwaitWithTimeout(absl::Condition(&sent_), kPatience);
    most_queued_ = std::max(most_queued_, writer_->queued_items());
    return absl::OkStatus();
  });
  grpc::ClientContext context;
  AddCredentials(context);
  auto stream = stub_->ReportResults(&context);
  for (int i = 1; i <= kMessages; ++i) ASSERT_TRUE(stream->Write(Line(run, i, i))) << i;
  ASSERT_TRUE(stream->WritesDone());
  {
    absl::MutexLock l(&progress_mu_);
    sent_ = true;
  }
  std::vector<int64_t> sequences;
  v1::ReportResultsResponse resp;
  while (stream->Read(&resp)) {
    for (const v1::ReportItemAck& a : resp.acks()) {
      sequences.push_back(a.sequence());
      EXPECT_EQ(a.ack(), v1::REPORT_ACK_APPLIED) << a.sequence();
    }
  }
  grpc::Status status = stream->Finish();
  EXPECT_TRUE(status.ok()) << status.error_code() << " " << status.error_message();
  std::vector<int64_t> all;
  for (int i = 1; i <= kMessages; ++i) all.push_back(i);
  EXPECT_EQ(sequences, all);         // Every item acknowledged, once, in order ...
  EXPECT_EQ(StoredLines(run), all);  // ... and stored.
  absl::MutexLock l(&progress_mu_);
  EXPECT_LE(most_queued_, kMaxQueued);
  EXPECT_GE(hook_.calls("ApplyReports"), kMessages);
}

TEST_F(ReportResultsBackPressureTest, AServerStoppingEndsTheStreamsThatWaitOnTheStore) {
  const int64_t run = f_.AddRun(f_.job(), 60'000);
  // The store holds its first transaction until the server has stopped:
  // one stream waits for room in the writer's queue, another, half-closed,
  // for the acks of what it sent.
  hook_.Set([this](std::string_view call, CallPhase phase) {
    if (call == "ApplyReports" && phase == CallPhase::kBefore &&
        !store_entered_.HasBeenNotified()) {
      store_entered_.Notify();  // Only the writer's thread calls the store.
      store_release_.WaitForNotification();
    }
    return absl::OkStatus();
  });
  grpc::ClientContext waiting_context, draining_context;
  AddCredentials(waiting_context);
  AddCredentials(draining_context);
  auto draining = stub_->ReportResults(&draining_context);
  ASSERT_TRUE(draining->Write(Line(run, 1, 1)));
  ASSERT_TRUE(store_entered_.WaitForNotificationWithTimeout(kPatience));
  ASSERT_TRUE(draining->Write(Line(run, 2, 2)));
  ASSERT_TRUE(draining->WritesDone());
  auto waiting = stub_->ReportResults(&waiting_context);
  for (int i = 3; i < 3 + 2 * static_cast<int>(kMaxQueued); ++i)
    ASSERT_TRUE(waiting->Write(Line(run, i, i))) << i;
  StopServer();  // Returns once every stream has ended.
  store_release_.Notify();
  v1::ReportResultsResponse resp;
  while (waiting->Read(&resp)) {
  }
  while (draining->Read(&resp)) {
  }
  EXPECT_FALSE(waiting->Finish().ok());
  EXPECT_FALSE(draining->Finish().ok());
}

// A server allowed 16 threads, as a synchronous ReportResults handler (a
// thread per connected executor) could not serve this many.
class ReportResultsManyReportersTest : public ReportResultsTest {
 protected:
  ReportResultsManyReportersTest() { max_threads_ = 16; }
};

TEST_F(ReportResultsManyReportersTest, HundredsOfReportersAreServedAtOnce) {
  constexpr int kReporters = 300;
  std::vector<int64_t> runs;
  for (int i = 0; i < kReporters; ++i) {
    runs.push_back(f_.AddRun(f_.job(), 60'000 * (i + 1)));
    ASSERT_NE(runs.back(), 0);
  }
  absl::Mutex mu;
  int acknowledged = 0, refused = 0, closed = 0;
  std::string first_error;
  absl::Notification release;
  auto fail = [&](const std::string& what) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (first_error.empty()) first_error = what;
  };
  // Each reporter reports its run's start and lines and, acknowledged, holds
  // its stream open until every reporter is; then it reports its last line
  // and half-closes.
  auto reporter = [&](int i) {
    const int64_t run = runs[i];
    grpc::ClientContext context;
    AddCredentials(context);
    auto stream = stub_->ReportResults(&context);
    v1::ReportResultsRequest first;
    *first.add_items() = Started(run, 60'000 * (i + 1));
    first.mutable_items(0)->set_sequence(1);
    *first.add_items() = LogLines(run, 1, 3);
    first.mutable_items(1)->set_sequence(2);
    v1::ReportResultsResponse ack;
    const bool ok = stream->Write(first) && stream->Read(&ack) && ack.acks_size() == 2 &&
                    ack.acks(0).sequence() == 1 && ack.acks(1).sequence() == 2 &&
                    ack.acks(0).ack() == v1::REPORT_ACK_APPLIED &&
                    ack.acks(1).ack() == v1::REPORT_ACK_APPLIED;
    if (!ok) {
      stream->WritesDone();
      grpc::Status status = stream->Finish();
      absl::MutexLock l(&mu);
      ++refused;
      fail(absl::StrCat("reporter ", i, ": ", status.error_code(), " ", status.error_message(), " ",
                        ack.DebugString()));
      return;
    }
    {
      absl::MutexLock l(&mu);
      ++acknowledged;
    }
    release.WaitForNotificationWithTimeout(kPatience);
    const bool last = stream->Write(Line(run, 4, 3)) && stream->WritesDone() &&
                      stream->Read(&ack) && ack.acks_size() == 1 && ack.acks(0).sequence() == 3 &&
                      !stream->Read(&ack);
    grpc::Status status = stream->Finish();
    absl::MutexLock l(&mu);
    if (last && status.ok()) {
      ++closed;
    } else {
      fail(absl::StrCat("reporter ", i, " closing: ", status.error_code(), " ",
                        status.error_message()));
    }
  };
  std::vector<std::thread> reporters;
  reporters.reserve(kReporters);
  for (int i = 0; i < kReporters; ++i) reporters.emplace_back(reporter, i);
  {
    absl::MutexLock l(&mu);
    auto answered = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return acknowledged + refused == kReporters;
    };
    EXPECT_TRUE(mu.AwaitWithTimeout(absl::Condition(&answered), kPatience))
        << acknowledged << " acknowledged, " << refused << " refused";
    // All of them at once.
    EXPECT_EQ(acknowledged, kReporters) << first_error;
  }
  release.Notify();
  for (std::thread& t : reporters) t.join();
  absl::MutexLock l(&mu);
  EXPECT_EQ(closed, acknowledged) << first_error;
  for (int64_t run : runs) EXPECT_THAT(StoredLines(run), ::testing::ElementsAre(1, 2, 3, 4));
}

}  // namespace
}  // namespace gnomon::logsvc

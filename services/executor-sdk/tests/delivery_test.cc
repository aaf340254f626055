// Durable delivery: spool persistence, log-service outage, executor restart,
// endpoint failover, log batching.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "services/common/client/report_limits.h"
#include "services/common/status/status_matchers.h"
#include "services/executor-sdk/src/run_spool.h"
#include "services/executor-sdk/tests/test_env.h"

namespace gnomon::executor {
namespace {

using testing::BeanRun;
using testing::DispatchClient;
using testing::FakeLogService;
using testing::TestServer;

v1::ReportItem ResultItem(int64_t run_id, int code) {
  v1::ReportItem item;
  item.mutable_result()->set_run_id(run_id);
  item.mutable_result()->set_handle_code(code);
  return item;
}

TEST(RunSpoolTest, ItemsSurviveReopenUntilRemoved) {
  std::string dir = TempDir("spool");
  {
    auto spool = internal::RunSpool::Open(dir);
    ASSERT_TRUE(spool.ok()) << spool.status();
    absl::Status disk;
    uint64_t a = (*spool)->Append(ResultItem(1, 200), &disk);
    ASSERT_TRUE(disk.ok()) << disk;
    (*spool)->Append(ResultItem(2, 500), &disk);
    uint64_t c = (*spool)->Append(ResultItem(3, 502), &disk);
    ASSERT_TRUE((*spool)->SyncThrough(c).ok());
    (*spool)->Remove(a);
    // A second process must not share the spool.
    EXPECT_THAT(internal::RunSpool::Open(dir), StatusIs(absl::StatusCode::kFailedPrecondition));
  }
  auto reopened = internal::RunSpool::Open(dir);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  // The removed item shares a segment with live ones, so it comes back as
  // well (re-sending is harmless: the log service answers DUPLICATE); what
  // matters is that nothing unacknowledged is lost and order is kept.
  std::vector<int64_t> runs;
  uint64_t last = 0;
  for (const auto* it = (*reopened)->Next(0); it != nullptr; it = (*reopened)->Next(it->first)) {
    runs.push_back(it->second.result().run_id());
    last = it->first;
  }
  EXPECT_NE(std::find(runs.begin(), runs.end(), 2), runs.end());
  EXPECT_NE(std::find(runs.begin(), runs.end(), 3), runs.end());
  EXPECT_EQ(runs.back(), 3);
  // New ids continue after the recovered ones (order is kept across restarts).
  absl::Status disk;
  uint64_t next = (*reopened)->Append(ResultItem(4, 200), &disk);
  EXPECT_GT(next, last);
}

// The runs whose results a restarted executor finds in its spool, which it
// remembers as accepted: the unacknowledged ones, and the acknowledged ones
// of a segment still in use; not a run that only started.
TEST(RunSpoolTest, ReopenListsTheRunsOfTheRecoveredResults) {
  std::string dir = TempDir("spool-runs");
  {
    auto spool = internal::RunSpool::Open(dir);
    ASSERT_TRUE(spool.ok()) << spool.status();
    EXPECT_TRUE((*spool)->recovered_result_runs().empty());
    absl::Status disk;
    const uint64_t acked = (*spool)->Append(ResultItem(7, 200), &disk);
    v1::ReportItem started;
    started.mutable_started()->set_run_id(8);
    (*spool)->Append(started, &disk);
    const uint64_t last = (*spool)->Append(ResultItem(9, 500), &disk);
    ASSERT_TRUE((*spool)->SyncThrough(last).ok());
    (*spool)->Remove(acked);
  }
  auto reopened = internal::RunSpool::Open(dir);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  EXPECT_EQ((*reopened)->recovered_result_runs(), (std::vector<int64_t>{7, 9}));
}

TEST(RunSpoolTest, TheOldestResultIsTheFirstStillThere) {
  auto spool = internal::RunSpool::Open("");
  ASSERT_TRUE(spool.ok()) << spool.status();
  EXPECT_EQ((*spool)->OldestResultEnd(), std::nullopt);
  absl::Status disk;
  v1::ReportItem started;
  started.mutable_started()->set_run_id(1);
  (*spool)->Append(started, &disk);
  v1::ReportItem first = ResultItem(1, 200);
  first.mutable_result()->mutable_end_time()->set_seconds(100);
  const uint64_t a = (*spool)->Append(first, &disk);
  v1::ReportItem second = ResultItem(2, 200);
  second.mutable_result()->mutable_end_time()->set_seconds(200);
  (*spool)->Append(second, &disk);
  EXPECT_EQ((*spool)->OldestResultEnd(), absl::FromUnixSeconds(100));
  (*spool)->Remove(a);
  EXPECT_EQ((*spool)->OldestResultEnd(), absl::FromUnixSeconds(200));
}

TEST(RunSpoolTest, FullyAcknowledgedSegmentsAreDeleted) {
  std::string dir = TempDir("spool-rotate");
  auto spool = internal::RunSpool::Open(dir);
  ASSERT_TRUE(spool.ok()) << spool.status();
  v1::ReportItem big = ResultItem(1, 200);
  big.mutable_result()->set_handle_message(std::string(64 * 1024, 'x'));
  std::vector<uint64_t> ids;
  absl::Status disk;
  // Enough to fill several segments.
  for (size_t bytes = 0; bytes < 3 * internal::RunSpool::kSegmentBytes; bytes += 64 * 1024) {
    ids.push_back((*spool)->Append(big, &disk));
    ASSERT_TRUE(disk.ok()) << disk;
  }
  auto segments = [&] {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      n += e.path().extension() == ".seg";
    return n;
  };
  EXPECT_GE(segments(), 3);
  for (uint64_t id : ids) (*spool)->Remove(id);
  EXPECT_EQ(segments(), 1);  // Only the current one is kept.
  EXPECT_TRUE((*spool)->empty());
}

TEST(RunSpoolTest, TornTailIsCutAndLaterAppendsSurvive) {
  std::string dir = TempDir("spool-torn");
  std::string segment;
  {
    auto spool = internal::RunSpool::Open(dir);
    ASSERT_TRUE(spool.ok()) << spool.status();
    absl::Status disk;
    ASSERT_TRUE((*spool)->SyncThrough((*spool)->Append(ResultItem(1, 200), &disk)).ok());
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() == ".seg") segment = e.path();
    }
  }
  ASSERT_FALSE(segment.empty());
  {
    std::ofstream f(segment, std::ios::app | std::ios::binary);
    f << std::string("\x30\x00\x00\x00garbage", 11);  // A record cut short by a crash.
  }
  {
    auto spool = internal::RunSpool::Open(dir);
    ASSERT_TRUE(spool.ok()) << spool.status();
    EXPECT_EQ((*spool)->recovered(), 1u);
    absl::Status disk;
    ASSERT_TRUE((*spool)->SyncThrough((*spool)->Append(ResultItem(2, 200), &disk)).ok());
  }
  auto spool = internal::RunSpool::Open(dir);
  ASSERT_TRUE(spool.ok()) << spool.status();
  EXPECT_EQ((*spool)->recovered(), 2u);
}

TEST(RunSpoolTest, ConcurrentSyncsAllBecomeDurable) {
  std::string dir = TempDir("spool-sync");
  {
    auto spool = internal::RunSpool::Open(dir);
    ASSERT_TRUE(spool.ok()) << spool.status();
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < 50; ++i) {
          absl::Status disk;
          uint64_t id = (*spool)->Append(ResultItem(t * 100 + i, 200), &disk);
          EXPECT_TRUE((*spool)->SyncThrough(id).ok());
        }
      });
    }
    for (auto& t : threads) t.join();
  }
  auto spool = internal::RunSpool::Open(dir);
  ASSERT_TRUE(spool.ok()) << spool.status();
  EXPECT_EQ((*spool)->recovered(), 400u);
}

class DeliveryTest : public SdkTest {
 protected:
  DeliveryTest() : log_only_(kTestToken, kTestApp) {}
  FakeLogService log_only_;
};

TEST_F(DeliveryTest, ResultsSurviveALogServiceOutage) {
  auto log_server = std::make_unique<TestServer>(std::vector<grpc::Service*>{&log_only_});
  int log_port = log_server->port();
  ExecutorOptions options = Options();
  options.log_endpoints = {log_server->address()};
  options.reconnect_max = absl::Milliseconds(100);
  auto executor = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext& ctx) { ctx.Log("line"); }).ok());
  });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 1, "demo"))->has_accepted());
  ASSERT_TRUE(log_only_.WaitForResult(1, kTestWait));

  log_server->Stop();  // outage
  ASSERT_TRUE(dispatch.Send(BeanRun(2, 1, "demo"))->has_accepted());
  ASSERT_TRUE(dispatch.Send(BeanRun(3, 2, "demo"))->has_accepted());
  EXPECT_FALSE(log_only_.WaitForResult(2, absl::Milliseconds(300)));

  log_server = std::make_unique<TestServer>(std::vector<grpc::Service*>{&log_only_}, log_port);
  ASSERT_EQ(log_server->port(), log_port);
  auto r2 = log_only_.WaitForResult(2, kTestWait);
  auto r3 = log_only_.WaitForResult(3, kTestWait);
  ASSERT_TRUE(r2 && r3);
  EXPECT_EQ(r2->handle_code(), 200);
  EXPECT_TRUE(log_only_.WaitForLines(3, 1, kTestWait));
}

TEST_F(DeliveryTest, SpooledResultsAreDeliveredAfterAnExecutorRestart) {
  std::string spool = TempDir("restart-spool");
  // Nothing listens on the first log endpoint: results stay in the spool.
  auto placeholder = std::make_unique<TestServer>(std::vector<grpc::Service*>{&log_only_});
  int log_port = placeholder->port();
  std::string log_address = placeholder->address();
  placeholder->Stop();
  {
    ExecutorOptions options = Options();
    options.log_endpoints = {log_address};
    options.spool_dir = spool;
    auto executor = StartExecutor(options, [](Executor& e) {
      ASSERT_TRUE(e.RegisterHandler("fail", [](JobContext& ctx) {
                     ctx.Log("about to fail");
                     ctx.SetResult(500, "boom");
                     EXPECT_TRUE(ctx.SetOutput("rows=7").ok());
                   }).ok());
    });
    DispatchClient dispatch(dispatch_);
    ASSERT_TRUE(dispatch.Send(BeanRun(42, 1, "fail"))->has_accepted());
    executor->Shutdown(absl::Seconds(2));  // the result cannot be delivered
  }
  EXPECT_FALSE(log_only_.WaitForResult(42, absl::ZeroDuration()));

  TestServer log_server({&log_only_}, log_port);
  ExecutorOptions options = Options();
  options.log_endpoints = {log_address};
  options.spool_dir = spool;
  auto restarted = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("fail", [](JobContext&) {}).ok());
  });
  auto result = log_only_.WaitForResult(42, kTestWait);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 500);
  EXPECT_EQ(result->handle_message(), "boom");
  EXPECT_EQ(result->output(), "rows=7");  // Kept by the spool on disk.
  ASSERT_TRUE(log_only_.WaitForLines(42, 1, kTestWait));
  EXPECT_EQ(log_only_.lines(42)[0].text(), "about to fail");
}

TEST_F(DeliveryTest, FailsOverToTheNextLogEndpoint) {
  auto dead = std::make_unique<TestServer>(std::vector<grpc::Service*>{&log_only_});
  std::string dead_address = dead->address();
  dead->Stop();
  TestServer live({&log_only_});
  ExecutorOptions options = Options();
  options.log_endpoints = {dead_address, live.address()};
  auto executor = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext&) {}).ok());
  });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 1, "demo"))->has_accepted());
  EXPECT_TRUE(log_only_.WaitForResult(1, kTestWait));
}

TEST_F(DeliveryTest, RegistryFailover) {
  auto dead = std::make_unique<TestServer>(std::vector<grpc::Service*>{&log_only_});
  std::string dead_address = dead->address();
  dead->Stop();
  ExecutorOptions options = Options();
  options.registry_endpoints = {dead_address, server_.address()};
  auto executor = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext&) {}).ok());
  });
  EXPECT_TRUE(registry_.WaitForRegistrations(1, kTestWait));
}

TEST_F(DeliveryTest, LogLinesAreBatched) {
  auto executor = StartExecutor(Options(), [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("chatty", [](JobContext& ctx) {
                   for (int i = 1; i <= 250; ++i) ctx.Log("line " + std::to_string(i));
                 }).ok());
  });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 1, "chatty"))->has_accepted());
  ASSERT_TRUE(logs_.WaitForResult(1, kTestWait));
  std::vector<v1::LogLine> lines = logs_.lines(1);
  ASSERT_EQ(lines.size(), 250u);
  for (int i = 0; i < 250; ++i) {
    EXPECT_EQ(lines[i].line_number(), i + 1);
    EXPECT_EQ(lines[i].text(), "line " + std::to_string(i + 1));
  }
  // At most 100 lines per item: 3 items when written at once; never one per line.
  EXPECT_GE(logs_.log_items(1), 3);
  EXPECT_LE(logs_.log_items(1), 10);
}

// The log service refuses lines and result messages over its limits
// (services/common/client/report_limits.h): the SDK sends long ones in pieces
// and cut, never split inside a UTF-8 character.
TEST_F(DeliveryTest, LongLinesAndMessagesStayWithinTheLogServiceLimits) {
  const std::string long_line = std::string(kMaxLogLineBytes - 1, 'a') + "\xC3\xA9" + "tail";
  auto executor = StartExecutor(Options(), [&](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("long", [&](JobContext& ctx) {
                   ctx.Log(long_line);
                   ctx.SetResult(kHandleFailure, std::string(kMaxHandleMessageBytes + 10, 'm'));
                 }).ok());
  });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 1, "long"))->has_accepted());
  std::optional<v1::RunResult> result = logs_.WaitForResult(1, kTestWait);
  ASSERT_TRUE(result);
  std::vector<v1::LogLine> lines = logs_.lines(1);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].text(), std::string(kMaxLogLineBytes - 1, 'a'));
  EXPECT_EQ(lines[1].text(), "\xC3\xA9tail");
  EXPECT_EQ(result->handle_message().size(), kMaxHandleMessageBytes);
}

TEST_F(DeliveryTest, LogServiceRefusingTheAppIsRetried) {
  FakeLogService other_app(kTestToken, "another-app");
  TestServer log_server({&other_app});
  ExecutorOptions options = Options();
  options.log_endpoints = {log_server.address()};
  auto executor = StartExecutor(options, [](Executor& e) {
    ASSERT_TRUE(e.RegisterHandler("demo", [](JobContext&) {}).ok());
  });
  DispatchClient dispatch(dispatch_);
  ASSERT_TRUE(dispatch.Send(BeanRun(1, 1, "demo"))->has_accepted());
  EXPECT_TRUE(other_app.WaitForRefusals(2, kTestWait));
  EXPECT_FALSE(other_app.WaitForResult(1, absl::ZeroDuration()));
}

}  // namespace
}  // namespace gnomon::executor

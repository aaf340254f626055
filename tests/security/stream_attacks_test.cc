// Attacks by a caller with a weak credential (a viewer's token) on a real
// gnomond on loopback: a flood of log follows (each would hold a server
// thread, and over HTTP a connection slot, for as long as the run lasts) and
// a flood of queries. Each asserts the refusal (RESOURCE_EXHAUSTED, 429 over
// HTTP), that other callers keep their share — another viewer can follow, an
// admin's calls are answered — and that gnomond's memory stays bounded. (The
// admin calls' lateness is printed, not asserted: the machines are shared.)
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/log.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/gnomon_cluster.h"
#include "tests/support/http_get.h"
#include "tests/support/proc_stats.h"
#include "tests/support/slow_run.h"
#include "tests/support/stream_follower.h"

namespace gnomon {
namespace {

using testing::Follower;
using testing::kPatience;

constexpr int kPerCredential = 4;
constexpr int kInAll = 12;
constexpr int64_t kMaxRssKiB = 300 * 1024;
// gnomond's byte budget for a run's stored log in this test.
constexpr int kLogMib = 4;

class StreamAttacksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    std::optional<std::string> url = cluster_.HttpUrl();
    ASSERT_TRUE(url) << cluster_.Output();
    http_ = *url;
    channel_ = grpc::CreateChannel(cluster_.address(), grpc::InsecureChannelCredentials());
    ASSERT_TRUE(testing::StartSlowRun(cluster_, "flood-app", &slow_));
    run_id_ = slow_.run_id;
  }

  std::string ViewerToken(const std::string& name) {
    return testing::ViewerToken(cluster_, slow_, name);
  }
  std::unique_ptr<Follower<v1::LogLine>> FollowLog(const std::string& token) {
    return testing::FollowRunLog(channel_, token, run_id_);
  }
  // Opens `n` follows with `token`: how many stay open, and how many were
  // refused RESOURCE_EXHAUSTED (appended to `open` and counted).
  void Flood(const std::string& token, int n,
             std::vector<std::unique_ptr<Follower<v1::LogLine>>>* open, int* opened, int* refused) {
    std::vector<std::unique_ptr<Follower<v1::LogLine>>> all;
    for (int i = 0; i < n; ++i) all.push_back(FollowLog(token));
    *opened = *refused = 0;
    for (auto& f : all) {
      // A follow either ends at once, refused, or sends the run's log.
      const absl::Time deadline = absl::Now() + kPatience;
      while (!f->HasEnded() && !f->HasOpened() && absl::Now() < deadline)
        cluster_.PollInterval(absl::Milliseconds(10));
      if (f->HasEnded()) {
        *refused += f->Ended().error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED;
      } else {
        ++*opened;
        open->push_back(std::move(f));
      }
    }
  }
  grpc::Status AdminListJobs() {
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_.admin_token()));
    v1::ListJobsResponse out;
    return v1::JobAdmin::NewStub(channel_)->ListJobs(&ctx, v1::ListJobsRequest(), &out);
  }
  testing::GnomonCluster cluster_{
      {"--http-listen=127.0.0.1:0", absl::StrCat("--log-follows-per-credential=", kPerCredential),
       absl::StrCat("--log-follows=", kInAll), absl::StrCat("--max-log-mib-per-run=", kLogMib)}};
  std::shared_ptr<grpc::Channel> channel_;
  std::string http_;
  testing::SlowRun slow_;
  int64_t run_id_ = 0;
};

// One viewer opens 40 follows of a run: kPerCredential stay open, the rest
// are refused at once, over gRPC and over HTTP (429). Another viewer still
// follows, until everyone's follows reach kInAll; closing one frees a place.
// An admin's calls are answered all along.
TEST_F(StreamAttacksTest, AViewersFollowFloodIsCappedAndOthersKeepTheirShare) {
  std::vector<std::unique_ptr<Follower<v1::LogLine>>> open;
  int opened = 0, refused = 0;
  const std::string flooder = ViewerToken("flooder");
  Flood(flooder, 40, &open, &opened, &refused);
  EXPECT_EQ(opened, kPerCredential);
  EXPECT_EQ(refused, 40 - kPerCredential);

  // Over HTTP (the console's live log), the same credential is refused: the
  // event stream ends at once with the error (docs/http-api.md).
  testing::HttpResult http =
      testing::HttpCall("POST", http_ + "/v1/LogService/StreamRunLog",
                        absl::StrCat("{\"runId\": \"", run_id_, "\", \"follow\": true}"),
                        {"Authorization: Bearer " + flooder});
  EXPECT_TRUE(absl::StrContains(http.body, "event: error")) << http.body;
  EXPECT_TRUE(absl::StrContains(http.body, "RESOURCE_EXHAUSTED")) << http.body;
  EXPECT_TRUE(absl::StrContains(http.body, "log follows")) << http.body;

  std::vector<absl::Duration> took;
  for (int i = 0; i < 20; ++i) {
    const absl::Time start = absl::Now();
    EXPECT_TRUE(AdminListJobs().ok());
    took.push_back(absl::Now() - start);
  }
  std::sort(took.begin(), took.end());
  std::printf("follow flood: admin ListJobs p50 %s, max %s\n",
              absl::FormatDuration(took[took.size() / 2]).c_str(),
              absl::FormatDuration(took.back()).c_str());

  // Two more viewers fill everyone's places; a fourth is refused until one closes.
  for (const char* name : {"second", "third"}) {
    Flood(ViewerToken(name), kPerCredential, &open, &opened, &refused);
    EXPECT_EQ(opened, kPerCredential) << name;
  }
  ASSERT_EQ(static_cast<int>(open.size()), kInAll);
  const std::string fourth = ViewerToken("fourth");
  Flood(fourth, 1, &open, &opened, &refused);
  EXPECT_EQ(refused, 1);
  open.pop_back();  // Cancels one follow; its place is free once gnomond sees it go.
  const absl::Time deadline = absl::Now() + kPatience;
  do {
    Flood(fourth, 1, &open, &opened, &refused);
  } while (opened == 0 && absl::Now() < deadline);
  EXPECT_EQ(opened, 1);
  EXPECT_LE(testing::Resident(cluster_.gnomond()->pid()).total, kMaxRssKiB);
}

// A viewer's query flood is rate limited per credential like JobAdmin's
// calls: past its burst it is refused RESOURCE_EXHAUSTED naming the limit
// (calls are made until one is: 1,000 would take over 14 s for the refill
// alone to keep up); the admin is not affected.
TEST_F(StreamAttacksTest, AViewersQueryFloodIsRateLimited) {
  const std::string flooder = ViewerToken("querier");
  auto stub = v1::LogService::NewStub(channel_);
  grpc::Status refusal;
  int ok = 0;
  for (int i = 0; i < 1000 && refusal.ok(); ++i) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAuthorizationKey), BearerValue(flooder));
    v1::GetRunRequest req;
    req.set_run_id(run_id_);
    v1::Run out;
    refusal = stub->GetRun(&ctx, req, &out);
    ok += refusal.ok();
  }
  EXPECT_EQ(refusal.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << refusal.error_message();
  EXPECT_TRUE(absl::StrContains(refusal.error_message(), "rate limit")) << refusal.error_message();
  EXPECT_GE(ok, 100);  // The burst (--admin-rate-burst) came first.
  EXPECT_TRUE(AdminListJobs().ok());
}

// An executor's credential (a leaked group token) pushing results as fast as
// it can: 400 messages of 1 MiB of log lines for one run. gnomond reads a
// stream's next message only when its writer has room, so its memory stays
// bounded whatever is offered, the stream is acknowledged all along, the
// run keeps at most --max-log-mib-per-run of log text (here well before its
// 10,000 lines), and the admin is served.
TEST_F(StreamAttacksTest, AnExecutorFloodingResultsIsFlowControlled) {
  auto stub = v1::LogService::NewStub(channel_);
  grpc::ClientContext ctx;
  ctx.AddMetadata(std::string(kAppNameKey), slow_.group.app_name());
  ctx.AddMetadata(std::string(kAccessTokenKey), slow_.group.access_token());
  auto stream = stub->ReportResults(&ctx);
  std::atomic<int64_t> acked{0};
  std::thread reader([&] {
    v1::ReportResultsResponse r;
    while (stream->Read(&r)) acked += r.acks_size();
  });
  constexpr int kMessages = 400, kLines = 500;
  const int64_t before_kib = testing::Resident(cluster_.gnomond()->pid()).total;
  int64_t peak_kib = 0;
  std::vector<absl::Duration> took;
  int64_t line = 1'000'000;  // After the slow handler's own lines.
  bool sent_all = true;
  for (int m = 0; m < kMessages && sent_all; ++m) {
    v1::ReportResultsRequest req;
    v1::ReportItem* item = req.add_items();
    item->set_sequence(m + 1);
    item->mutable_log()->set_run_id(run_id_);
    for (int i = 0; i < kLines; ++i) {
      v1::LogLine* l = item->mutable_log()->add_lines();
      l->set_line_number(line++);
      l->set_text(std::string(2000, 'x'));
    }
    sent_all = stream->Write(req);
    if (m % 40 == 0) {
      peak_kib = std::max(peak_kib, testing::Resident(cluster_.gnomond()->pid()).total);
      const absl::Time start = absl::Now();
      EXPECT_TRUE(AdminListJobs().ok());
      took.push_back(absl::Now() - start);
    }
  }
  EXPECT_TRUE(sent_all) << "the stream broke";
  stream->WritesDone();
  reader.join();
  const grpc::Status end = stream->Finish();
  EXPECT_TRUE(end.ok()) << end.error_message();
  EXPECT_EQ(acked.load(), kMessages);
  peak_kib = std::max(peak_kib, testing::Resident(cluster_.gnomond()->pid()).total);
  EXPECT_LE(peak_kib, kMaxRssKiB);
  std::sort(took.begin(), took.end());
  std::printf(
      "results flood (%d MiB offered): gnomond RSS %lld MiB before, peak %lld MiB; admin "
      "ListJobs max %s\n",
      kMessages, static_cast<long long>(before_kib / 1024), static_cast<long long>(peak_kib / 1024),
      absl::FormatDuration(took.back()).c_str());
  v1::GetRunRequest get;
  get.set_run_id(run_id_);
  get.set_log_lines(100000);
  v1::GetRunResponse run;
  grpc::ClientContext admin;
  admin.AddMetadata(std::string(kAuthorizationKey), BearerValue(cluster_.admin_token()));
  ASSERT_TRUE(v1::JobAdmin::NewStub(channel_)->GetRun(&admin, get, &run).ok());
  EXPECT_TRUE(run.run().log_truncated());
  // The flood's 2,000-byte lines stopped at the byte budget; the slow
  // handler's own few short lines count towards it too.
  constexpr int kBudgetLines = (kLogMib << 20) / 2000;
  EXPECT_LE(run.run().log_line_count(), kBudgetLines + 100);
  EXPECT_GE(run.run().log_line_count(), kBudgetLines - 100);
}

}  // namespace
}  // namespace gnomon

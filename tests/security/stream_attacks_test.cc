// Attacks by a caller with a weak credential (a viewer's token) on a real
// gnomond on loopback: a flood of log follows (each would hold a server
// thread, and over HTTP a connection slot, for as long as the run lasts) and
// a flood of queries. Each asserts the refusal (RESOURCE_EXHAUSTED, 429 over
// HTTP), that other callers keep their share — another viewer can follow, an
// admin's calls are answered — and that gnomond's memory stays bounded. (The
// admin calls' lateness is printed, not asserted: the machines are shared.)
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
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
#include "tests/support/stream_follower.h"

namespace gnomon {
namespace {

using testing::Follower;
using testing::kPatience;

constexpr int kPerCredential = 4;
constexpr int kInAll = 12;
constexpr int64_t kMaxRssKiB = 300 * 1024;

class StreamAttacksTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    std::optional<std::string> url = cluster_.HttpUrl();
    ASSERT_TRUE(url) << cluster_.Output();
    http_ = *url;
    channel_ = grpc::CreateChannel(cluster_.address(), grpc::InsecureChannelCredentials());
    ASSERT_TRUE(cluster_.CtlJson({"group", "create", "flood-app"}, &group_));
    executor_ = cluster_.StartExecutor("flood-app", group_.access_token());
    ASSERT_TRUE(executor_->WaitForLine("started as", absl::Seconds(30))) << executor_->Output();
    // A run that goes on long after the test is over, whose log is followed.
    v1::Job job;
    ASSERT_TRUE(cluster_.CtlJson({"job", "create", "--group", absl::StrCat(group_.id()),
                                  "--handler", "slow", "--params", "600000", "--manual"},
                                 &job));
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    testing::CommandResult r;
    // Until the executor has registered, a trigger finds no executor.
    while ((r = cluster_.Ctl({"job", "trigger", absl::StrCat(job.id())})).exit_code != 0 &&
           absl::Now() < deadline) {
      cluster_.PollInterval(absl::Milliseconds(200));
    }
    v1::ListRunsResponse runs;
    ASSERT_TRUE(cluster_.CtlJson({"run", "list", "--job", absl::StrCat(job.id())}, &runs));
    ASSERT_EQ(runs.runs_size(), 1) << r.err;
    run_id_ = runs.runs(0).id();
  }

  std::string ViewerToken(const std::string& name) {
    v1::CreateTokenResponse t;
    EXPECT_TRUE(cluster_.CtlJson(
        {"token", "create", name, "--role", "viewer", "--group", absl::StrCat(group_.id())}, &t));
    return t.secret();
  }
  std::unique_ptr<Follower<v1::LogLine>> FollowLog(const std::string& token) {
    return std::make_unique<Follower<v1::LogLine>>([this, token](grpc::ClientContext* ctx) {
      ctx->AddMetadata(std::string(kAuthorizationKey), BearerValue(token));
      v1::StreamRunLogRequest req;
      req.set_run_id(run_id_);
      req.set_follow(true);
      return v1::LogService::NewStub(channel_)->StreamRunLog(ctx, req);
    });
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
  int64_t RssKiB() {
    std::ifstream status(absl::StrCat("/proc/", cluster_.gnomond()->pid(), "/status"));
    std::string line;
    while (std::getline(status, line)) {
      int64_t kib = -1;
      if (absl::StartsWith(line, "VmRSS:") && (std::istringstream(line.substr(6)) >> kib))
        return kib;
    }
    return -1;
  }

  testing::GnomonCluster cluster_{{"--http-listen=127.0.0.1:0",
                                   absl::StrCat("--log-follows-per-credential=", kPerCredential),
                                   absl::StrCat("--log-follows=", kInAll)}};
  std::shared_ptr<grpc::Channel> channel_;
  std::string http_;
  v1::Group group_;
  std::unique_ptr<testing::Subprocess> executor_;
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
  EXPECT_LE(RssKiB(), kMaxRssKiB);
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

}  // namespace
}  // namespace gnomon

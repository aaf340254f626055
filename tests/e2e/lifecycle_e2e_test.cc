// Run life cycles through real processes: retries with backoff, child jobs,
// a live log tail, killing a run from the admin side, an executor lost mid-run,
// reports, and bad input on the registry's Session stream.
#include <signal.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gnomon/v1/admin.grpc.pb.h"
#include "gnomon/v1/log.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "services/common/client/auth_metadata.h"
#include "tests/support/gnomon_cluster.h"

namespace gnomon {
namespace {

using google::protobuf::util::TimeUtil;
using testing::CommandResult;

class LifecycleE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.Start()) << cluster_.Output();
    ASSERT_TRUE(cluster_.CtlJson({"group", "create", "life-app"}, &group_));
    executor_ = cluster_.StartExecutor("life-app", group_.access_token());
    auto line = executor_->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30));
    ASSERT_TRUE(line) << executor_->Output();
    address_ = std::string(absl::StripAsciiWhitespace(line->substr(line->rfind(' ') + 1)));
  }

  // Polls `done` (reading run records) until it holds or 30 s pass.
  template <typename Fn>
  bool WaitFor(Fn done) {
    const absl::Time deadline = absl::Now() + absl::Seconds(30);
    while (absl::Now() < deadline) {
      if (done()) return true;
      cluster_.PollInterval(absl::Milliseconds(100));
    }
    return false;
  }

  int64_t CreateJob(std::vector<std::string> flags) {
    std::vector<std::string> args = {"job", "create", "--group", absl::StrCat(group_.id())};
    args.insert(args.end(), flags.begin(), flags.end());
    v1::Job job;
    EXPECT_TRUE(cluster_.CtlJson(args, &job));
    return job.id();
  }

  std::vector<v1::Run> Runs(int64_t job_id) {
    v1::ListRunsResponse runs;
    EXPECT_TRUE(
        cluster_.CtlJson({"run", "list", "--job", absl::StrCat(job_id), "--limit", "500"}, &runs));
    return {runs.runs().begin(), runs.runs().end()};
  }

  // Triggers once the executor is routable (a NO_EXECUTOR run is retried).
  std::vector<int64_t> Trigger(int64_t job_id, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"job", "trigger", absl::StrCat(job_id)};
    args.insert(args.end(), extra.begin(), extra.end());
    v1::TriggerJobResponse resp;
    EXPECT_TRUE(cluster_.CtlJson(args, &resp));
    return {resp.run_ids().begin(), resp.run_ids().end()};
  }

  // Triggers the job and waits until the new run leaves `from` (PENDING for
  // "dispatched", RUNNING too for "ended"); returns it.
  v1::Run TriggerAndWait(int64_t job_id, bool until_ended) {
    const int64_t id = Trigger(job_id)[0];
    v1::Run r;
    WaitFor([&] {
      r = Get(id);
      return r.status() != v1::RUN_STATUS_PENDING &&
             (!until_ended || r.status() != v1::RUN_STATUS_RUNNING);
    });
    return r;
  }

  v1::Run Get(int64_t run_id) {
    v1::GetRunResponse r;
    EXPECT_TRUE(cluster_.CtlJson({"run", "get", absl::StrCat(run_id)}, &r));
    return r.run();
  }

  // A second sample executor in the group, listening (for broadcasts).
  std::unique_ptr<testing::Subprocess> StartSecondExecutor() {
    auto second = cluster_.StartExecutor("life-app", group_.access_token(),
                                         {"--spool-dir=" + cluster_.dir() + "/spool-second",
                                          "--log-dir=" + cluster_.dir() + "/logs-second"});
    auto line = second->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30));
    EXPECT_TRUE(line) << second->Output();
    return line ? std::move(second) : nullptr;
  }

  testing::GnomonCluster cluster_;
  v1::Group group_;
  std::unique_ptr<testing::Subprocess> executor_;
  std::string address_;
};

// gnomonctl executor list: what the scheduler routes to, per group.
TEST_F(LifecycleE2E, ExecutorListShowsOnlineExecutorsAndManualAddresses) {
  v1::Group manual;
  ASSERT_TRUE(
      cluster_.CtlJson({"group", "create", "life-manual", "--addresses", "127.0.0.1:1"}, &manual));
  v1::ListExecutorsResponse listed;
  ASSERT_TRUE(WaitFor([&] {
    return cluster_.CtlJson({"executor", "list", "-o", "json"}, &listed) &&
           listed.groups_size() == 2 && listed.groups(0).executors_size() == 1;
  })) << listed.DebugString();
  const v1::ExecutorInfo& e = listed.groups(0).executors(0);
  EXPECT_EQ(listed.groups(0).group_id(), group_.id());
  EXPECT_EQ(e.address(), address_);
  EXPECT_GT(e.capacity(), 0u);
  EXPECT_NE(std::find(e.handlers().begin(), e.handlers().end(), "demo"), e.handlers().end());
  EXPECT_TRUE(e.has_last_beat_time());
  EXPECT_EQ(e.registry_replica(), "replica-0");  // The registry replica holding its session.
  ASSERT_EQ(listed.groups(1).manual_size(), 1);
  EXPECT_EQ(listed.groups(1).manual(0).address(), "127.0.0.1:1");
  testing::CommandResult table =
      cluster_.Ctl({"executor", "list", "--group", absl::StrCat(group_.id())});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find(address_), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("online"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("life-manual"), std::string::npos) << table.out;
}

TEST_F(LifecycleE2E, FailedRunIsRetriedWithBackoffAsLinkedAttempts) {
  const int64_t job = CreateJob({"--handler", "fail", "--manual", "--retries", "2", "--retry-delay",
                                 "300ms", "--retry-multiplier", "2"});
  // Wait until the executor is routable: a manual trigger lands on it.
  ASSERT_TRUE(WaitFor([&] {
    v1::Run r = TriggerAndWait(job, true);
    return r.status() == v1::RUN_STATUS_FAILED && r.executor_address() == address_;
  }));
  // Find a chain of attempts 0, 1, 2 linked to one first attempt.
  std::vector<v1::Run> chain;
  ASSERT_TRUE(WaitFor([&] {
    std::vector<v1::Run> all = Runs(job);
    for (const v1::Run& r : all) {
      if (r.attempt() == 2 && r.status() == v1::RUN_STATUS_FAILED) {
        chain.clear();
        for (const v1::Run& x : all) {
          if (x.first_run_id() == r.first_run_id()) chain.push_back(x);
        }
        return chain.size() == 3;
      }
    }
    return false;
  }));
  std::sort(chain.begin(), chain.end(), [](auto& a, auto& b) { return a.attempt() < b.attempt(); });
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(chain[i].attempt(), i);
    EXPECT_EQ(chain[i].first_run_id(), chain[0].id());
    EXPECT_EQ(chain[i].handle_code(), 500);
  }
  EXPECT_EQ(chain[1].trigger_type(), v1::TRIGGER_TYPE_RETRY);
  // Backoff: the second retry waited about twice as long as the first (>= 300 ms, >= 600 ms).
  const int64_t gap1 = TimeUtil::TimestampToMilliseconds(chain[1].trigger_time()) -
                       TimeUtil::TimestampToMilliseconds(chain[0].end_time());
  const int64_t gap2 = TimeUtil::TimestampToMilliseconds(chain[2].trigger_time()) -
                       TimeUtil::TimestampToMilliseconds(chain[1].end_time());
  EXPECT_GE(gap1, 300);
  EXPECT_GE(gap2, 600);
  // No fourth attempt is ever made.
  for (const v1::Run& r : Runs(job)) EXPECT_LE(r.attempt(), 2u);
}

TEST_F(LifecycleE2E, SuccessfulParentTriggersItsChildWithTheParentRecorded) {
  const int64_t child = CreateJob({"--handler", "demo", "--manual", "--params", "child"});
  const int64_t parent =
      CreateJob({"--handler", "demo", "--manual", "--children", absl::StrCat(child)});
  int64_t parent_run = 0;
  ASSERT_TRUE(WaitFor([&] {
    v1::Run r = TriggerAndWait(parent, true);
    parent_run = r.id();
    return r.status() == v1::RUN_STATUS_SUCCEEDED;
  }));
  ASSERT_TRUE(WaitFor([&] {
    for (const v1::Run& r : Runs(child)) {
      if (r.parent_run_id() == parent_run) {
        EXPECT_EQ(r.trigger_type(), v1::TRIGGER_TYPE_PARENT);
        return r.status() == v1::RUN_STATUS_SUCCEEDED;
      }
    }
    return false;
  }));
  // A cycle is refused: the child cannot name its parent as its child.
  CommandResult r =
      cluster_.Ctl({"job", "update", absl::StrCat(child), "--children", absl::StrCat(parent)});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("cycle"), std::string::npos) << r.err;
}

TEST_F(LifecycleE2E, LogTailFollowsARunningJobAndKillEndsIt) {
  const int64_t job = CreateJob({"--handler", "slow", "--manual", "--params", "20000"});
  int64_t run = 0;
  ASSERT_TRUE(WaitFor([&] {
    v1::Run r = TriggerAndWait(job, false);
    run = r.id();
    return r.status() == v1::RUN_STATUS_RUNNING;
  }));
  // gnomonctl run logs -f: prints the lines so far and keeps following.
  testing::Subprocess tail({GNOMONCTL_PATH, "--server", cluster_.address(), "--token",
                            cluster_.admin_token(), "run", "logs", "-f", absl::StrCat(run)});
  ASSERT_TRUE(tail.WaitForLine("sleeping 20000 ms", absl::Seconds(20))) << tail.Output();
  // Kill from the admin side: the executor stops the run, which ends as killed.
  CommandResult k = cluster_.Ctl({"run", "kill", absl::StrCat(run)});
  ASSERT_EQ(k.exit_code, 0) << k.err;
  ASSERT_TRUE(WaitFor([&] { return Get(run).status() == v1::RUN_STATUS_FAILED; }));
  EXPECT_EQ(Get(run).handle_code(), v1::HANDLE_CODE_KILLED);
  // The tail saw the cancellation line and ended with the run.
  EXPECT_TRUE(tail.WaitForLine("cancelled", absl::Seconds(20))) << tail.Output();
  EXPECT_EQ(tail.Wait(), 0) << tail.Output();
}

TEST_F(LifecycleE2E, RunOnAnExecutorKilledMidRunFailsAsExecutorLost) {
  const int64_t job = CreateJob({"--handler", "slow", "--manual", "--params", "60000"});
  int64_t run = 0;
  ASSERT_TRUE(WaitFor([&] {
    v1::Run r = TriggerAndWait(job, false);
    run = r.id();
    return r.status() == v1::RUN_STATUS_RUNNING;
  }));
  // Mid-run: the executor's start report is stored (RUNNING alone is the
  // acceptance, which can come before it).
  ASSERT_TRUE(WaitFor([&] { return Get(run).has_start_time(); }));
  executor_->Kill(SIGKILL);
  executor_->Wait();
  ASSERT_TRUE(WaitFor([&] { return Get(run).status() == v1::RUN_STATUS_FAILED; }));
  v1::Run r = Get(run);
  EXPECT_EQ(r.handle_code(), v1::HANDLE_CODE_EXECUTOR_LOST);
  EXPECT_NE(r.handle_message().find("executor lost"), std::string::npos) << r.handle_message();
  // Long before XXL-JOB's 10 minutes: well under the run's own 60 s.
  EXPECT_LT(TimeUtil::TimestampToMilliseconds(r.end_time()) -
                TimeUtil::TimestampToMilliseconds(r.start_time()),
            30'000);
}

TEST_F(LifecycleE2E, ReportCountsSucceededAndFailedRunsOfToday) {
  const int64_t ok_job = CreateJob({"--handler", "demo", "--manual"});
  const int64_t bad_job = CreateJob({"--handler", "fail", "--manual"});
  ASSERT_TRUE(WaitFor([&] {
    Trigger(ok_job);
    Trigger(bad_job);
    int ok = 0, bad = 0;
    for (const v1::Run& r : Runs(ok_job)) ok += r.status() == v1::RUN_STATUS_SUCCEEDED;
    for (const v1::Run& r : Runs(bad_job))
      bad += r.status() == v1::RUN_STATUS_FAILED && r.handle_code() == 500;
    return ok >= 2 && bad >= 2;
  }));
  // Let every run triggered so far end, so the counts below are final.
  ASSERT_TRUE(WaitFor([&] {
    for (const v1::Run& r : Runs(ok_job)) {
      if (r.status() == v1::RUN_STATUS_PENDING || r.status() == v1::RUN_STATUS_RUNNING)
        return false;
    }
    return true;
  }));
  int succeeded = 0, failed = 0;
  for (const v1::Run& r : Runs(ok_job)) succeeded += r.status() == v1::RUN_STATUS_SUCCEEDED;
  for (const v1::Run& r : Runs(ok_job)) failed += r.status() == v1::RUN_STATUS_FAILED;
  v1::GetStatsResponse stats;
  ASSERT_TRUE(
      cluster_.CtlJson({"stats", "show", "--days", "1", "--job", absl::StrCat(ok_job)}, &stats));
  ASSERT_EQ(stats.rows_size(), 1) << stats.DebugString();
  EXPECT_EQ(stats.rows(0).succeeded(), succeeded);
  EXPECT_EQ(stats.rows(0).failed(), failed);
  CommandResult table = cluster_.Ctl({"stats", "show"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("SUCCEEDED"), std::string::npos) << table.out;
}

TEST_F(LifecycleE2E, BadInputOnTheSessionStreamIsRefusedAndOthersAreUnaffected) {
  auto registry = v1::Registry::NewStub(
      grpc::CreateChannel(cluster_.address(), grpc::InsecureChannelCredentials()));
  struct Case {
    std::string name;
    v1::SessionRequest first;
    std::string field;
  };
  auto reg = [](std::string app, std::string address, std::string handler) {
    v1::SessionRequest r;
    r.mutable_register_()->set_app_name(app);
    r.mutable_register_()->set_address(address);
    r.mutable_register_()->add_handlers(handler);
    return r;
  };
  v1::SessionRequest beat_first;
  beat_first.mutable_beat();
  std::vector<Case> cases = {
      {"empty app", reg("", "127.0.0.1:1", "h"), "app_name"},
      {"oversized app", reg(std::string(65, 'a'), "127.0.0.1:1", "h"), "app_name"},
      {"bad address", reg("life-app", "not an address", "h"), "address"},
      {"unprintable handler", reg("life-app", "127.0.0.1:1", "bad\x01name"), "handlers"},
      {"beat before register", beat_first, "register"},
      // Authenticated for life-app, registering another app.
      {"app other than the metadata's", reg("other-app", "127.0.0.1:1", "h"), "x-gnomon-app"},
  };
  for (const Case& c : cases) {
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAccessTokenKey), group_.access_token());
    ctx.AddMetadata(std::string(kAppNameKey), "life-app");
    auto stream = registry->Session(&ctx);
    stream->Write(c.first);
    stream->WritesDone();
    v1::SessionResponse resp;
    EXPECT_FALSE(stream->Read(&resp)) << c.name;
    grpc::Status s = stream->Finish();
    EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
        << c.name << ": " << s.error_message();
    EXPECT_NE(s.error_message().find(c.field), std::string::npos)
        << c.name << ": " << s.error_message();
  }
  // A wrong token is refused too.
  {
    grpc::ClientContext ctx;
    ctx.AddMetadata(std::string(kAccessTokenKey), "wrong");
    ctx.AddMetadata(std::string(kAppNameKey), "life-app");
    auto stream = registry->Session(&ctx);
    stream->Write(reg("life-app", "127.0.0.1:2", "h"));
    stream->WritesDone();
    v1::SessionResponse resp;
    EXPECT_FALSE(stream->Read(&resp));
    EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::UNAUTHENTICATED);
  }
  // The real executor's session was unaffected: it still runs jobs.
  const int64_t job = CreateJob({"--handler", "demo", "--manual"});
  ASSERT_TRUE(WaitFor([&] {
    v1::Run r = TriggerAndWait(job, true);
    return r.status() == v1::RUN_STATUS_SUCCEEDED && r.executor_address() == address_;
  }));
}

TEST_F(LifecycleE2E, FixDelayFiresTheDelayAfterThePreviousRunEnded) {
  // Each run takes ~300 ms; the next fire is 200 ms after the previous end,
  // so consecutive scheduled instants are at least 500 ms apart.
  const int64_t job =
      CreateJob({"--handler", "slow", "--params", "300", "--delay", "200ms", "--start"});
  std::vector<v1::Run> done;
  ASSERT_TRUE(WaitFor([&] {
    done.clear();
    for (const v1::Run& r : Runs(job)) {
      if (r.status() == v1::RUN_STATUS_SUCCEEDED) done.push_back(r);
    }
    return done.size() >= 3;
  }));
  cluster_.Ctl({"job", "stop", absl::StrCat(job)});
  std::sort(done.begin(), done.end(), [](auto& a, auto& b) { return a.id() < b.id(); });
  for (size_t i = 1; i < done.size(); ++i) {
    EXPECT_EQ(done[i].trigger_type(), v1::TRIGGER_TYPE_FIX_DELAY);
    const int64_t prev_end = TimeUtil::TimestampToMilliseconds(done[i - 1].end_time());
    const int64_t next = TimeUtil::TimestampToMilliseconds(done[i].scheduled_time());
    EXPECT_EQ(next, prev_end + 200) << "run " << done[i].id();
  }
}

TEST_F(LifecycleE2E, BackfillFiresThePastSlotsOnceEach) {
  const int64_t job = CreateJob({"--handler", "demo", "--cron", "*/10 * * * * ?"});
  const absl::Time now = absl::Now();
  const absl::Time from = absl::FromUnixSeconds(absl::ToUnixSeconds(now) / 60 * 60 - 120);
  const std::string from_s = absl::FormatTime(absl::RFC3339_full, from, absl::UTCTimeZone());
  const std::string to_s =
      absl::FormatTime(absl::RFC3339_full, from + absl::Minutes(1), absl::UTCTimeZone());
  v1::BackfillResponse first, again;
  ASSERT_TRUE(cluster_.CtlJson(
      {"job", "backfill", absl::StrCat(job), "--from", from_s, "--to", to_s}, &first));
  EXPECT_EQ(first.run_ids_size(), 6);  // :00, :10, ... :50 of that minute.
  ASSERT_TRUE(cluster_.CtlJson(
      {"job", "backfill", absl::StrCat(job), "--from", from_s, "--to", to_s}, &again));
  EXPECT_EQ(again.run_ids_size(), 0);  // Slots already fired are skipped.
  for (const v1::Run& r : Runs(job)) EXPECT_EQ(r.trigger_type(), v1::TRIGGER_TYPE_BACKFILL);
}

TEST_F(LifecycleE2E, BroadcastRunsEveryShardAndChildrenCanWaitForAllShards) {
  auto second = StartSecondExecutor();
  ASSERT_NE(second, nullptr);
  const int64_t child = CreateJob({"--handler", "demo", "--manual"});
  const int64_t parent =
      CreateJob({"--handler", "sharding", "--manual", "--route", "broadcast", "--children",
                 absl::StrCat(child), "--children-after-all-shards"});
  // Trigger until both executors take a shard.
  std::vector<int64_t> shards;
  ASSERT_TRUE(WaitFor([&] {
    shards = Trigger(parent);
    return shards.size() == 2;
  }));
  std::vector<v1::Run> runs;
  ASSERT_TRUE(WaitFor([&] {
    runs.clear();
    for (int64_t id : shards) runs.push_back(Get(id));
    return runs[0].status() == v1::RUN_STATUS_SUCCEEDED &&
           runs[1].status() == v1::RUN_STATUS_SUCCEEDED;
  }));
  EXPECT_EQ(runs[0].shard_total(), 2u);
  EXPECT_NE(runs[0].shard_index(), runs[1].shard_index());
  EXPECT_NE(runs[0].executor_address(), runs[1].executor_address());
  // One child run for the whole fire, parented on shard 0's run.
  const int64_t shard0 = runs[0].shard_index() == 0 ? runs[0].id() : runs[1].id();
  std::vector<v1::Run> children;
  ASSERT_TRUE(WaitFor([&] {
    children.clear();
    for (const v1::Run& r : Runs(child)) {
      if (r.parent_run_id() == shard0) children.push_back(r);
    }
    return !children.empty() && children[0].status() == v1::RUN_STATUS_SUCCEEDED;
  }));
  cluster_.PollInterval(absl::Milliseconds(500));  // Room for a wrong second child to appear.
  int total = 0;
  for (const v1::Run& r : Runs(child))
    total += r.parent_run_id() == shard0 || r.parent_run_id() == shards[0] ||
             r.parent_run_id() == shards[1];
  EXPECT_EQ(total, 1);
}

TEST_F(LifecycleE2E, BroadcastRetryRerunsOnlyTheFailedShard) {
  auto second = StartSecondExecutor();
  ASSERT_NE(second, nullptr);
  const int64_t job = CreateJob({"--handler", "sharding", "--manual", "--route", "broadcast",
                                 "--retries", "1", "--retry-delay", "100ms"});
  std::vector<int64_t> shards;
  ASSERT_TRUE(WaitFor([&] {
    shards = Trigger(job, {"--params", "fail-shard=1"});
    return shards.size() == 2;
  }));
  std::vector<v1::Run> firsts;
  ASSERT_TRUE(WaitFor([&] {
    firsts.clear();
    for (int64_t id : shards) firsts.push_back(Get(id));
    return firsts[0].has_end_time() && firsts[1].has_end_time();
  }));
  std::sort(firsts.begin(), firsts.end(),
            [](auto& a, auto& b) { return a.shard_index() < b.shard_index(); });
  ASSERT_EQ(firsts[0].status(), v1::RUN_STATUS_SUCCEEDED);
  ASSERT_EQ(firsts[1].status(), v1::RUN_STATUS_FAILED);
  // One retry, of shard 1 only, linked to its first attempt (and it fails
  // again: the params are kept; retries are exhausted after it).
  std::vector<v1::Run> retries;
  ASSERT_TRUE(WaitFor([&] {
    retries.clear();
    for (const v1::Run& r : Runs(job)) {
      if (r.attempt() > 0) retries.push_back(r);
    }
    return retries.size() == 1 && retries[0].has_end_time();
  }));
  EXPECT_EQ(retries[0].shard_index(), 1u);
  EXPECT_EQ(retries[0].shard_total(), 2u);
  EXPECT_EQ(retries[0].first_run_id(), firsts[1].id());
  EXPECT_EQ(retries[0].trigger_type(), v1::TRIGGER_TYPE_RETRY);
  EXPECT_EQ(retries[0].params(), "fail-shard=1");
  EXPECT_EQ(retries[0].status(), v1::RUN_STATUS_FAILED);
  cluster_.PollInterval(absl::Milliseconds(500));  // Room for a wrong extra retry to appear.
  int extra = 0;
  for (const v1::Run& r : Runs(job)) extra += r.attempt() > 0;
  EXPECT_EQ(extra, 1);
}

TEST_F(LifecycleE2E, AnExecutorWithAFullQueueIsSkippedAndFirstFailsOverToTheNext) {
  // Both executors of the group let no run of a job wait behind a running one.
  executor_.reset();
  auto one =
      cluster_.StartExecutor("life-app", group_.access_token(), {"--max-queued-runs-per-job=0"});
  ASSERT_TRUE(one->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30)));
  auto two = cluster_.StartExecutor(
      "life-app", group_.access_token(),
      {"--max-queued-runs-per-job=0", "--spool-dir=" + cluster_.dir() + "/spool-two",
       "--log-dir=" + cluster_.dir() + "/logs-two"});
  ASSERT_TRUE(two->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30)));
  const int64_t job =
      CreateJob({"--handler", "slow", "--params", "60000", "--manual", "--route", "first"});
  // Wait until both are routable: a run fails 505 while one is missing.
  v1::Run first;
  ASSERT_TRUE(WaitFor([&] {
    first = TriggerAndWait(job, /*until_ended=*/false);
    return first.status() == v1::RUN_STATUS_RUNNING;
  }));
  // The first executor is busy with the job and refuses another run of it:
  // the run goes to the other executor instead of failing.
  v1::Run second = TriggerAndWait(job, /*until_ended=*/false);
  ASSERT_EQ(second.status(), v1::RUN_STATUS_RUNNING) << second.trigger_message();
  EXPECT_NE(second.executor_address(), first.executor_address());
  EXPECT_NE(second.trigger_message().find("(refused by " + first.executor_address() + ")"),
            std::string::npos)
      << second.trigger_message();
  // Both are busy with it now: the run fails, saying why.
  v1::Run third = TriggerAndWait(job, /*until_ended=*/true);
  EXPECT_EQ(third.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(third.trigger_code(), 506);
  EXPECT_NE(third.trigger_message().find("queue is full"), std::string::npos)
      << third.trigger_message();
}

TEST_F(LifecycleE2E, QuickTriggersOfASerialJobExecuteInFireOrder) {
  const int64_t job = CreateJob({"--handler", "slow", "--params", "50", "--manual"});
  ASSERT_TRUE(WaitFor([&] {
    return TriggerAndWait(job, /*until_ended=*/true).status() == v1::RUN_STATUS_SUCCEEDED;
  }));
  std::vector<int64_t> ids;
  for (int i = 0; i < 8; ++i) ids.push_back(Trigger(job)[0]);
  std::vector<v1::Run> runs;
  ASSERT_TRUE(WaitFor([&] {
    runs.clear();
    for (int64_t id : ids) runs.push_back(Get(id));
    return std::all_of(runs.begin(), runs.end(),
                       [](const v1::Run& r) { return r.status() == v1::RUN_STATUS_SUCCEEDED; });
  }));
  // One executor, SERIAL_EXECUTION: each started after the previous one ended.
  for (size_t k = 1; k < runs.size(); ++k) {
    EXPECT_GE(TimeUtil::TimestampToMilliseconds(runs[k].start_time()),
              TimeUtil::TimestampToMilliseconds(runs[k - 1].end_time()))
        << "run " << runs[k].id() << " started before run " << runs[k - 1].id() << " ended";
  }
}

TEST_F(LifecycleE2E, ManualGroupRoutesOnlyToAddressesThatAnswerBeats) {
  v1::Group manual;
  ASSERT_TRUE(
      cluster_.CtlJson({"group", "create", "manual-app", "--addresses", "127.0.0.1:1"}, &manual));
  auto live = cluster_.StartExecutor("manual-app", manual.access_token());
  auto line = live->WaitForLine("gnomon-sample-executor started as", absl::Seconds(30));
  ASSERT_TRUE(line) << live->Output();
  const std::string live_address(absl::StripAsciiWhitespace(line->substr(line->rfind(' ') + 1)));
  // 127.0.0.1:1 sorts first, so FIRST would pick it if dead addresses were not skipped.
  v1::Group updated;
  ASSERT_TRUE(cluster_.CtlJson({"group", "update", absl::StrCat(manual.id()), "--addresses",
                                absl::StrCat("127.0.0.1:1,", live_address)},
                               &updated));
  v1::Job job;
  ASSERT_TRUE(cluster_.CtlJson({"job", "create", "--group", absl::StrCat(manual.id()), "--handler",
                                "demo", "--manual", "--route", "first"},
                               &job));
  // Once the dead address has failed a beat, every run goes to the live one.
  ASSERT_TRUE(WaitFor([&] {
    v1::Run r = TriggerAndWait(job.id(), true);
    return r.status() == v1::RUN_STATUS_SUCCEEDED;
  }));
  for (int i = 0; i < 3; ++i) {
    v1::Run r = TriggerAndWait(job.id(), true);
    EXPECT_EQ(r.status(), v1::RUN_STATUS_SUCCEEDED) << r.DebugString();
    EXPECT_EQ(r.executor_address(), live_address);
  }
}

}  // namespace
}  // namespace gnomon

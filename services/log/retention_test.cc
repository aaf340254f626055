// Retention: runs (with their logs) and audit entries older than
// --retention-days go, and runs beyond --max-runs-per-job per job, oldest
// first — but never a run that is still PENDING or RUNNING, or one whose
// follow-up (retry, child jobs, alarm) has not been handled, however old:
// retention racing a run must not lose its result or its retry. Real SQLite
// store; time is a SimulatedClock.
#include "services/log/retention.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/testing/failing_run_store.h"
#include "services/log/testing/run_fixtures.h"

namespace gnomon::logsvc {
namespace {

using ::testing::ElementsAre;
using testing::LogLines;
using testing::Result;
using testing::Started;

constexpr int64_t kDayMs = 86'400'000;
constexpr int64_t kNow = 1'800'000'000'000;
constexpr absl::Duration kPatience = absl::Seconds(60);  // Bounds a broken test only.

RetentionOptions Options(int days, int64_t max_runs_per_job, int batch,
                         absl::Duration interval = absl::Minutes(1)) {
  RetentionOptions o;
  o.days = days;
  o.max_runs_per_job = max_runs_per_job;
  o.batch = batch;
  o.interval = interval;
  return o;
}

class RetentionTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(f_.status().ok()) << f_.status(); }

  // A run of `job` that ended (with three log lines) at `end_ms`, its
  // follow-up handled unless `followup_pending`.
  int64_t EndedRun(const v1::Job& job, int64_t end_ms, bool followup_pending = false) {
    const int64_t id = f_.AddRun(job, end_ms - 1'000);
    EXPECT_TRUE(f_.store()->ApplyReports({LogLines(id, 1, 3), Result(id, 500, end_ms)}, 0).ok());
    if (!followup_pending) EXPECT_TRUE(f_.store()->CompleteFollowups({id}).ok());
    return id;
  }
  bool Exists(int64_t run_id) {
    absl::StatusOr<v1::Run> run = f_.store()->GetRun(run_id);
    EXPECT_TRUE(run.ok() || absl::IsNotFound(run.status())) << run.status();
    return run.ok();
  }
  size_t StoredLines(int64_t run_id) {
    absl::StatusOr<std::vector<v1::LogLine>> lines = f_.store()->ReadRunLog(run_id, 1, 100);
    EXPECT_TRUE(lines.ok()) << lines.status();
    return lines.ok() ? lines->size() : 0;
  }
  void Audit(int64_t at_ms) {
    v1::AuditEntry e;
    e.set_actor("admin:0123456789abcdef");
    e.set_method("UpdateJob");
    e.set_object("job/1");
    *e.mutable_time() = google::protobuf::util::TimeUtil::MillisecondsToTimestamp(at_ms);
    ASSERT_TRUE(f_.store()->AppendAudit(e).ok());
  }
  size_t AuditEntries() {
    absl::StatusOr<std::vector<v1::AuditEntry>> entries = f_.store()->ListAudit("", 0, 1000);
    EXPECT_TRUE(entries.ok()) << entries.status();
    return entries.ok() ? entries->size() : 0;
  }
  Retention Make(RetentionOptions options) {
    return Retention(&runs_, f_.store(), &clock_, options, f_.store());
  }

  testing::RunFixture f_;
  store::testing::StoreCallHook hook_;
  store::testing::FailingRunStore runs_{f_.store(), &hook_};
  SimulatedClock clock_{absl::FromUnixMillis(kNow)};
};

TEST_F(RetentionTest, RunsThatEndedBeforeTheRetentionPeriodAreDeletedWithTheirLogs) {
  const int64_t old = EndedRun(f_.job(), kNow - 30 * kDayMs - 1);
  const int64_t recent = EndedRun(f_.job(), kNow - 30 * kDayMs + 1'000);
  Retention retention = Make(Options(/*days=*/30, /*max_runs_per_job=*/0, /*batch=*/500));
  EXPECT_EQ(retention.Sweep(), 1);
  EXPECT_FALSE(Exists(old));
  EXPECT_EQ(StoredLines(old), 0u);
  EXPECT_TRUE(Exists(recent));
  EXPECT_EQ(StoredLines(recent), 3u);
  // As time passes it goes too: kept while exactly 30 days old, gone a millisecond later.
  clock_.Advance(absl::Seconds(1));
  EXPECT_EQ(retention.Sweep(), 0);
  clock_.Advance(absl::Milliseconds(1));
  EXPECT_EQ(retention.Sweep(), 1);
  EXPECT_FALSE(Exists(recent));
}

TEST_F(RetentionTest, ARunStillPendingOrRunningOrAwaitingItsFollowUpIsNeverDeletedHoweverOld) {
  const int64_t pending = f_.AddRun(f_.job(), kNow - 100 * kDayMs);
  const int64_t running = f_.AddRun(f_.job(), kNow - 99 * kDayMs);
  ASSERT_TRUE(f_.store()->ApplyReports({Started(running, kNow - 99 * kDayMs)}, 0).ok());
  // Its result came (days late, from an executor's spool), its retry has not fired yet.
  const int64_t awaiting_retry = EndedRun(f_.job(), kNow - 98 * kDayMs, /*followup_pending=*/true);
  Retention retention = Make(Options(/*days=*/30, /*max_runs_per_job=*/1, /*batch=*/500));
  EXPECT_EQ(retention.Sweep(), 0);
  for (int64_t id : {pending, running, awaiting_retry}) EXPECT_TRUE(Exists(id)) << id;
  EXPECT_EQ(StoredLines(awaiting_retry), 3u);

  // The run ends now: kept for the whole period from its end, not its start.
  ASSERT_TRUE(f_.store()->ApplyReports({Result(running, v1::HANDLE_CODE_SUCCESS, kNow)}, 0).ok());
  ASSERT_TRUE(f_.store()->CompleteFollowups({running, awaiting_retry}).ok());
  EXPECT_EQ(retention.Sweep(), 1);  // Handled now, it goes; the one that just ended stays.
  EXPECT_FALSE(Exists(awaiting_retry));
  EXPECT_TRUE(Exists(running));
  EXPECT_TRUE(Exists(pending));
}

// Results arriving while retention sweeps: a run that ends with an end time
// far beyond the period (an executor's spool delivering late) is never
// deleted before its follow-up is handled, whatever the interleaving.
TEST_F(RetentionTest, RunsEndingWhileRetentionSweepsKeepTheirResultsUntilTheirFollowUpsAreHandled) {
  std::vector<int64_t> runs;
  for (int i = 0; i < 40; ++i) runs.push_back(f_.AddRun(f_.job(), kNow - 60 * kDayMs + i * 1'000));
  Retention retention = Make(Options(/*days=*/30, /*max_runs_per_job=*/1, /*batch=*/3));
  std::atomic<bool> done{false};
  std::thread sweeper([&] {
    while (!done) retention.Sweep();
  });
  for (int64_t id : runs) {
    ASSERT_TRUE(f_.store()
                    ->ApplyReports({LogLines(id, 1, 2), Result(id, 500, kNow - 59 * kDayMs)}, 0)
                    .ok());
  }
  done = true;
  sweeper.join();
  retention.Sweep();
  for (int64_t id : runs) {
    ASSERT_TRUE(Exists(id)) << id;
    EXPECT_EQ(StoredLines(id), 2u) << id;
  }
}

TEST_F(RetentionTest, OldRunsAreDeletedInBatchesUntilNoneIsLeft) {
  for (int i = 0; i < 5; ++i) EndedRun(f_.job(), kNow - 40 * kDayMs + i);
  const int64_t kept = EndedRun(f_.job(), kNow - kDayMs);
  Retention retention = Make(Options(/*days=*/30, /*max_runs_per_job=*/0, /*batch=*/2));
  EXPECT_EQ(retention.Sweep(), 5);
  EXPECT_EQ(hook_.calls("DeleteRunsEndedBefore"), 3);  // 2 + 2 + 1: one short transaction each.
  EXPECT_TRUE(Exists(kept));
}

TEST_F(RetentionTest, ABatchBelowOneCountsAsOneAndTheSweepEnds) {
  for (int i = 0; i < 3; ++i) EndedRun(f_.job(), kNow - 40 * kDayMs + i);
  Retention retention = Make(Options(/*days=*/30, /*max_runs_per_job=*/0, /*batch=*/0));
  EXPECT_EQ(retention.Sweep(), 3);
  EXPECT_EQ(hook_.calls("DeleteRunsEndedBefore"), 4);  // 1 + 1 + 1, then one that finds none.
}

TEST_F(RetentionTest, LoginSessionsThatEndedOverADayAgoArePrunedAndApiTokensKept) {
  store::Store& s = *f_.store();
  const auto session = [](const char* user) {
    return store::TokenScope{v1::ROLE_VIEWER, {}, user};
  };
  // Ended two days ago (revoked, expired), ended an hour ago, still valid.
  ASSERT_TRUE(
      s.CreateAdminToken("login.a.1", std::string(64, '1'), kNow - 3 * kDayMs, 0, session("a"))
          .ok());
  ASSERT_TRUE(s.RevokeAdminToken("login.a.1", kNow - 2 * kDayMs).ok());
  ASSERT_TRUE(s.CreateAdminToken("login.a.2", std::string(64, '2'), kNow - 3 * kDayMs,
                                 kNow - 2 * kDayMs, session("a"))
                  .ok());
  ASSERT_TRUE(s.CreateAdminToken("login.a.3", std::string(64, '3'), kNow - kDayMs, kNow - 3'600'000,
                                 session("a"))
                  .ok());
  ASSERT_TRUE(
      s.CreateAdminToken("login.a.4", std::string(64, '4'), kNow, kNow + kDayMs, session("a"))
          .ok());
  // An API token revoked long ago stays listed.
  ASSERT_TRUE(s.CreateAdminToken("ci", std::string(64, '5'), kNow - 9 * kDayMs).ok());
  ASSERT_TRUE(s.RevokeAdminToken("ci", kNow - 8 * kDayMs).ok());
  Make(Options(/*days=*/30, /*max_runs_per_job=*/0, /*batch=*/1)).Sweep();
  absl::StatusOr<std::vector<v1::ApiToken>> left = s.ListAdminTokens();
  ASSERT_TRUE(left.ok()) << left.status();
  std::vector<std::string> names;
  for (const v1::ApiToken& t : *left) names.push_back(t.name());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ci", "login.a.3", "login.a.4"}));
}

TEST_F(RetentionTest, TrimmingPerJobKeepsTheNewestRunsOfEachJob) {
  absl::StatusOr<v1::Job> other = f_.AddJob(f_.group().id(), "other");
  ASSERT_TRUE(other.ok()) << other.status();
  std::vector<int64_t> busy;  // Oldest first.
  for (int i = 0; i < 5; ++i) busy.push_back(EndedRun(f_.job(), kNow - 10'000 + i * 1'000));
  const int64_t quiet = EndedRun(*other, kNow - 100 * kDayMs);
  Retention retention = Make(Options(/*days=*/0, /*max_runs_per_job=*/2, /*batch=*/2));
  EXPECT_EQ(retention.Sweep(), 3);
  std::vector<bool> exists;
  for (int64_t id : busy) exists.push_back(Exists(id));
  EXPECT_THAT(exists, ElementsAre(false, false, false, true, true));
  EXPECT_TRUE(Exists(quiet));  // days = 0: kept for ever, and the only run of its job.
}

TEST_F(RetentionTest, TheAuditLogIsKeptAsLongAsRuns) {
  for (int i = 0; i < 5; ++i) ASSERT_NO_FATAL_FAILURE(Audit(kNow - 31 * kDayMs + i));
  ASSERT_NO_FATAL_FAILURE(Audit(kNow - 29 * kDayMs));
  Make(Options(/*days=*/0, /*max_runs_per_job=*/0, /*batch=*/500)).Sweep();
  EXPECT_EQ(AuditEntries(), 6u);  // 0 days: for ever.
  Make(Options(/*days=*/30, /*max_runs_per_job=*/0, /*batch=*/2)).Sweep();
  EXPECT_EQ(AuditEntries(), 1u);
}

// A failing store does not stop retention: the other deletions go on, and
// the failed one is done at the next interval.
TEST_F(RetentionTest, ASweepThatFailsIsDoneAgainAtTheNextInterval) {
  const int64_t old = EndedRun(f_.job(), kNow - 31 * kDayMs);
  ASSERT_NO_FATAL_FAILURE(Audit(kNow - 31 * kDayMs));
  std::atomic<bool> down{true};
  hook_.Set(store::testing::FailWhile(&down, "DeleteRunsEndedBefore"));
  Retention retention =
      Make(Options(/*days=*/30, /*max_runs_per_job=*/0, /*batch=*/500, absl::Minutes(1)));
  retention.Start();
  clock_.BlockUntilWaiters(1);  // The first sweep is done.
  EXPECT_EQ(hook_.calls("DeleteRunsEndedBefore"), 1);
  EXPECT_TRUE(Exists(old));
  EXPECT_EQ(AuditEntries(), 0u);  // Trimmed all the same.
  down = false;
  clock_.Advance(absl::Minutes(1));
  ASSERT_TRUE(hook_.AwaitCalls("DeleteRunsEndedBefore", 2, kPatience));
  clock_.BlockUntilWaiters(1);  // The second sweep is done.
  EXPECT_FALSE(Exists(old));
  retention.Stop();  // Ends the wait at once, the clock unmoved.
}

}  // namespace
}  // namespace gnomon::logsvc

// StoreTest cases for the set-based batch paths (batch_sql.h, run_state.h):
// large and multi-statement batches, clashes and races inside one batch,
// and the number of statements a batch costs. Run against every backend;
// the suite is instantiated in store_test.cc.
#include <cppconn/statement.h>
#include <mysql_connection.h>

#include <cstdint>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::testing::ElementsAre;

constexpr int64_t kDay = 1704067200000;  // 2024-01-01T00:00:00Z.

DispatchUpdate Running(int64_t id, std::string address, int64_t ms) {
  return {id, v1::RUN_STATUS_RUNNING, 200, "dispatched", std::move(address), ms, 0, "", 0, 5};
}

DispatchUpdate NoExecutor(int64_t id, int64_t ms) {
  return {id,
          v1::RUN_STATUS_FAILED,
          v1::HANDLE_CODE_NO_EXECUTOR,
          "no executor",
          "",
          ms,
          v1::HANDLE_CODE_NO_EXECUTOR,
          "no live executor",
          ms,
          5};
}

TEST_P(StoreTest, HundredsOfRunsWithSomeClashingSlotsInOneBatch) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  // 300 slots taken first, every third one of the 900 below.
  std::vector<v1::Run> first;
  for (int i = 0; i < 900; i += 3) first.push_back(MakeRun(job_, kDay + i * 1000));
  ASSERT_OK_AND_ASSIGN(taken, store().InsertRuns(first));
  std::map<int64_t, int64_t> holder_of;  // slot -> id
  for (size_t k = 0; k < first.size(); ++k) {
    ASSERT_TRUE(taken[k].inserted);
    holder_of[kDay + static_cast<int64_t>(k) * 3000] = taken[k].run_id;
  }

  // 900 slots (two statements' worth and more), in reverse order, with a
  // manual run (no slot) and a retry of the first run mixed in.
  std::vector<v1::Run> batch;
  for (int i = 899; i >= 0; --i) batch.push_back(MakeRun(job_, kDay + i * 1000));
  v1::Run manual = MakeRun(job_, kDay);
  manual.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
  batch.insert(batch.begin() + 450, manual);
  v1::Run retry = MakeRun(job_, kDay, 0, 1);
  retry.set_trigger_type(v1::TRIGGER_TYPE_RETRY);
  retry.set_first_run_id(taken[0].run_id);
  batch.push_back(retry);

  ASSERT_OK_AND_ASSIGN(out, store().InsertRuns(batch));
  ASSERT_EQ(out.size(), batch.size());
  std::set<int64_t> ids;
  int inserted = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    const v1::Run& run = batch[i];
    const int64_t slot = run.scheduled_time().seconds() * 1000;
    if (run.trigger_type() == v1::TRIGGER_TYPE_CRON && holder_of.count(slot) > 0) {
      EXPECT_FALSE(out[i].inserted) << i;
      EXPECT_EQ(out[i].run_id, holder_of[slot]) << i;
      EXPECT_EQ(run.id(), 0) << i;  // Only inserted runs get their id.
      continue;
    }
    ASSERT_TRUE(out[i].inserted) << i;
    ++inserted;
    EXPECT_EQ(run.id(), out[i].run_id) << i;
    EXPECT_TRUE(ids.insert(out[i].run_id).second) << "id given twice: " << out[i].run_id;
  }
  EXPECT_EQ(inserted, 600 + 2);
  // The ids name the runs they were given for.
  for (size_t i = 0; i < batch.size(); i += 7) {
    if (!out[i].inserted) continue;
    ASSERT_OK_AND_ASSIGN(got, store().GetRun(out[i].run_id));
    EXPECT_EQ(got.trigger_type(), batch[i].trigger_type()) << i;
    EXPECT_EQ(got.scheduled_time().seconds(), batch[i].scheduled_time().seconds()) << i;
  }
  ASSERT_OK_AND_ASSIGN(got_manual, store().GetRun(out[450].run_id));
  EXPECT_EQ(got_manual.trigger_type(), v1::TRIGGER_TYPE_MANUAL);
  ASSERT_OK_AND_ASSIGN(got_retry, store().GetRun(out.back().run_id));
  EXPECT_EQ(got_retry.first_run_id(), taken[0].run_id);
  ASSERT_OK_AND_ASSIGN(report, store().GetStats(kDay, kDay + 86400000, job_.id()));
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0].running(), 300 + 602);  // Clashes are not counted.

  // The same slot twice in one batch: recorded once, the second names the first.
  std::vector<v1::Run> twice = {MakeRun(job_, kDay + 5000000), MakeRun(job_, kDay + 5000000)};
  ASSERT_OK_AND_ASSIGN(dup, store().InsertRuns(twice));
  EXPECT_TRUE(dup[0].inserted);
  EXPECT_FALSE(dup[1].inserted);
  EXPECT_EQ(dup[1].run_id, dup[0].run_id);
}

TEST_P(StoreTest, MultiStatementBatchOfUnslottedRunsGetsTheRightIds) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  // 1100 runs: statements of 512, 512, 64, 8 and 4 rows; manual runs carry
  // nothing to find them by but their ids.
  std::vector<v1::Run> batch;
  for (int i = 0; i < 1100; ++i) {
    v1::Run r = MakeRun(job_, kDay + i);
    if (i % 2 == 0) r.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
    r.set_params(absl::StrCat("n=", i));
    batch.push_back(r);
  }
  ASSERT_OK_AND_ASSIGN(out, store().InsertRuns(batch));
  std::set<int64_t> ids;
  for (size_t i = 0; i < batch.size(); ++i) {
    ASSERT_TRUE(out[i].inserted) << i;
    EXPECT_TRUE(ids.insert(out[i].run_id).second);
  }
  for (size_t i = 0; i < batch.size(); i += 37) {
    ASSERT_OK_AND_ASSIGN(got, store().GetRun(out[i].run_id));
    EXPECT_EQ(got.params(), absl::StrCat("n=", i));
  }
}

TEST_P(StoreTest, MysqlIdsOfABatchFollowTheAutoIncrementStep) {
  if (!is_mysql()) GTEST_SKIP() << "MySQL-specific: auto_increment_increment";
  std::unique_ptr<sql::Connection> raw = RawMysqlConnection();
  ASSERT_NE(raw, nullptr);
  std::unique_ptr<sql::Statement> st(raw->createStatement());
  st->execute("SET GLOBAL auto_increment_increment = 3");
  Reopen();  // New connections read the step.
  SeedGroupAndJob();
  std::vector<v1::Run> batch;
  for (int i = 0; i < 40; ++i) {
    v1::Run r = MakeRun(job_, kDay + i);
    r.set_trigger_type(v1::TRIGGER_TYPE_API);
    r.set_params(absl::StrCat("n=", i));
    batch.push_back(r);
  }
  absl::StatusOr<std::vector<RunInsertOutcome>> out = store().InsertRuns(batch);
  st->execute("SET GLOBAL auto_increment_increment = 1");
  ASSERT_TRUE(out.ok()) << out.status();
  for (size_t i = 0; i < batch.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(got, store().GetRun((*out)[i].run_id));
    EXPECT_EQ(got.params(), absl::StrCat("n=", i));
  }
}

TEST_P(StoreTest, MixedDispatchOutcomesInOneBatch) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t running = Insert(MakeRun(job_, kDay + 1000));
  const int64_t failed = Insert(MakeRun(job_, kDay + 2000));
  const int64_t raced = Insert(MakeRun(job_, kDay + 3000));
  const int64_t twice = Insert(MakeRun(job_, kDay + 4000));
  // The result of `raced` arrives before its dispatch answer, with a long message.
  v1::ReportItem result = Result(raced, 200, kDay + 9000);
  result.mutable_result()->set_handle_message(std::string(100000, 'm'));
  ASSERT_OK(store().ApplyReports({result}, 0).status());

  // In id order neither in the batch nor in the list.
  ASSERT_OK(store().RecordDispatches({
      Running(twice, "10.0.0.4:1", kDay + 4100), NoExecutor(failed, kDay + 2100),
      Running(raced, "10.0.0.3:1", kDay + 3100),
      Running(running + 100000, "10.0.0.9:1", kDay),  // No such run.
      Running(running, "10.0.0.1:1", kDay + 1100),
      NoExecutor(twice, kDay + 4200),  // Already RUNNING by then: ignored.
  }));
  ASSERT_OK_AND_ASSIGN(r1, store().GetRun(running));
  EXPECT_EQ(r1.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(r1.executor_address(), "10.0.0.1:1");
  EXPECT_EQ(r1.trigger_message(), "dispatched");
  EXPECT_EQ(r1.fence_epoch(), 5);
  ASSERT_OK_AND_ASSIGN(r2, store().GetRun(failed));
  EXPECT_EQ(r2.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(r2.handle_code(), v1::HANDLE_CODE_NO_EXECUTOR);
  EXPECT_EQ(r2.handle_message(), "no live executor");
  EXPECT_EQ(r2.end_time().seconds(), (kDay + 2100) / 1000);
  ASSERT_OK_AND_ASSIGN(r3, store().GetRun(raced));
  EXPECT_EQ(r3.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(r3.handle_code(), 200);
  EXPECT_EQ(r3.handle_message(), std::string(100000, 'm'));
  EXPECT_EQ(r3.trigger_code(), 200);
  EXPECT_EQ(r3.trigger_message(), "dispatched");
  EXPECT_EQ(r3.executor_address(), "10.0.0.3:1");  // Was empty.
  EXPECT_EQ(r3.dispatch_time().seconds(), (kDay + 3100) / 1000);
  ASSERT_OK_AND_ASSIGN(r4, store().GetRun(twice));
  EXPECT_EQ(r4.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(r4.executor_address(), "10.0.0.4:1");

  ASSERT_OK_AND_ASSIGN(report, store().GetStats(kDay, kDay + 86400000, job_.id()));
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0].running(), 2);
  EXPECT_EQ(report[0].succeeded(), 1);
  EXPECT_EQ(report[0].failed(), 1);
  ASSERT_OK_AND_ASSIGN(pending, store().ListPendingFollowups(10, kFarFuture, {}));
  std::set<int64_t> followups;
  for (const v1::Run& r : pending) followups.insert(r.id());
  EXPECT_EQ(followups, (std::set<int64_t>{failed, raced}));
}

TEST_P(StoreTest, ReportBatchMixingStartsLinesResultsDuplicatesAndUnknownRuns) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  ASSERT_OK_AND_ASSIGN(other_group, store().CreateGroup(MakeGroup("other"), 1));
  ASSERT_OK_AND_ASSIGN(
      other_job, store().CreateJob(MakeJob(other_group.id(), "x"), v1::JOB_STATE_RUNNING, 0, 1));
  const int64_t a = Insert(MakeRun(job_, kDay + 1000));  // Start, lines, result.
  const int64_t b = Insert(MakeRun(job_, kDay + 2000));  // Start only.
  const int64_t c = Insert(MakeRun(job_, kDay + 3000));  // Ended before the batch.
  const int64_t d = Insert(MakeRun(job_, kDay + 4000));  // Lines partly stored already.
  const int64_t e = Insert(MakeRun(job_, kDay + 6000));  // Two results in the batch.
  const int64_t foreign = Insert(MakeRun(other_job, kDay + 5000));
  ASSERT_OK(store().ApplyReports({Result(c, 200, kDay + 3500)}, 0).status());
  ASSERT_OK(store().ApplyReports({Lines(d, 1, 3)}, 0).status());

  // Runs are written back in id order: a short message (a), messages kept
  // (b, c, d: NULL), then a long one (e), longer than a MySQL TEXT.
  v1::ReportItem a_result = Result(a, 500, kDay + 1900);
  a_result.mutable_result()->set_handle_message("short");
  v1::ReportItem e_result = Result(e, 200, kDay + 6900);
  e_result.mutable_result()->set_handle_message(std::string(90000, 'f'));
  ASSERT_OK_AND_ASSIGN(acks, store().ApplyReports(
                                 {
                                     Lines(a, 1, 4),                 // 0: new lines.
                                     Started(b, kDay + 2100),        // 1: started.
                                     Started(a, kDay + 1100),        // 2: folded into a's result.
                                     Lines(d, 2, 5),                 // 3: 2..3 stored, 4..5 new.
                                     Result(c, 500, kDay + 3900),    // 4: c ended already.
                                     a_result,                       // 5: a's result.
                                     Lines(a, 3, 4),                 // 6: repeats lines of item 0.
                                     e_result,                       // 7: e's result.
                                     Lines(foreign, 1, 2),           // 8: another group's run.
                                     Result(a + 100000, 200, kDay),  // 9: no such run.
                                     Started(b, kDay + 2200),  // 10: b started already (item 1).
                                     Lines(c, 1, 1),  // 11: lines of an ended run still count.
                                     Result(e, 500, kDay + 6950),  // 12: a second result for e.
                                 },
                                 group_.id()));
  EXPECT_THAT(
      acks,
      ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED,
                  v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_APPLIED,
                  v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_UNKNOWN_RUN,
                  v1::REPORT_ACK_UNKNOWN_RUN, v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_APPLIED,
                  v1::REPORT_ACK_DUPLICATE));
  ASSERT_OK_AND_ASSIGN(ra, store().GetRun(a));
  EXPECT_EQ(ra.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(ra.handle_message(), "short");
  EXPECT_EQ(ra.start_time().seconds(), (kDay + 1100) / 1000);
  EXPECT_EQ(ra.executor_address(), "10.0.0.9:9999");
  EXPECT_EQ(ra.log_line_count(), 4);
  ASSERT_OK_AND_ASSIGN(rb, store().GetRun(b));
  EXPECT_EQ(rb.status(), v1::RUN_STATUS_PENDING);
  EXPECT_EQ(rb.start_time().seconds(), (kDay + 2100) / 1000);
  ASSERT_OK_AND_ASSIGN(rc, store().GetRun(c));
  EXPECT_EQ(rc.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(rc.handle_message(), "ok");  // Kept.
  EXPECT_EQ(rc.log_line_count(), 1);
  ASSERT_OK_AND_ASSIGN(rd, store().GetRun(d));
  EXPECT_EQ(rd.log_line_count(), 5);
  ASSERT_OK_AND_ASSIGN(lines, store().ReadRunLog(d, 1, 100));
  ASSERT_EQ(lines.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(lines[i].line_number(), i + 1);
  ASSERT_OK_AND_ASSIGN(re, store().GetRun(e));
  EXPECT_EQ(re.status(), v1::RUN_STATUS_SUCCEEDED);  // The first result stands.
  EXPECT_EQ(re.end_time().seconds(), (kDay + 6900) / 1000);
  EXPECT_EQ(re.handle_message(), std::string(90000, 'f'));
  ASSERT_OK_AND_ASSIGN(rf, store().GetRun(foreign));
  EXPECT_EQ(rf.log_line_count(), 0);
  ASSERT_OK_AND_ASSIGN(report, store().GetStats(kDay, kDay + 86400000, job_.id()));
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0].running(), 2);    // b and d.
  EXPECT_EQ(report[0].succeeded(), 2);  // c, e.
  EXPECT_EQ(report[0].failed(), 1);     // a.
}

TEST_P(StoreTest, LogLinesOfABatchStopAtTheCap) {
  options_.max_log_lines_per_run = 5;
  Reopen();
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t id = Insert(MakeRun(job_, kDay));
  ASSERT_OK_AND_ASSIGN(first, store().ApplyReports({Lines(id, 1, 3)}, 0));
  EXPECT_THAT(first, ElementsAre(v1::REPORT_ACK_APPLIED));
  // Replays of stored lines, new lines up to the cap and past it, in one
  // batch; once truncated, a further new line changes nothing.
  ASSERT_OK_AND_ASSIGN(
      acks, store().ApplyReports(
                {Lines(id, 2, 3), Lines(id, 3, 6), Lines(id, 1, 5), Lines(id, 7, 7)}, 0));
  EXPECT_THAT(acks, ElementsAre(v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_APPLIED,
                                v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_DUPLICATE));
  ASSERT_OK_AND_ASSIGN(run, store().GetRun(id));
  EXPECT_EQ(run.log_line_count(), 5);
  EXPECT_TRUE(run.log_truncated());
}

TEST_P(StoreTest, AdvancesWhereSomeCompareAndSetsFail) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  ASSERT_OK_AND_ASSIGN(
      second, store().CreateJob(MakeJob(group_.id(), "b"), v1::JOB_STATE_RUNNING, 5000, 1));
  ASSERT_OK_AND_ASSIGN(
      stopped, store().CreateJob(MakeJob(group_.id(), "c"), v1::JOB_STATE_STOPPED, kNever, 1));
  ASSERT_OK_AND_ASSIGN(applied,
                       store().AdvanceJobs({
                           {second.id(), 5000, 6000, 5000},    // Applies.
                           {job_.id(), 999, 1000, 999},        // Wrong expectation: refused.
                           {stopped.id(), kNever, 1000, 900},  // Stopped: refused.
                           {second.id(), 6000, 7000, 6000},    // Sees the first advance: applies.
                           {job_.id() + 1000, 0, 1000, 0},     // No such job.
                           {job_.id(), 0, 2000, 1500},         // Applies.
                           {second.id(), 6000, 8000, 6000},    // Stale by now: refused.
                       }));
  EXPECT_THAT(applied, ElementsAre(true, false, false, true, false, true, false));
  ASSERT_OK_AND_ASSIGN(due, store().ListDueJobs(100000, 10, {}));
  ASSERT_EQ(due.size(), 2u);
  EXPECT_EQ(due[0].job.id(), job_.id());
  EXPECT_EQ(due[0].next_fire_ms, 2000);
  EXPECT_EQ(due[0].last_fire_ms, 1500);
  EXPECT_EQ(due[1].job.id(), second.id());
  EXPECT_EQ(due[1].next_fire_ms, 7000);
  EXPECT_EQ(due[1].last_fire_ms, 6000);
}

// Statements a batch of n runs costs through its whole life: inserted,
// dispatched, started/logged/ended, followed up, and its job advanced.
struct Lifecycle {
  uint64_t statements = 0;
  uint64_t transactions = 0;
};

TEST_P(StoreTest, StatementsPerRunOfABatchDoNotGrowWithTheBatch) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  std::vector<v1::Job> jobs;
  for (int j = 0; j < 1000; ++j) {
    ASSERT_OK_AND_ASSIGN(
        job, store().CreateJob(MakeJob(group_.id(), "h"), v1::JOB_STATE_RUNNING, kDay, 1));
    jobs.push_back(job);
  }
  int64_t slot = kDay;
  auto lifecycle = [&](size_t n) -> Lifecycle {
    slot += 60000;
    const uint64_t s0 = store().executed_statements();
    const uint64_t t0 = store().committed_transactions();
    std::vector<JobAdvance> advances;
    std::vector<v1::Run> runs;
    for (size_t i = 0; i < n; ++i) {
      advances.push_back({jobs[i].id(), slot - 60000, slot, slot - 60000});
      runs.push_back(MakeRun(jobs[i], slot));
    }
    EXPECT_TRUE(store().AdvanceJobs(advances).ok());
    absl::StatusOr<std::vector<RunInsertOutcome>> inserted = store().InsertRuns(runs);
    EXPECT_TRUE(inserted.ok()) << inserted.status();
    std::vector<DispatchUpdate> dispatches;
    std::vector<v1::ReportItem> reports;
    std::vector<int64_t> ids;
    for (const v1::Run& r : runs) {
      ids.push_back(r.id());
      dispatches.push_back(Running(r.id(), "10.0.0.1:1", slot + 10));
      reports.push_back(Started(r.id(), slot + 20));
      reports.push_back(Lines(r.id(), 1, 2));
      reports.push_back(Result(r.id(), 200, slot + 2000));
    }
    EXPECT_TRUE(store().RecordDispatches(dispatches).ok());
    absl::StatusOr<std::vector<v1::ReportAck>> acks = store().ApplyReports(reports, group_.id());
    EXPECT_TRUE(acks.ok()) << acks.status();
    for (v1::ReportAck ack : *acks) EXPECT_EQ(ack, v1::REPORT_ACK_APPLIED);
    EXPECT_TRUE(store().CompleteFollowups(ids).ok());
    return {store().executed_statements() - s0, store().committed_transactions() - t0};
  };
  const Lifecycle small = lifecycle(8);
  const Lifecycle large = lifecycle(1000);
  std::cout << GetParam() << ": statements for a batch of 8 runs: " << small.statements
            << ", of 1000 runs: " << large.statements << " ("
            << static_cast<double>(large.statements) / 1000 << " per run) in " << large.transactions
            << " transactions\n";
  EXPECT_GT(small.statements, 0u);
  // 1000 = 512 + 256 + 128 + 64 + 32 + 8 rows for the inserts; two
  // statements' worth for the rest. Far from one statement per run.
  EXPECT_LE(large.statements, 45u);
  EXPECT_LE(large.statements, small.statements + 30);
  EXPECT_EQ(large.transactions, small.transactions);
  ASSERT_OK_AND_ASSIGN(report, store().GetStats(kDay, kDay + 86400000, 0));
  ASSERT_EQ(report.size(), 1u);
  EXPECT_EQ(report[0].succeeded(), 1008);
  EXPECT_EQ(report[0].running(), 0);
}

}  // namespace
}  // namespace gnomon::store::testing

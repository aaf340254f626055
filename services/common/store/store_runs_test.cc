// StoreTest (runs, dispatches, reports, run logs), run against every backend;
// the suite is instantiated in store_test.cc.
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::google::protobuf::util::TimeUtil;
using ::testing::ElementsAre;

TEST_P(StoreTest, InsertRunsTakesEachSlotOnce) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  std::vector<v1::Run> runs = {MakeRun(job_, 60000), MakeRun(job_, 60000, 1),
                               MakeRun(job_, 60000, 0, 1), MakeRun(job_, 120000)};
  ASSERT_OK_AND_ASSIGN(first, store().InsertRuns(runs));
  ASSERT_EQ(first.size(), 4u);
  for (size_t i = 0; i < first.size(); ++i) {
    EXPECT_TRUE(first[i].inserted) << i;
    EXPECT_EQ(runs[i].id(), first[i].run_id);
    EXPECT_EQ(runs[i].first_run_id(), first[i].run_id);  // 0 means itself.
  }

  // Replaying the batch (a replica that took over) inserts nothing and names the holders.
  std::vector<v1::Run> replay = {MakeRun(job_, 60000), MakeRun(job_, 180000),
                                 MakeRun(job_, 120000)};
  replay[0].set_trigger_type(v1::TRIGGER_TYPE_MISFIRE);  // Same slot whatever the slot type.
  ASSERT_OK_AND_ASSIGN(second, store().InsertRuns(replay));
  EXPECT_FALSE(second[0].inserted);
  EXPECT_EQ(second[0].run_id, first[0].run_id);
  EXPECT_TRUE(second[1].inserted);
  EXPECT_FALSE(second[2].inserted);
  EXPECT_EQ(second[2].run_id, first[3].run_id);

  // Manual, API, parent and retry runs take no slot, even with a scheduled time.
  v1::Run manual = MakeRun(job_, 60000);
  manual.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
  v1::Run retry = MakeRun(job_, 60000);
  retry.set_trigger_type(v1::TRIGGER_TYPE_RETRY);
  retry.set_first_run_id(first[0].run_id);
  std::vector<v1::Run> unslotted = {manual, manual, retry};
  ASSERT_OK_AND_ASSIGN(third, store().InsertRuns(unslotted));
  for (const RunInsertOutcome& o : third) EXPECT_TRUE(o.inserted);
  EXPECT_EQ(unslotted[2].first_run_id(), first[0].run_id);
  ASSERT_OK_AND_ASSIGN(got_retry, store().GetRun(third[2].run_id));
  EXPECT_EQ(got_retry.first_run_id(), first[0].run_id);
}

TEST_P(StoreTest, ConcurrentInsertersRecordASlotExactlyOnce) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  constexpr int kThreads = 4;
  std::vector<std::vector<RunInsertOutcome>> outcomes(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int attempt = 0; attempt < 20; ++attempt) {  // Unavailable (deadlock) is retried.
        std::vector<v1::Run> runs = {MakeRun(job_, 1000), MakeRun(job_, 2000)};
        absl::StatusOr<std::vector<RunInsertOutcome>> out = store().InsertRuns(runs);
        if (out.ok()) {
          outcomes[t] = *out;
          return;
        }
        ASSERT_THAT(out, StatusIs(absl::StatusCode::kUnavailable));
      }
    });
  }
  for (std::thread& th : threads) th.join();
  int inserted = 0;
  for (const auto& o : outcomes) {
    ASSERT_EQ(o.size(), 2u);
    inserted += o[0].inserted + o[1].inserted;
    EXPECT_EQ(o[0].run_id, outcomes[0][0].run_id);
    EXPECT_EQ(o[1].run_id, outcomes[0][1].run_id);
  }
  EXPECT_EQ(inserted, 2);
}

TEST_P(StoreTest, ConcurrentReadersSeeCommittedWrites) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  constexpr int kReaders = 8;  // More than either backend's pool holds.
  constexpr int kRuns = 40;
  std::vector<std::thread> threads;
  std::vector<absl::Status> errors(kReaders + 1);
  threads.emplace_back([&] {
    for (int i = 0; i < kRuns; ++i) {
      std::vector<v1::Run> runs = {MakeRun(job_, (i + 1) * 1000)};
      absl::StatusOr<std::vector<RunInsertOutcome>> out = store().InsertRuns(runs);
      if (!out.ok()) errors[0] = out.status();
    }
  });
  for (int t = 1; t <= kReaders; ++t) {
    threads.emplace_back([&, t] {
      size_t seen = 0;
      for (int i = 0; i < 20; ++i) {
        RunFilter f;
        f.job_id = job_.id();
        f.limit = 1000;
        absl::StatusOr<std::vector<v1::Run>> runs = store().ListRuns(f);
        if (!runs.ok()) {
          errors[t] = runs.status();
          return;
        }
        if (runs->size() < seen) errors[t] = absl::InternalError("a committed run vanished");
        seen = runs->size();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (const absl::Status& e : errors) EXPECT_TRUE(e.ok()) << e;
  RunFilter f;
  f.limit = 1000;
  ASSERT_OK_AND_ASSIGN(all, store().ListRuns(f));
  EXPECT_EQ(all.size(), static_cast<size_t>(kRuns));
}

TEST_P(StoreTest, GetRunFillsEveryField) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  v1::Run run = MakeRun(job_, 60500, 2, 1);
  run.set_shard_total(3);
  run.set_parent_run_id(77);
  run.set_first_run_id(76);
  run.set_params(std::string(70000, 'p'));  // Longer than a MySQL TEXT.
  const int64_t id = Insert(run);
  ASSERT_GT(id, 0);
  ASSERT_OK_AND_ASSIGN(pending, store().GetRun(id));
  EXPECT_EQ(pending.job_id(), job_.id());
  EXPECT_EQ(pending.group_id(), group_.id());
  EXPECT_EQ(pending.trigger_type(), v1::TRIGGER_TYPE_CRON);
  EXPECT_EQ(pending.scheduled_time().seconds(), 60);
  EXPECT_EQ(pending.scheduled_time().nanos(), 500000000);
  EXPECT_EQ(pending.trigger_time().seconds(), 61);
  EXPECT_FALSE(pending.has_dispatch_time());
  EXPECT_FALSE(pending.has_start_time());
  EXPECT_FALSE(pending.has_end_time());
  EXPECT_EQ(pending.handler(), "report");
  EXPECT_EQ(pending.params(), run.params());
  EXPECT_EQ(pending.shard_index(), 2u);
  EXPECT_EQ(pending.shard_total(), 3u);
  EXPECT_EQ(pending.attempt(), 1u);
  EXPECT_EQ(pending.first_run_id(), 76);
  EXPECT_EQ(pending.parent_run_id(), 77);
  EXPECT_EQ(pending.status(), v1::RUN_STATUS_PENDING);

  ASSERT_OK(store().RecordDispatches(
      {{id, v1::RUN_STATUS_RUNNING, 200, "route=ROUND", "10.0.0.1:9999", 62000, 0, "", 0, 7}}));
  ASSERT_OK_AND_ASSIGN(
      acks, store().ApplyReports({Started(id, 63000), Result(id, 500, 65000)}, group_.id()));
  EXPECT_THAT(acks, ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED));
  ASSERT_OK_AND_ASSIGN(done, store().GetRun(id));
  EXPECT_EQ(done.dispatch_time().seconds(), 62);
  EXPECT_EQ(done.executor_address(), "10.0.0.1:9999");  // Dispatch address kept.
  EXPECT_EQ(done.trigger_code(), 200);
  EXPECT_EQ(done.trigger_message(), "route=ROUND");
  EXPECT_EQ(done.fence_epoch(), 7);
  EXPECT_EQ(done.start_time().seconds(), 63);
  EXPECT_EQ(done.end_time().seconds(), 65);
  EXPECT_EQ(done.handle_code(), 500);
  EXPECT_EQ(done.handle_message(), "boom");
  EXPECT_EQ(done.status(), v1::RUN_STATUS_FAILED);
  EXPECT_THAT(store().GetRun(id + 1000), StatusIs(absl::StatusCode::kNotFound));
}

TEST_P(StoreTest, RecordDispatchesAppliesOnlyToPendingRuns) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t ok_id = Insert(MakeRun(job_, 1000));
  const int64_t failed_id = Insert(MakeRun(job_, 2000));
  ASSERT_OK(store().RecordDispatches(
      {{ok_id, v1::RUN_STATUS_RUNNING, 200, "ok", "10.0.0.1:1", 1500, 0, "", 0, 3},
       {failed_id, v1::RUN_STATUS_FAILED, v1::HANDLE_CODE_NO_EXECUTOR, "no executor", "", 2500,
        v1::HANDLE_CODE_NO_EXECUTOR, "no live executor", 2500, 3}}));
  ASSERT_OK_AND_ASSIGN(failed, store().GetRun(failed_id));
  EXPECT_EQ(failed.status(), v1::RUN_STATUS_FAILED);
  EXPECT_EQ(failed.trigger_code(), 505);
  EXPECT_EQ(failed.handle_code(), 505);
  EXPECT_EQ(failed.handle_message(), "no live executor");
  EXPECT_EQ(failed.end_time().seconds(), 2);

  // A second dispatch outcome for the running run is ignored.
  ASSERT_OK(store().RecordDispatches(
      {{ok_id, v1::RUN_STATUS_FAILED, 506, "late", "10.0.0.2:1", 9000, 506, "x", 9000, 4}}));
  ASSERT_OK_AND_ASSIGN(running, store().GetRun(ok_id));
  EXPECT_EQ(running.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(running.executor_address(), "10.0.0.1:1");
  EXPECT_EQ(running.fence_epoch(), 3);

  ASSERT_OK_AND_ASSIGN(active, store().ListActiveRunsOn("10.0.0.1:1"));
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(active[0].id(), ok_id);
  ASSERT_OK_AND_ASSIGN(none, store().ListActiveRunsOn("10.0.0.2:1"));
  EXPECT_TRUE(none.empty());
}

TEST_P(StoreTest, ReportsAreIdempotent) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t id = Insert(MakeRun(job_, 1000));
  std::vector<v1::ReportItem> batch = {Started(id, 3000), Lines(id, 1, 3), Lines(id, 4, 5),
                                       Result(id, 200, 9000)};
  ASSERT_OK_AND_ASSIGN(first, store().ApplyReports(batch, group_.id()));
  EXPECT_THAT(first, ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED,
                                 v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED));
  ASSERT_OK_AND_ASSIGN(replay, store().ApplyReports(batch, group_.id()));
  EXPECT_THAT(replay, ElementsAre(v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_DUPLICATE,
                                  v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_DUPLICATE));
  // A different result for a finished run is rejected, not applied.
  ASSERT_OK_AND_ASSIGN(late, store().ApplyReports({Result(id, 500, 9999)}, group_.id()));
  EXPECT_THAT(late, ElementsAre(v1::REPORT_ACK_DUPLICATE));

  ASSERT_OK_AND_ASSIGN(run, store().GetRun(id));
  EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(run.handle_code(), 200);
  EXPECT_EQ(run.end_time().seconds(), 9);
  EXPECT_EQ(run.log_line_count(), 5);
  EXPECT_FALSE(run.log_truncated());
  ASSERT_OK_AND_ASSIGN(lines, store().ReadRunLog(id, 1, 100));
  ASSERT_EQ(lines.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(lines[i].line_number(), i + 1);
    EXPECT_EQ(lines[i].text(), absl::StrCat("line ", i + 1));
    EXPECT_EQ(lines[i].time().seconds(), 101 + i);
  }
  ASSERT_OK_AND_ASSIGN(tail, store().ReadRunLog(id, 4, 1));
  ASSERT_EQ(tail.size(), 1u);
  EXPECT_EQ(tail[0].line_number(), 4);
}

TEST_P(StoreTest, ReportsForUnknownOrForeignRuns) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t id = Insert(MakeRun(job_, 1000));
  v1::ReportItem empty;
  ASSERT_OK_AND_ASSIGN(acks, store().ApplyReports({Result(id + 1000, 200, 1), Lines(id, 1, 1),
                                                   Result(id, 200, 1), empty},
                                                  group_.id() + 1));
  EXPECT_THAT(acks, ElementsAre(v1::REPORT_ACK_UNKNOWN_RUN, v1::REPORT_ACK_UNKNOWN_RUN,
                                v1::REPORT_ACK_UNKNOWN_RUN, v1::REPORT_ACK_UNKNOWN_RUN));
  ASSERT_OK_AND_ASSIGN(run, store().GetRun(id));
  EXPECT_EQ(run.status(), v1::RUN_STATUS_PENDING);
  EXPECT_EQ(run.log_line_count(), 0);
  // group_id 0 accepts any group.
  ASSERT_OK_AND_ASSIGN(any, store().ApplyReports({Result(id, 200, 1000)}, 0));
  EXPECT_THAT(any, ElementsAre(v1::REPORT_ACK_APPLIED));
}

TEST_P(StoreTest, LogLinesBeyondTheCapAreDroppedAndMarkTruncated) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  options_.max_log_lines_per_run = 3;
  Reopen();
  const int64_t id = Insert(MakeRun(job_, 1000));
  ASSERT_OK_AND_ASSIGN(a, store().ApplyReports({Lines(id, 1, 2)}, 0));
  ASSERT_OK_AND_ASSIGN(run_a, store().GetRun(id));
  EXPECT_EQ(run_a.log_line_count(), 2);
  EXPECT_FALSE(run_a.log_truncated());
  // Replaying a stored line at the cap is not a truncation.
  ASSERT_OK_AND_ASSIGN(b, store().ApplyReports({Lines(id, 2, 3), Lines(id, 3, 3)}, 0));
  EXPECT_THAT(b, ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_DUPLICATE));
  ASSERT_OK_AND_ASSIGN(run_b, store().GetRun(id));
  EXPECT_EQ(run_b.log_line_count(), 3);
  EXPECT_FALSE(run_b.log_truncated());

  ASSERT_OK_AND_ASSIGN(c, store().ApplyReports({Lines(id, 3, 6)}, 0));
  EXPECT_THAT(c, ElementsAre(v1::REPORT_ACK_APPLIED));
  ASSERT_OK_AND_ASSIGN(run_c, store().GetRun(id));
  EXPECT_EQ(run_c.log_line_count(), 3);
  EXPECT_TRUE(run_c.log_truncated());
  ASSERT_OK_AND_ASSIGN(lines, store().ReadRunLog(id, 0, 100));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines.back().line_number(), 3);
  (void)a;
}

// The byte budget bounds a run's stored log whatever its executor sends
// (lines of up to 64 KiB each): the first line that does not fit, and every
// new line after it, is dropped (no gaps), and the run is marked truncated;
// replays of stored lines are not truncations. The budget holds across
// reports, and reopening the store (another replica) keeps counting.
TEST_P(StoreTest, LogTextBeyondTheByteBudgetIsDroppedAndMarksTruncated) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  options_.max_log_bytes_per_run = 100;
  Reopen();
  const int64_t id = Insert(MakeRun(job_, 1000));
  ASSERT_OK_AND_ASSIGN(a, store().ApplyReports({Lines(id, 1, 1, 40), Lines(id, 2, 2, 40)}, 0));
  EXPECT_THAT(a, ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED));
  Reopen();
  // 80 stored: a 30-byte line does not fit, nor does a 5-byte one after it.
  ASSERT_OK_AND_ASSIGN(
      b, store().ApplyReports({Lines(id, 2, 2, 40), Lines(id, 3, 3, 30), Lines(id, 4, 4, 5)}, 0));
  EXPECT_THAT(
      b, ElementsAre(v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_DUPLICATE));
  ASSERT_OK_AND_ASSIGN(run, store().GetRun(id));
  EXPECT_EQ(run.log_line_count(), 2);
  EXPECT_TRUE(run.log_truncated());
  ASSERT_OK_AND_ASSIGN(lines, store().ReadRunLog(id, 0, 100));
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines.back().line_number(), 2);
  // The run's result is still taken.
  ASSERT_OK_AND_ASSIGN(c, store().ApplyReports({Result(id, 200, 2000)}, 0));
  EXPECT_THAT(c, ElementsAre(v1::REPORT_ACK_APPLIED));
  ASSERT_OK_AND_ASSIGN(done, store().GetRun(id));
  EXPECT_EQ(done.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_TRUE(done.log_truncated());
}

TEST_P(StoreTest, ListRunsFiltersAndPagesNewestFirst) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  ASSERT_OK_AND_ASSIGN(g2, store().CreateGroup(MakeGroup("other"), 1));
  ASSERT_OK_AND_ASSIGN(j2,
                       store().CreateJob(MakeJob(g2.id(), "x"), v1::JOB_STATE_STOPPED, kNever, 1));
  std::vector<int64_t> ids;
  for (int i = 0; i < 6; ++i) {
    v1::Run r = MakeRun(i < 4 ? job_ : j2, (i + 1) * 10000);  // trigger_ms = slot + 1 s.
    if (i == 1 || i == 4) r.set_trigger_type(v1::TRIGGER_TYPE_BACKFILL);
    if (i == 3) r.set_trigger_type(v1::TRIGGER_TYPE_MANUAL);
    ids.push_back(Insert(r));
  }
  ASSERT_OK(store().ApplyReports({Result(ids[1], 200, 1), Result(ids[2], 500, 1)}, 0).status());

  auto list_ids = [&](const RunFilter& f) {
    std::vector<int64_t> out;
    absl::StatusOr<std::vector<v1::Run>> runs = store().ListRuns(f);
    EXPECT_TRUE(runs.ok()) << runs.status();
    if (runs.ok()) {
      for (const v1::Run& r : *runs) out.push_back(r.id());
    }
    return out;
  };
  RunFilter all;
  EXPECT_THAT(list_ids(all), ElementsAre(ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]));
  RunFilter by_job;
  by_job.job_id = j2.id();
  EXPECT_THAT(list_ids(by_job), ElementsAre(ids[5], ids[4]));
  RunFilter by_partition;  // The runs of the jobs a scheduler replica holds.
  by_partition.partitions = {PartitionOf(j2.id())};
  EXPECT_THAT(list_ids(by_partition), ElementsAre(ids[5], ids[4]));
  RunFilter by_group;
  by_group.group_ids = {group_.id()};
  by_group.limit = 2;
  EXPECT_THAT(list_ids(by_group), ElementsAre(ids[3], ids[2]));
  by_group.before_id = ids[2];
  EXPECT_THAT(list_ids(by_group), ElementsAre(ids[1], ids[0]));
  RunFilter by_groups;  // Any of several (a scoped caller's grants).
  by_groups.group_ids = {group_.id() + 100, group_.id()};
  by_groups.limit = 2;
  EXPECT_THAT(list_ids(by_groups), ElementsAre(ids[3], ids[2]));
  by_groups.group_ids = {group_.id() + 100};
  EXPECT_THAT(list_ids(by_groups), ElementsAre());
  RunFilter finished;
  finished.statuses = {v1::RUN_STATUS_SUCCEEDED, v1::RUN_STATUS_FAILED};
  EXPECT_THAT(list_ids(finished), ElementsAre(ids[2], ids[1]));
  RunFilter window;
  window.trigger_from_ms = 21000;  // Runs 1.. have trigger 11 s, 21 s, 31 s, ...
  window.trigger_to_ms = 41000;
  EXPECT_THAT(list_ids(window), ElementsAre(ids[2], ids[1]));
  RunFilter backfills;
  backfills.trigger_type = v1::TRIGGER_TYPE_BACKFILL;
  EXPECT_THAT(list_ids(backfills), ElementsAre(ids[4], ids[1]));
  backfills.group_ids = {group_.id()};  // With the other conditions.
  backfills.statuses = {v1::RUN_STATUS_SUCCEEDED};
  EXPECT_THAT(list_ids(backfills), ElementsAre(ids[1]));
  RunFilter manual;
  manual.trigger_type = v1::TRIGGER_TYPE_MANUAL;
  EXPECT_THAT(list_ids(manual), ElementsAre(ids[3]));
  manual.trigger_type = v1::TRIGGER_TYPE_RETRY;
  EXPECT_THAT(list_ids(manual), ElementsAre());
}

TEST_P(StoreTest, DeleteJobKeepsItsRunsAndLogsUntilRetention) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t id = Insert(MakeRun(job_, 1000));
  ASSERT_OK(store().ApplyReports({Lines(id, 1, 2)}, 0).status());
  ASSERT_OK(store().DeleteJob(job_.id(), /*purge_runs=*/false));
  EXPECT_THAT(store().GetJob(job_.id()), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(run, store().GetRun(id));
  EXPECT_EQ(run.job_id(), job_.id());
  ASSERT_OK_AND_ASSIGN(lines, store().ReadRunLog(id, 1, 10));
  EXPECT_EQ(lines.size(), 2u);
  // Its result still lands after the job is gone.
  ASSERT_OK_AND_ASSIGN(acks, store().ApplyReports({Result(id, 200, 5000)}, group_.id()));
  EXPECT_THAT(acks, ElementsAre(v1::REPORT_ACK_APPLIED));
}

TEST_P(StoreTest, DeleteJobWithPurgeRemovesItsRunsAndLogs) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t id = Insert(MakeRun(job_, 1000));
  ASSERT_OK(store().ApplyReports({Lines(id, 1, 2)}, 0).status());
  ASSERT_OK(store().DeleteJob(job_.id(), /*purge_runs=*/true));
  EXPECT_THAT(store().GetRun(id), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(lines, store().ReadRunLog(id, 1, 10));
  EXPECT_TRUE(lines.empty());
}

TEST_P(StoreTest, AStartAndItsResultInOneBatchAreAppliedTogether) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  // No dispatch outcome recorded yet (it can land after the executor's
  // reports): the run's address comes from the start folded into the result.
  const int64_t id = Insert(MakeRun(job_, 1000));
  const int64_t other = Insert(MakeRun(job_, 2000));
  ASSERT_OK_AND_ASSIGN(acks, store().ApplyReports({Started(id, 3000), Started(other, 3500),
                                                   Result(id, 200, 5000), Result(id + 999, 200, 1)},
                                                  group_.id()));
  EXPECT_THAT(acks, ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED,
                                v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_UNKNOWN_RUN));
  ASSERT_OK_AND_ASSIGN(run, store().GetRun(id));
  EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(run.start_time().seconds(), 3);
  EXPECT_EQ(run.end_time().seconds(), 5);
  EXPECT_EQ(run.executor_address(), Started(id, 0).started().executor_address());
  EXPECT_EQ(run.first_run_id(), id);  // Stored as 0, read back as itself.
  ASSERT_OK_AND_ASSIGN(started, store().GetRun(other));
  EXPECT_EQ(started.start_time().seconds(), 3);
  EXPECT_FALSE(started.has_end_time());
  // Replayed (the ack was lost): the folded start is a duplicate like its result.
  ASSERT_OK_AND_ASSIGN(
      replay, store().ApplyReports({Started(id, 3000), Result(id, 200, 5000)}, group_.id()));
  EXPECT_THAT(replay, ElementsAre(v1::REPORT_ACK_DUPLICATE, v1::REPORT_ACK_DUPLICATE));
}

TEST_P(StoreTest, AStartsReceiptRecordsItsDispatchAndTheDispatchOutcomeThenWritesNothing) {
  // A start carrying its dispatch receipt (RunStarted.receipt).
  auto StartedWithReceipt = [](int64_t run, int64_t ms, int64_t receipt_run,
                               const std::string& route, int64_t dispatch_ms, int64_t epoch) {
    v1::ReportItem item = Started(run, ms);
    v1::DispatchReceipt receipt;
    receipt.set_run_id(receipt_run);
    receipt.set_trigger_message(route);
    receipt.set_dispatch_ms(dispatch_ms);
    receipt.set_fence_epoch(epoch);
    item.mutable_started()->set_receipt(receipt.SerializeAsString());
    return item;
  };
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t id = Insert(MakeRun(job_, 1000));
  const int64_t done = Insert(MakeRun(job_, 2000));
  const int64_t forged = Insert(MakeRun(job_, 3000));
  const int64_t garbled = Insert(MakeRun(job_, 4000));
  v1::ReportItem garbage = Started(garbled, 4100);
  garbage.mutable_started()->set_receipt("not a receipt");
  // One started alone, one started and ended in the same batch, one echoing
  // another run's receipt, one echoing bytes that are no receipt.
  ASSERT_OK_AND_ASSIGN(
      acks, store().ApplyReports(
                {StartedWithReceipt(id, 1200, id, "route FIRST -> a", 1100, 7),
                 StartedWithReceipt(done, 2200, done, "route LAST -> b", 2100, 7),
                 Result(done, 200, 2300),
                 StartedWithReceipt(forged, 3200, id, "route FIRST -> a", 3100, 9), garbage},
                group_.id()));
  EXPECT_THAT(acks,
              ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED,
                          v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED));
  ASSERT_OK_AND_ASSIGN(running, store().GetRun(id));
  EXPECT_EQ(running.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(running.trigger_code(), 200);
  EXPECT_EQ(running.trigger_message(), "route FIRST -> a");
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(running.dispatch_time()), 1100);
  EXPECT_EQ(running.fence_epoch(), 7);
  EXPECT_EQ(running.executor_address(), Started(id, 0).started().executor_address());
  ASSERT_OK_AND_ASSIGN(succeeded, store().GetRun(done));
  EXPECT_EQ(succeeded.status(), v1::RUN_STATUS_SUCCEEDED);
  EXPECT_EQ(succeeded.trigger_message(), "route LAST -> b");
  EXPECT_EQ(TimeUtil::TimestampToMilliseconds(succeeded.dispatch_time()), 2100);
  for (int64_t ignored : {forged, garbled}) {
    ASSERT_OK_AND_ASSIGN(run, store().GetRun(ignored));
    EXPECT_EQ(run.status(), v1::RUN_STATUS_PENDING) << ignored;
    EXPECT_EQ(run.trigger_message(), "") << ignored;
    EXPECT_FALSE(run.has_dispatch_time()) << ignored;
    EXPECT_EQ(run.start_time().seconds(), ignored == forged ? 3 : 4);
  }
  // The scheduler's own outcomes, as its receipts said: nothing is written
  // for the two runs whose start recorded them (one locking read, no update).
  const uint64_t before = store().executed_statements();
  ASSERT_OK(store().RecordDispatches(
      {{id, v1::RUN_STATUS_RUNNING, 200, "route FIRST -> a", "executor-a", 1100, 0, "", 0, 7},
       {done, v1::RUN_STATUS_RUNNING, 200, "route LAST -> b", "executor-a", 2100, 0, "", 0, 7}}));
  EXPECT_EQ(store().executed_statements() - before, 1u);
  // The run whose receipt was ignored takes its outcome as ever.
  ASSERT_OK(store().RecordDispatches({{forged, v1::RUN_STATUS_RUNNING, 200, "route FIRST -> c",
                                       "executor-c", 3150, 0, "", 0, 9}}));
  ASSERT_OK_AND_ASSIGN(late, store().GetRun(forged));
  EXPECT_EQ(late.status(), v1::RUN_STATUS_RUNNING);
  EXPECT_EQ(late.trigger_message(), "route FIRST -> c");
  ASSERT_OK_AND_ASSIGN(after, store().GetRun(done));
  EXPECT_EQ(after.status(), v1::RUN_STATUS_SUCCEEDED);
}

}  // namespace
}  // namespace gnomon::store::testing

// Daily statistics tests: the duration histogram (pure), and StoreTest cases for the
// daily counters and duration and lateness percentiles on every backend (the suite is instantiated
// in store_test.cc).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/stats_histogram.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store {
namespace {

using internal::BucketLowerMs;
using internal::BucketUpperMs;
using internal::DurationBucket;
using internal::EstimatePercentile;
using internal::kDurationBuckets;

TEST(StatsHistogramTest, BucketsTileTheRangeAndAreAtMostAQuarterWide) {
  EXPECT_EQ(BucketLowerMs(0), 0);
  for (int b = 0; b < kDurationBuckets; ++b) {
    SCOPED_TRACE(b);
    const int64_t lo = BucketLowerMs(b);
    const int64_t hi = BucketUpperMs(b);
    ASSERT_LT(lo, hi);
    EXPECT_EQ(DurationBucket(lo), b);
    EXPECT_EQ(DurationBucket(hi - 1), b);
    if (b + 1 < kDurationBuckets) EXPECT_EQ(BucketLowerMs(b + 1), hi);
    if (b >= 4) EXPECT_LE((hi - lo) * 4, lo);
  }
  EXPECT_EQ(DurationBucket(-5), 0);
  EXPECT_EQ(DurationBucket(int64_t{1} << 62), kDurationBuckets - 1);
}

TEST(StatsHistogramTest, PercentilesAreNearestRankWithinAnEighth) {
  std::vector<int64_t> counts(kDurationBuckets);
  EXPECT_EQ(EstimatePercentile(counts, 50), 0);
  // Small durations are exact: 0, 1, 2, 3 ms.
  for (int d : {0, 1, 2, 3}) ++counts[DurationBucket(d)];
  EXPECT_EQ(EstimatePercentile(counts, 50), 1);  // 2nd of 4.
  EXPECT_EQ(EstimatePercentile(counts, 99), 3);

  // 1000 durations 7, 14, ... 7000 ms: the p50 is the 500th (3500 ms), the
  // p99 the 990th (6930 ms).
  std::fill(counts.begin(), counts.end(), 0);
  for (int i = 1; i <= 1000; ++i) ++counts[DurationBucket(7 * i)];
  for (auto [percent, truth] : {std::pair<int, int64_t>{50, 3500}, {99, 6930}}) {
    const int64_t est = EstimatePercentile(counts, percent);
    EXPECT_EQ(DurationBucket(est), DurationBucket(truth)) << percent;
    EXPECT_LE(std::abs(est - truth) * 8, truth) << percent;
  }
}

}  // namespace

namespace testing {
namespace {

constexpr int64_t kDayMs = 86400000;
constexpr int64_t kDay = 1704067200000;  // 2024-01-01T00:00:00Z.

void SetTime(int64_t ms, google::protobuf::Timestamp* t) {
  t->set_seconds(ms / 1000);
  t->set_nanos(static_cast<int32_t>(ms % 1000) * 1000000);
}

// A run of `job` triggered at trigger_ms.
v1::Run TriggeredAt(const v1::Job& job, int64_t trigger_ms) {
  v1::Run r;
  r.set_job_id(job.id());
  r.set_group_id(job.group_id());
  r.set_trigger_type(v1::TRIGGER_TYPE_API);
  SetTime(trigger_ms, r.mutable_trigger_time());
  r.set_status(v1::RUN_STATUS_PENDING);
  return r;
}

v1::ReportItem Finished(int64_t run_id, int32_t code, int64_t start_ms, int64_t end_ms) {
  v1::ReportItem r;
  r.mutable_result()->set_run_id(run_id);
  r.mutable_result()->set_handle_code(code);
  SetTime(start_ms, r.mutable_result()->mutable_start_time());
  SetTime(end_ms, r.mutable_result()->mutable_end_time());
  return r;
}

// The row's percentile lies in the bucket of the true value.
#define EXPECT_SAME_BUCKET(estimate, truth) \
  EXPECT_EQ(internal::DurationBucket(estimate), internal::DurationBucket(truth)) << (estimate)

struct Counts {
  int64_t running, succeeded, failed;
};
void ExpectCounts(const v1::StatsRow& row, int64_t day_ms, Counts c) {
  EXPECT_EQ(row.day().seconds() * 1000, day_ms);
  EXPECT_EQ(row.running(), c.running);
  EXPECT_EQ(row.succeeded(), c.succeeded);
  EXPECT_EQ(row.failed(), c.failed);
}

TEST_P(StoreTest, StatsCountRunsByTriggerDayAndEstimatesDurations) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  ASSERT_OK_AND_ASSIGN(
      other, store().CreateJob(MakeJob(group_.id(), "other"), v1::JOB_STATE_RUNNING, kNever, 1));
  const int64_t t = kDay + 3600000;  // 01:00 on day 1.
  std::vector<v1::Run> runs = {
      TriggeredAt(job_, t),                  // 0: succeeds in 1000 ms.
      TriggeredAt(job_, t),                  // 1: succeeds in 2000 ms.
      TriggeredAt(job_, t),                  // 2: fails after 50000 ms.
      TriggeredAt(job_, t),                  // 3: stays RUNNING.
      TriggeredAt(job_, t),                  // 4: stays PENDING.
      TriggeredAt(job_, t),                  // 5: dispatch fails (no duration).
      TriggeredAt(job_, t),                  // 6: started, then lost after 7000 ms.
      TriggeredAt(job_, kDay + kDayMs - 1),  // 7: 23:59:59.999, succeeds on day 2 in 3000 ms.
      TriggeredAt(job_, kDay + kDayMs + 5),  // 8: day 2, succeeds in 10 ms.
      TriggeredAt(other, t),                 // 9: succeeds in 100000 ms.
      TriggeredAt(other, t),                 // 10: stays PENDING.
  };
  ASSERT_OK_AND_ASSIGN(inserted, store().InsertRuns(runs));
  std::vector<int64_t> id;
  for (const RunInsertOutcome& o : inserted) id.push_back(o.run_id);
  ASSERT_OK_AND_ASSIGN(fresh, store().GetStats(kDay, kDay + kDayMs, 0));
  ASSERT_EQ(fresh.size(), 1u);
  ExpectCounts(fresh[0], kDay, {10, 0, 0});  // Run 8 triggers on day 2.

  ASSERT_OK(store().RecordDispatches(
      {{id[3], v1::RUN_STATUS_RUNNING, 200, "", "a:1", t, 0, "", 0, 1},
       {id[5], v1::RUN_STATUS_FAILED, 505, "none", "", t, 505, "no executor", t + 1, 1}}));
  ASSERT_OK(store()
                .ApplyReports(
                    {Finished(id[0], 200, t + 10, t + 1010), Finished(id[1], 200, t + 10, t + 2010),
                     Finished(id[2], 500, t + 10, t + 50010),
                     Started(id[6], t + 3000),  // Whole seconds: t is too.
                     Finished(id[7], 200, kDay + kDayMs + 100, kDay + kDayMs + 3100),
                     Finished(id[8], 200, kDay + kDayMs + 20, kDay + kDayMs + 30),
                     Finished(id[9], 200, t, t + 100000),
                     Finished(id[0], 500, t, t + 99999999)},  // Duplicate: ignored.
                    0)
                .status());
  ASSERT_OK(store().FailRuns({id[6], id[0]}, 504, "lost", t + 10000).status());

  ASSERT_OK_AND_ASSIGN(job_rows, store().GetStats(kDay, kDay + 2 * kDayMs, job_.id()));
  ASSERT_EQ(job_rows.size(), 2u);
  ExpectCounts(job_rows[0], kDay, {2, 3, 3});
  EXPECT_EQ(job_rows[0].job_id(), job_.id());
  // Durations 1000, 2000, 3000, 7000, 50000: nearest ranks 3 and 5.
  EXPECT_SAME_BUCKET(job_rows[0].duration_p50_ms(), 3000);
  EXPECT_SAME_BUCKET(job_rows[0].duration_p99_ms(), 50000);
  ExpectCounts(job_rows[1], kDay + kDayMs, {0, 1, 0});
  EXPECT_SAME_BUCKET(job_rows[1].duration_p50_ms(), 10);
  EXPECT_SAME_BUCKET(job_rows[1].duration_p99_ms(), 10);

  ASSERT_OK_AND_ASSIGN(other_rows, store().GetStats(kDay, kDay + 2 * kDayMs, other.id()));
  ASSERT_EQ(other_rows.size(), 1u);
  ExpectCounts(other_rows[0], kDay, {1, 1, 0});
  EXPECT_SAME_BUCKET(other_rows[0].duration_p99_ms(), 100000);

  ASSERT_OK_AND_ASSIGN(total, store().GetStats(kDay - kDayMs, kDay + 3 * kDayMs, 0));
  ASSERT_EQ(total.size(), 2u);
  ExpectCounts(total[0], kDay, {3, 4, 3});
  EXPECT_EQ(total[0].job_id(), 0);
  // Durations 1000, 2000, 3000, 7000, 50000, 100000: nearest ranks 3 and 6.
  EXPECT_SAME_BUCKET(total[0].duration_p50_ms(), 3000);
  EXPECT_SAME_BUCKET(total[0].duration_p99_ms(), 100000);
  ExpectCounts(total[1], kDay + kDayMs, {0, 1, 0});

  ASSERT_OK_AND_ASSIGN(day2_only, store().GetStats(kDay + kDayMs, kDay + 2 * kDayMs, 0));
  ASSERT_EQ(day2_only.size(), 1u);
  ExpectCounts(day2_only[0], kDay + kDayMs, {0, 1, 0});
  ASSERT_OK_AND_ASSIGN(empty, store().GetStats(kDay + kDayMs, kDay + kDayMs, 0));
  EXPECT_TRUE(empty.empty());

  // Retention keeps the report; deleting a job drops its rows from it.
  ASSERT_OK(store().CompleteFollowups(id));
  ASSERT_OK_AND_ASSIGN(deleted, store().DeleteRunsEndedBefore(kDay + 3 * kDayMs, 100));
  EXPECT_EQ(deleted, 8);
  ASSERT_OK_AND_ASSIGN(after_retention, store().GetStats(kDay, kDay + 2 * kDayMs, 0));
  ASSERT_EQ(after_retention.size(), 2u);
  ExpectCounts(after_retention[0], kDay, {3, 4, 3});
  ASSERT_OK(store().DeleteJob(job_.id(), /*purge_runs=*/true));
  ASSERT_OK_AND_ASSIGN(after_delete, store().GetStats(kDay, kDay + 2 * kDayMs, 0));
  ASSERT_EQ(after_delete.size(), 1u);
  ExpectCounts(after_delete[0], kDay, {1, 1, 0});
}

TEST_P(StoreTest, StatsAreWrittenAfterTheRunsMergedAndOtherReplicasSeeThemOnceWritten) {
  options_.stats_flush_interval = absl::Hours(1);  // Only reads and closing write them.
  ASSERT_NO_FATAL_FAILURE(Reopen());
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  const int64_t t = kDay + 3600000;
  std::vector<v1::Run> runs = {TriggeredAt(job_, t), TriggeredAt(job_, t)};
  ASSERT_OK_AND_ASSIGN(inserted, store().InsertRuns(runs));
  ASSERT_OK(store()
                .ApplyReports({Finished(inserted[0].run_id, 200, t + 10, t + 1010),
                               Finished(inserted[1].run_id, 200, t + 10, t + 2010)},
                              0)
                .status());
  // Another replica on the same store: this one has not written them yet.
  absl::StatusOr<std::unique_ptr<Store>> other = OpenStore(url(), options_);
  ASSERT_TRUE(other.ok()) << other.status();
  ASSERT_OK_AND_ASSIGN(before, (*other)->GetStats(kDay, kDay + kDayMs, job_.id()));
  EXPECT_TRUE(before.empty());
  // A read in the process that counted them writes them first (running +1
  // and -1 cancelled before the write).
  ASSERT_OK_AND_ASSIGN(here, store().GetStats(kDay, kDay + kDayMs, job_.id()));
  ASSERT_EQ(here.size(), 1u);
  ExpectCounts(here[0], kDay, {0, 2, 0});
  ASSERT_OK_AND_ASSIGN(there, (*other)->GetStats(kDay, kDay + kDayMs, job_.id()));
  ASSERT_EQ(there.size(), 1u);
  ExpectCounts(there[0], kDay, {0, 2, 0});
  EXPECT_EQ(there[0].duration_p50_ms(), here[0].duration_p50_ms());
}

TEST_P(StoreTest, StatsPercentilesOfABatchOfResults) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  std::vector<v1::Run> runs(200, TriggeredAt(job_, kDay + 1000));
  ASSERT_OK_AND_ASSIGN(inserted, store().InsertRuns(runs));
  std::vector<v1::ReportItem> results;
  // Durations 13, 26, ... 2600 ms, reported in one batch, in reverse.
  for (int i = 200; i >= 1; --i) {
    results.push_back(Finished(inserted[i - 1].run_id, i % 10 == 0 ? 500 : 200, kDay + 2000,
                               kDay + 2000 + 13 * i));
  }
  ASSERT_OK(store().ApplyReports(results, 0).status());
  ASSERT_OK_AND_ASSIGN(rows, store().GetStats(kDay, kDay + kDayMs, job_.id()));
  ASSERT_EQ(rows.size(), 1u);
  ExpectCounts(rows[0], kDay, {0, 180, 20});
  EXPECT_SAME_BUCKET(rows[0].duration_p50_ms(), 13 * 100);  // Rank 100 of 200.
  EXPECT_SAME_BUCKET(rows[0].duration_p99_ms(), 13 * 198);  // Rank 198 of 200.
  EXPECT_LE(std::abs(rows[0].duration_p50_ms() - 1300) * 8, 1300);
  EXPECT_LE(std::abs(rows[0].duration_p99_ms() - 2574) * 8, 2574);
}

TEST_P(StoreTest, StatsLatenessOfScheduleSlotsOnly) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  // 100 cron slots dispatched 10, 20, ... 1000 ms late; a manual run and a
  // backfill dispatched hours after their instants do not count.
  std::vector<v1::Run> runs;
  for (int i = 1; i <= 100; ++i) {
    v1::Run r = TriggeredAt(job_, kDay + 1000 * i + 5);
    r.set_trigger_type(v1::TRIGGER_TYPE_CRON);
    SetTime(kDay + 1000 * i, r.mutable_scheduled_time());
    runs.push_back(r);
  }
  v1::Run backfill = TriggeredAt(job_, kDay + 7200000);
  backfill.set_trigger_type(v1::TRIGGER_TYPE_BACKFILL);
  SetTime(kDay + 500, backfill.mutable_scheduled_time());
  runs.push_back(backfill);
  runs.push_back(TriggeredAt(job_, kDay + 7200000));  // API, no scheduled instant.
  ASSERT_OK_AND_ASSIGN(inserted, store().InsertRuns(runs));
  std::vector<DispatchUpdate> dispatches;
  for (int i = 1; i <= 100; ++i) {
    dispatches.push_back(
        Dispatched(inserted[i - 1].run_id, "10.0.0.5:9999", kDay + 1000 * i + 10 * i, 1));
  }
  dispatches.push_back(Dispatched(inserted[100].run_id, "10.0.0.5:9999", kDay + 7200100, 1));
  dispatches.push_back(Dispatched(inserted[101].run_id, "10.0.0.5:9999", kDay + 7200100, 1));
  ASSERT_OK(store().RecordDispatches(dispatches));
  // A dispatch recorded again (a resend) is not counted twice.
  ASSERT_OK(store().RecordDispatches(
      {Dispatched(inserted[0].run_id, "10.0.0.5:9999", kDay + 9000000, 1)}));
  for (int64_t job : {job_.id(), int64_t{0}}) {
    SCOPED_TRACE(job);
    ASSERT_OK_AND_ASSIGN(rows, store().GetStats(kDay, kDay + kDayMs, job));
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_SAME_BUCKET(rows[0].lateness_p50_ms(), 500);  // Rank 50 of 100.
    EXPECT_SAME_BUCKET(rows[0].lateness_p99_ms(), 990);  // Rank 99 of 100.
    EXPECT_EQ(rows[0].duration_p50_ms(), 0);             // Nothing ended yet.
  }
  // Purging the job removes its lateness rows with its other statistics rows.
  ASSERT_OK(store().DeleteJob(job_.id(), /*purge_runs=*/true));
  ASSERT_OK_AND_ASSIGN(after, store().GetStats(kDay, kDay + kDayMs, 0));
  EXPECT_TRUE(after.empty());
}

TEST_P(StoreTest, StatsLatenessOfZeroIsReportedAndNoSlotsReportNone) {
  ASSERT_NO_FATAL_FAILURE(SeedGroupAndJob());
  // Day one: an API run only (no lateness); day two: a cron slot sent on
  // its instant, to the millisecond.
  std::vector<v1::Run> runs = {TriggeredAt(job_, kDay + 1000)};
  v1::Run slot = TriggeredAt(job_, kDay + kDayMs + 900);
  slot.set_trigger_type(v1::TRIGGER_TYPE_CRON);
  SetTime(kDay + kDayMs + 1000, slot.mutable_scheduled_time());
  runs.push_back(slot);
  ASSERT_OK_AND_ASSIGN(inserted, store().InsertRuns(runs));
  ASSERT_OK(store().RecordDispatches(
      {Dispatched(inserted[0].run_id, "10.0.0.5:9999", kDay + 1000, 1),
       Dispatched(inserted[1].run_id, "10.0.0.5:9999", kDay + kDayMs + 1000, 1)}));
  ASSERT_OK_AND_ASSIGN(rows, store().GetStats(kDay, kDay + 2 * kDayMs, job_.id()));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FALSE(rows[0].has_lateness_p50_ms());
  EXPECT_FALSE(rows[0].has_lateness_p99_ms());
  ASSERT_TRUE(rows[1].has_lateness_p50_ms());
  ASSERT_TRUE(rows[1].has_lateness_p99_ms());
  EXPECT_EQ(rows[1].lateness_p50_ms(), 0);
  EXPECT_EQ(rows[1].lateness_p99_ms(), 0);
}

}  // namespace
}  // namespace testing
}  // namespace gnomon::store

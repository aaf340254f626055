// The installation's partition count (JobStore::partition_count): recorded
// when a store is first opened, kept since, and what the partition filters
// of the store's queries count by; on every backend.
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/migrations.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

TEST_P(StoreTest, ANewStoreKeepsThePartitionCountItWasFirstOpenedWith) {
  EXPECT_EQ(store().partition_count(), kDefaultPartitions);
  options_.initial_partitions = 16;
  Recreate();
  EXPECT_EQ(store().partition_count(), 16);
  options_.initial_partitions = 128;  // Another count later: the recorded one stays.
  Reopen();
  EXPECT_EQ(store().partition_count(), 16);
}

TEST_P(StoreTest, APartitionCountOutOfRangeIsRefused) {
  for (int n : {0, -1, kMaxPartitions + 1}) {
    options_.initial_partitions = n;
    absl::StatusOr<std::unique_ptr<Store>> s = OpenStore(url(), options_);
    EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument) << n;
  }
  options_.initial_partitions = kMaxPartitions;
  Recreate();
  EXPECT_EQ(store().partition_count(), kMaxPartitions);
}

TEST_P(StoreTest, ProcessesOpeningANewStoreAtOnceAgreeOnOneCount) {
  Drop();
  std::vector<int> counts(4, 0);
  std::vector<std::thread> openers;
  for (int i = 0; i < 4; ++i) {
    openers.emplace_back([&, i] {
      StoreOptions o = options_;
      o.initial_partitions = 8 << i;
      absl::StatusOr<std::unique_ptr<Store>> s = OpenStore(url(), o);
      if (s.ok()) counts[i] = (*s)->partition_count();
    });
  }
  for (std::thread& t : openers) t.join();
  EXPECT_THAT(counts, ::testing::Each(counts[0]));
  EXPECT_THAT(counts[0], ::testing::AnyOf(8, 16, 32, 64));
  Reopen();
  EXPECT_EQ(store().partition_count(), counts[0]);
}

TEST_P(StoreTest, JobsAndTheirRunsAreFilteredByTheRecordedCount) {
  options_.initial_partitions = 16;
  Recreate();
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("app"), 1000));
  std::vector<NewJob> jobs(20);
  for (NewJob& j : jobs) {
    j.job = MakeJob(g.id(), "h");
    j.job.clear_child_job_ids();
    j.state = v1::JOB_STATE_RUNNING;
    j.next_fire_ms = 5000;
  }
  ASSERT_OK_AND_ASSIGN(created, store().CreateJobs(jobs, 1000, "ops"));
  ASSERT_EQ(created.size(), 20u);
  // Partition 1 of 16 (ids 1 and 17 in a new store); of 64 it would be id 1 alone.
  std::vector<int64_t> in_one;
  std::vector<int64_t> runs_in_one;  // Newest first, as listed.
  for (const v1::Job& j : created) {
    const int64_t run = Insert(MakeRun(j, 5000));
    if (j.id() % 16 != 1) continue;
    in_one.push_back(j.id());
    runs_in_one.insert(runs_in_one.begin(), run);
  }
  ASSERT_EQ(in_one.size(), 2u);
  ASSERT_OK_AND_ASSIGN(due, store().ListDueJobs(10000, 100, {1}));
  std::vector<int64_t> due_ids;
  for (const DueJob& d : due) due_ids.push_back(d.job.id());
  EXPECT_EQ(due_ids, in_one);
  RunFilter f;
  f.partitions = {1};
  ASSERT_OK_AND_ASSIGN(runs, store().ListRuns(f));
  std::vector<int64_t> run_ids;
  for (const v1::Run& r : runs) run_ids.push_back(r.id());
  EXPECT_EQ(run_ids, runs_in_one);
}

// Stores from before the count was recorded hashed their jobs into 64.

TEST_P(StoreTest, AStoreWithJobsFromBeforeTheSettingKeeps64Partitions) {
  options_.migrate_up_to = internal::kSettingsMigration - 1;
  Recreate();
  // A job as that release wrote it (this store reads job columns of later
  // versions).
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("app"), 1));
  store_.reset();
  ASSERT_NO_FATAL_FAILURE(RawExec({absl::StrCat(
      "INSERT INTO job(group_id, state, next_fire_ms, last_fire_ms, spec, create_ms, update_ms, "
      "name) VALUES (",
      g.id(), ", 2, 0, 0, '', 1, 1, 'report')")}));
  options_.migrate_up_to = 0;
  options_.initial_partitions = 16;
  Reopen();
  EXPECT_EQ(store().partition_count(), 64);
}

TEST_P(StoreTest, AStoreWhereASchedulerRanBeforeTheSettingKeeps64Partitions) {
  options_.migrate_up_to = internal::kSettingsMigration - 1;
  Recreate();
  ASSERT_OK(store().AcquireLeases({"replica/a:7070"}, "a:7070#1", 1000).status());
  options_.migrate_up_to = 0;
  options_.initial_partitions = 16;
  Reopen();
  EXPECT_EQ(store().partition_count(), 64);
}

TEST_P(StoreTest, AnUnusedStoreFromBeforeTheSettingTakesTheCountItIsOpenedWith) {
  options_.migrate_up_to = internal::kSettingsMigration - 1;
  Recreate();
  options_.migrate_up_to = 0;
  options_.initial_partitions = 16;
  Reopen();
  EXPECT_EQ(store().partition_count(), 16);
}

}  // namespace
}  // namespace gnomon::store::testing

// The compatibility rule of migrations (migrations.h): a binary of release N
// keeps working against a store that a binary of release N+1 migrated. The
// older binary is played by a store whose migration list stops one step
// short (StoreOptions::migrate_up_to), on every backend.
#include <cstdint>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/store/migrations.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

using ::testing::ElementsAre;

int64_t LatestVersion(bool mysql) {
  const std::vector<internal::Migration>& all =
      mysql ? internal::MysqlMigrations() : internal::SqliteMigrations();
  return all.back().version;
}

TEST_P(StoreTest, PreviousReleaseRunsAgainstTheLatestSchema) {
  const int64_t latest = LatestVersion(is_mysql());
  ASSERT_GT(latest, 1);
  ASSERT_EQ(AppliedMigrations().back(), latest);  // SetUp opened with the full list.
  SeedGroupAndJob();

  options_.migrate_up_to = latest - 1;
  Reopen();  // Refuses nothing: the store is ahead of this "binary".
  EXPECT_EQ(AppliedMigrations().back(), latest);  // ...and is left as it is.

  // The previous release's everyday work, against the newer schema.
  ASSERT_OK_AND_ASSIGN(groups, store().ListGroups());
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("older"), 2000));
  ASSERT_OK_AND_ASSIGN(j, store().CreateJob(MakeJob(g.id(), "h"), v1::JOB_STATE_RUNNING, 5000, 2));
  ASSERT_OK_AND_ASSIGN(due, store().ListDueJobs(10000, 10, {}));
  EXPECT_FALSE(due.empty());
  const int64_t id = Insert(MakeRun(j, 5000));
  ASSERT_GT(id, 0);
  ASSERT_OK(store().RecordDispatches({Dispatched(id, "10.0.0.1:9999", 5100, 1)}));
  ASSERT_OK_AND_ASSIGN(acks,
                       store().ApplyReports({Started(id, 5200), Result(id, 200, 5300)}, g.id()));
  EXPECT_THAT(acks, ElementsAre(v1::REPORT_ACK_APPLIED, v1::REPORT_ACK_APPLIED));
  ASSERT_OK_AND_ASSIGN(run, store().GetRun(id));
  EXPECT_EQ(run.status(), v1::RUN_STATUS_SUCCEEDED);
  ASSERT_OK(store().CreateAdminToken("ops", std::string(64, 'a'), 6000));
  ASSERT_OK_AND_ASSIGN(token, store().FindAdminToken(std::string(64, 'a')));
  EXPECT_EQ(token.name(), "ops");
  ASSERT_OK(store().DeleteJob(j.id(), false));

  // The newer release opens it again and finds nothing left to apply.
  options_.migrate_up_to = 0;
  Reopen();
  EXPECT_EQ(AppliedMigrations().back(), latest);
  ASSERT_OK_AND_ASSIGN(again, store().GetGroup(g.id()));
  EXPECT_EQ(again.app_name(), "older");
}

TEST(PendingMigrations, StoreAheadOfTheBinaryNeedsNothing) {
  const std::vector<internal::Migration> all = {{1, "a", {}}, {2, "b", {}}, {3, "c", {}}};
  EXPECT_EQ(internal::PendingMigrations(all, 3, 2, "test").size(), 0u);
  EXPECT_EQ(internal::PendingMigrations(all, 5, 0, "test").size(), 0u);
  std::vector<const internal::Migration*> some = internal::PendingMigrations(all, 1, 2, "test");
  ASSERT_EQ(some.size(), 1u);
  EXPECT_EQ(some[0]->version, 2);
  EXPECT_EQ(internal::PendingMigrations(all, 0, 0, "test").size(), 3u);
}

}  // namespace
}  // namespace gnomon::store::testing

// StoreTest: the one GoogleTest suite run against every Store backend.
//
// The parameter names the backend: "sqlite" (a fresh file in a temp dir) or
// "mysql" (a fresh database on the server named by GNOMON_TEST_MYSQL_URL,
// dropped afterwards; the test is skipped when that variable is unset).
//
//   TEST_P(StoreTest, Something) { absl::StatusOr<v1::Group> g = store().CreateGroup(...); }
//
// Thread safety: fixtures are used by the test thread; store() is thread-safe.
#ifndef GNOMON_SERVICES_COMMON_STORE_STORE_TEST_FIXTURE_H_
#define GNOMON_SERVICES_COMMON_STORE_STORE_TEST_FIXTURE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gnomon/v1/log.pb.h"
#include "gtest/gtest.h"
#include "services/common/store/store.h"

namespace sql {
class Connection;
}  // namespace sql

namespace gnomon::store::testing {

// A "now" after every deferred follow-up in these tests.
inline constexpr int64_t kFarFuture = int64_t{1} << 60;

#define ASSERT_OK(expr)                          \
  do {                                           \
    const absl::Status _s = (expr);              \
    ASSERT_TRUE(_s.ok()) << #expr << ": " << _s; \
  } while (0)
#define ASSERT_OK_AND_ASSIGN(lhs, expr)                             \
  auto lhs##_or = (expr);                                           \
  ASSERT_TRUE(lhs##_or.ok()) << #expr << ": " << lhs##_or.status(); \
  auto lhs = *std::move(lhs##_or)

class StoreTest : public ::testing::TestWithParam<std::string> {
 public:
  // Report items.
  static v1::ReportItem Started(int64_t run_id, int64_t ms);
  static v1::ReportItem Result(int64_t run_id, int32_t code, int64_t end_ms);
  // Lines from..to of a run; each "line N", or with `text_bytes` > 0 that
  // many bytes of one letter.
  static v1::ReportItem Lines(int64_t run_id, int from, int to, size_t text_bytes = 0);

 protected:
  void SetUp() override;
  void TearDown() override;

  Store& store() { return *store_; }
  const std::string& url() const { return url_; }
  bool is_mysql() const { return GetParam() == "mysql"; }
  // Closes and reopens the store (re-running migrations).
  void Reopen();
  // Deletes the store and opens a new one at the same URL with options_.
  void Recreate();
  // The partition of `job_id` in this store (of its partition_count()).
  int PartitionOf(int64_t job_id) { return store::PartitionOf(job_id, store().partition_count()); }
  // Versions recorded in schema_migrations, read with the raw driver.
  std::vector<int64_t> AppliedMigrations();
  // For MySQL: a connection of our own to the test database (not the store's).
  std::unique_ptr<sql::Connection> RawMysqlConnection();
  // Runs `statements` on the test database with a raw driver connection
  // (close the store first to change SQLite's schema under it).
  void RawExec(const std::vector<std::string>& statements);

  // Closes and deletes the store (the SQLite file, the MySQL database).
  void Drop();

  // Fixtures: a group and a job in it.
  v1::Group MakeGroup(const std::string& app);
  v1::Job MakeJob(int64_t group_id, const std::string& handler);
  // A PENDING cron run of `job` for slot `slot_ms`.
  v1::Run MakeRun(const v1::Job& job, int64_t slot_ms, uint32_t shard = 0, uint32_t attempt = 0);
  // Creates group_ ("app") and a RUNNING job_ in it.
  void SeedGroupAndJob();
  // Inserts one run and returns its id (0 and a test failure if not inserted).
  int64_t Insert(v1::Run run);

  StoreOptions options_;
  std::string dir_;  // SQLite temp dir.
  std::string url_;
  std::unique_ptr<Store> store_;
  v1::Group group_;  // Set by SeedGroupAndJob.
  v1::Job job_;
};

// The ids of `runs`, in order.
std::vector<int64_t> Ids(const std::vector<v1::Run>& runs);
// The ids of the follow-ups pending in `store` (listed at kFarFuture).
std::vector<int64_t> PendingFollowups(Store& store);
// A dispatch outcome: RUNNING on `address` at `ms`, with fencing `epoch`.
DispatchUpdate Dispatched(int64_t run_id, std::string address, int64_t ms, int64_t epoch);

}  // namespace gnomon::store::testing

#endif  // GNOMON_SERVICES_COMMON_STORE_STORE_TEST_FIXTURE_H_

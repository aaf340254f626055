// gnomond --migrate-only (the chart's pre-install/pre-upgrade Job): the real
// binary migrates a real store to the latest schema version, serves
// nothing, creates no admin token, exits 0, and does it again idempotently;
// an unreachable store exits 1. The first gnomond to initialise a store
// records its --partitions; any gnomond given another count then refuses
// to start, naming both.
#include <sqlite3.h>

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "services/common/store/migrations.h"
#include "tests/support/subprocess.h"
#include "tests/support/throwaway_mariadb.h"

namespace gnomon {
namespace {

using testing::CommandResult;
using testing::RunCommand;

// One integer a query on the SQLite file returns (-1 on any error).
int64_t SqliteScalar(const std::string& path, const std::string& query) {
  sqlite3* db = nullptr;
  int64_t out = -1;
  sqlite3_stmt* st = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK &&
      sqlite3_prepare_v2(db, query.c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW) {
    out = sqlite3_column_int64(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

CommandResult MigrateOnly(const std::string& store, const std::string& partitions = "") {
  // No cluster token, no admin token file, no listen address: none is needed.
  std::vector<std::string> argv = {GNOMOND_PATH, "--migrate-only", "--store=" + store};
  if (!partitions.empty()) argv.push_back("--partitions=" + partitions);
  return RunCommand(argv);
}

TEST(MigrateOnly, SqliteStoreReachesTheLatestVersion) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/data/gnomon.db";
  for (int pass = 0; pass < 2; ++pass) {  // The second run finds nothing to do.
    CommandResult r = MigrateOnly("sqlite:" + path);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("gnomond: store migrated"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("listening"), std::string::npos) << r.out;
  }
  EXPECT_EQ(SqliteScalar(path, "SELECT MAX(version) FROM schema_migrations"),
            store::internal::SqliteMigrations().back().version);
  EXPECT_EQ(SqliteScalar(path, "SELECT COUNT(*) FROM admin_token"), 0);
}

TEST(MigrateOnly, MariadbStoreReachesTheLatestVersion) {
  testing::PrivateMariadb m = testing::StartPrivateMariadb();
  if (!m.skip.empty()) GTEST_SKIP() << m.skip;
  ASSERT_TRUE(m.status.ok()) << m.status;
  for (int pass = 0; pass < 2; ++pass) {
    CommandResult r = MigrateOnly(m.db->Url("gnomon_migrate"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("gnomond: store migrated"), std::string::npos) << r.out;
  }
  CommandResult q =
      RunCommand({"mariadb", "--no-defaults", "--socket=" + m.db->socket(), "-uroot", "-N", "-e",
                  "SELECT MAX(version) FROM gnomon_migrate.schema_migrations"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  int64_t version = 0;
  ASSERT_TRUE(absl::SimpleAtoi(absl::StripAsciiWhitespace(q.out), &version)) << q.out;
  EXPECT_EQ(version, store::internal::MysqlMigrations().back().version);
}

TEST(MigrateOnly, ThePartitionCountIsFixedByTheFirstGnomondToInitialiseTheStore) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/gnomon.db";
  CommandResult first = MigrateOnly("sqlite:" + path, "16");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("(16 partitions)"), std::string::npos) << first.out;
  EXPECT_EQ(SqliteScalar(path, "SELECT value FROM setting WHERE name = 'partitions'"), 16);
  CommandResult same = MigrateOnly("sqlite:" + path, "16");
  EXPECT_EQ(same.exit_code, 0) << same.err;

  // Another count, or none (the default, 64): refused, with both values and the fix.
  for (const std::string& flag : {std::string("32"), std::string()}) {
    CommandResult other = MigrateOnly("sqlite:" + path, flag);
    EXPECT_EQ(other.exit_code, 1) << other.out;
    EXPECT_NE(other.err.find(absl::StrCat("--partitions=", flag.empty() ? "64" : flag,
                                          ", but the store was initialised with 16 partitions")),
              std::string::npos)
        << other.err;
    EXPECT_NE(other.err.find("give every gnomond of this installation --partitions=16"),
              std::string::npos)
        << other.err;
  }
  // A serving gnomond refuses the same way, before it listens.
  CommandResult serve = RunCommand(
      {GNOMOND_PATH, "--store=sqlite:" + path, "--partitions=32", "--listen=127.0.0.1:0"});
  EXPECT_EQ(serve.exit_code, 1) << serve.out;
  EXPECT_NE(serve.err.find("--partitions=32, but the store was initialised with 16"),
            std::string::npos)
      << serve.err;
  EXPECT_EQ(serve.out.find("listening"), std::string::npos) << serve.out;
  EXPECT_EQ(SqliteScalar(path, "SELECT value FROM setting WHERE name = 'partitions'"), 16);
}

TEST(MigrateOnly, APartitionCountOutOfRangeIsRefused) {
  testing::TempDir dir;
  for (const char* bad : {"0", "4097"}) {
    CommandResult r = MigrateOnly("sqlite:" + dir.path() + "/gnomon.db", bad);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.err.find(absl::StrCat("--partitions: ", bad, " is not in 1..4096")),
              std::string::npos)
        << r.err;
  }
}

// gnomond refuses a run-log byte budget of nothing or past 1 TiB, naming the
// flag, before it listens.
TEST(MigrateOnly, ALogBudgetOutOfRangeIsRefused) {
  testing::TempDir dir;
  for (const char* bad : {"0", "-1", "1048577"}) {
    CommandResult r =
        RunCommand({GNOMOND_PATH, "--store=sqlite:" + dir.path() + "/gnomon.db",
                    absl::StrCat("--max-log-mib-per-run=", bad), "--listen=127.0.0.1:0"});
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.err.find(absl::StrCat("--max-log-mib-per-run: ", bad, " is not in 1..1048576")),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.out.find("listening"), std::string::npos) << r.out;
  }
}

TEST(MigrateOnly, UnreachableStoreFails) {
  // Port 1 on loopback: nothing listens there.
  CommandResult r = MigrateOnly("mysql://u:p@127.0.0.1:1/gnomon");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("gnomond: --store:"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace gnomon

// StoreTest cases about MySQL failure modes: a server that drops the store's
// connections, and a lock held long enough to time a statement out. They need
// a second, raw connection to the server, so they skip on SQLite.
#include <cppconn/exception.h>
#include <cppconn/resultset.h>
#include <cppconn/statement.h>
#include <mysql_connection.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "services/common/status/status_matchers.h"
#include "services/common/store/store_test_fixture.h"

namespace gnomon::store::testing {
namespace {

// Kills every connection to the current database except `self`'s; returns how many.
int KillOtherConnections(sql::Connection& self) {
  std::unique_ptr<sql::Statement> st(self.createStatement());
  std::unique_ptr<sql::ResultSet> rs(
      st->executeQuery("SELECT ID FROM information_schema.PROCESSLIST "
                       "WHERE DB = DATABASE() AND ID <> CONNECTION_ID()"));
  std::vector<int64_t> ids;
  while (rs->next()) ids.push_back(rs->getInt64(1));
  for (int64_t id : ids) st->execute(sql::SQLString(absl::StrCat("KILL CONNECTION ", id)));
  return static_cast<int>(ids.size());
}

TEST_P(StoreTest, MysqlConnectionsKilledByTheServerAreReplaced) {
  if (!is_mysql()) GTEST_SKIP() << "MySQL-specific: needs a server that can kill connections";
  ASSERT_OK_AND_ASSIGN(g, store().CreateGroup(MakeGroup("app"), 1));
  std::unique_ptr<sql::Connection> raw = RawMysqlConnection();
  ASSERT_NE(raw, nullptr);
  ASSERT_GE(KillOtherConnections(*raw), 1);
  // The pooled connection is dead; the store notices before anything was
  // applied and retries on a fresh connection.
  ASSERT_OK_AND_ASSIGN(got, store().GetGroup(g.id()));
  EXPECT_EQ(got.app_name(), "app");
  ASSERT_GE(KillOtherConnections(*raw), 1);
  ASSERT_OK_AND_ASSIGN(second, store().CreateGroup(MakeGroup("second"), 2));
  EXPECT_GT(second.id(), g.id());
}

TEST_P(StoreTest, MysqlLockWaitTimeoutIsUnavailableAndRecovers) {
  if (!is_mysql()) GTEST_SKIP() << "MySQL-specific: needs a second client holding a row lock";
  options_.timeout_seconds = 1;
  Reopen();
  ASSERT_OK_AND_ASSIGN(first, store().AcquireLeases({"scheduler"}, "A", 500));
  std::unique_ptr<sql::Connection> raw = RawMysqlConnection();
  ASSERT_NE(raw, nullptr);
  std::unique_ptr<sql::Statement> st(raw->createStatement());
  st->execute("START TRANSACTION");
  std::unique_ptr<sql::ResultSet> locked(
      st->executeQuery("SELECT holder FROM lease WHERE name = 'scheduler' FOR UPDATE"));
  // The store waits innodb_lock_wait_timeout (1 s) and reports the store as unavailable.
  absl::StatusOr<Leases> blocked = store().AcquireLeases({"scheduler"}, "B", 5000);
  EXPECT_THAT(blocked, StatusIs(absl::StatusCode::kUnavailable));
  st->execute("COMMIT");
  // A's lease (0.5 s) has expired by now: B takes it with the next epoch.
  ASSERT_OK_AND_ASSIGN(taken, store().AcquireLeases({"scheduler"}, "B", 5000));
  ASSERT_EQ(taken.leases.size(), 1u);
  EXPECT_EQ(taken.leases[0].epoch, first.leases[0].epoch + 1);
}

}  // namespace
}  // namespace gnomon::store::testing

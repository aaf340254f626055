#include "services/common/store/mysql_store.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/migrations.h"
#include "services/common/store/mysql_conn.h"
#include "services/common/store/sql_store.h"
#include "services/common/store/statements.h"

namespace gnomon::store {
namespace {

using internal::ExecResult;
using internal::MysqlConn;
using internal::SqlFn;
using internal::SqlRow;

// Connections per lane (sql_conn.h): the bulk writers of runs and every
// other call share four; control calls (leases, membership, credential
// lookups, health) have two of their own, so a busy store never makes a live
// replica miss its lease renewals for want of a connection. Four, not
// more: past the server's capacity more bulk transactions at once only make
// every statement, a lease renewal's too, wait longer for the server's CPU.
constexpr int kBulkConnections = 4;
constexpr int kControlConnections = 2;
// The read timeout of the connection that applies migrations (see OpenMysqlStore).
constexpr int kMigrationTimeoutSeconds = 3600;

// A pool of connections to one database. Connections are opened on demand,
// reused, and dropped when a call saw a connection-type failure.
class ConnectionPool {
 public:
  ConnectionPool(const MysqlAddress& address, const StoreOptions& options,
                 std::shared_ptr<internal::StatementCounter> counter, int max)
      : address_(address), options_(options), counter_(std::move(counter)), max_(max) {}

  // Runs body on a pooled connection. If a reused connection fails with
  // Unavailable before any statement succeeded (the server closed it while
  // idle), body runs once more on a fresh connection: nothing was applied.
  absl::Status WithConn(const std::function<absl::Status(MysqlConn&)>& body)
      ABSL_LOCKS_EXCLUDED(mu_) {
    for (int attempt = 0;; ++attempt) {
      bool reused = false;
      ASSIGN_OR_RETURN(std::unique_ptr<MysqlConn> conn, Acquire(&reused));
      conn->ResetCounters();
      absl::Status s = body(*conn);
      const bool retry = absl::IsUnavailable(s) && reused && conn->succeeded() == 0 &&
                         conn->broken() && attempt == 0;
      Release(std::move(conn));
      if (!retry) return s;
      DropIdle();  // They most likely died with it (server restart, idle timeout).
    }
  }

 private:
  void DropIdle() ABSL_LOCKS_EXCLUDED(mu_) {
    std::vector<std::unique_ptr<MysqlConn>> dropped;
    {
      absl::MutexLock lock(&mu_);
      dropped.swap(idle_);
      open_ -= static_cast<int>(dropped.size());
      freed_.SignalAll();
    }
  }

  absl::StatusOr<std::unique_ptr<MysqlConn>> Acquire(bool* reused) ABSL_LOCKS_EXCLUDED(mu_) {
    {
      absl::MutexLock lock(&mu_);
      // A CondVar loop rather than Await: Debian's Abseil is not built for
      // TSan, and conditions evaluated by other threads inside it look racy.
      while (idle_.empty() && open_ >= max_) freed_.Wait(&mu_);
      if (!idle_.empty()) {
        std::unique_ptr<MysqlConn> conn = std::move(idle_.back());
        idle_.pop_back();
        *reused = true;
        return conn;
      }
      ++open_;
    }
    absl::StatusOr<std::unique_ptr<MysqlConn>> conn =
        MysqlConn::Connect(address_, options_, true, counter_);
    if (!conn.ok()) {
      absl::MutexLock lock(&mu_);
      --open_;
      freed_.Signal();
    }
    return conn;
  }

  void Release(std::unique_ptr<MysqlConn> conn) ABSL_LOCKS_EXCLUDED(mu_) {
    if (conn->broken()) {
      conn.reset();  // Closed outside the lock: a dead server may be slow to hang up on.
      absl::MutexLock lock(&mu_);
      --open_;
      freed_.Signal();
      return;
    }
    absl::MutexLock lock(&mu_);
    idle_.push_back(std::move(conn));
    freed_.Signal();
  }

  const MysqlAddress& address_;
  const StoreOptions& options_;
  const std::shared_ptr<internal::StatementCounter> counter_;
  const int max_;
  absl::Mutex mu_;
  absl::CondVar freed_;  // Signalled when a connection is returned or closed.
  std::vector<std::unique_ptr<MysqlConn>> idle_ ABSL_GUARDED_BY(mu_);
  int open_ ABSL_GUARDED_BY(mu_) = 0;  // Connections open, idle or in use.
};

// One database: a pool per lane.
class MysqlDb final : public internal::SqlDb {
 public:
  MysqlDb(MysqlAddress address, StoreOptions options,
          std::shared_ptr<internal::StatementCounter> counter)
      : address_(std::move(address)),
        options_(options),
        counter_(std::move(counter)),
        bulk_(address_, options_, counter_, kBulkConnections),
        control_(address_, options_, counter_, kControlConnections) {}

  using SqlDb::Read;
  using SqlDb::Transact;
  absl::Status Transact(internal::Lane lane, const SqlFn& fn) override {
    return Pool(lane).WithConn([&](MysqlConn& c) -> absl::Status {
      RETURN_IF_ERROR(c.Script("START TRANSACTION"));
      absl::Status s = fn(c);
      if (s.ok()) s = c.Script("COMMIT");
      if (!s.ok() && !c.broken()) c.Script("ROLLBACK").IgnoreError();
      return s;
    });
  }

  absl::Status Read(internal::Lane lane, const SqlFn& fn) override {
    return Pool(lane).WithConn([&](MysqlConn& c) { return fn(c); });
  }

  uint64_t executed_statements() const override { return counter_->value(); }

 private:
  ConnectionPool& Pool(internal::Lane lane) {
    return lane == internal::Lane::kControl ? control_ : bulk_;
  }

  const MysqlAddress address_;
  const StoreOptions options_;
  const std::shared_ptr<internal::StatementCounter> counter_;
  ConnectionPool bulk_;
  ConnectionPool control_;
};

// Takes the named advisory lock, waiting up to `wait`.
absl::Status TakeMigrationLock(MysqlConn& c, const std::string& name, absl::Duration wait,
                               const StoreOptions& options) {
  // Each GET_LOCK call waits less than the read timeout, so a long wait for
  // another process's migration never looks like a dead server.
  const int step = std::max(0, options.timeout_seconds - 1);
  const absl::Time deadline = absl::Now() + wait;
  while (true) {
    ASSIGN_OR_RETURN(
        std::vector<SqlRow> rows,
        c.Query(absl::StrCat("SELECT GET_LOCK(?, ", step, ")"), {internal::SqlText(name)}));
    if (!rows.empty() && internal::ColInt(rows.front(), 0) == 1) return absl::OkStatus();
    if (absl::Now() >= deadline) {
      return absl::UnavailableError(
          absl::StrCat("mysql: timed out waiting for migration lock '", name, "'"));
    }
    if (step == 0) absl::SleepFor(absl::Milliseconds(100));
  }
}

// True for the errors an ALTER gives when a crash struck after it committed
// but before its migration was recorded: duplicate column (1060) or key
// name (1061), or a dropped key that is gone (1091). ALTER ... IF [NOT]
// EXISTS would say the same, but only MariaDB has it.
bool AlreadyApplied(const absl::Status& s) {
  return absl::EndsWith(s.message(), "(error 1060)") ||
         absl::EndsWith(s.message(), "(error 1061)") || absl::EndsWith(s.message(), "(error 1091)");
}

absl::Status ApplyMigrations(MysqlConn& c, int64_t migrate_up_to) {
  const internal::Statements& sql = internal::StatementsFor(internal::Dialect::kMysql);
  RETURN_IF_ERROR(c.Script(sql.create_migrations_table));
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql.select_migrations, {}));
  int64_t applied = 0;
  for (const SqlRow& row : rows) applied = std::max(applied, internal::ColInt(row, 0));
  for (const internal::Migration* m :
       internal::PendingMigrations(internal::MysqlMigrations(), applied, migrate_up_to, "mysql")) {
    // MySQL commits DDL implicitly; the statements are idempotent instead.
    for (const std::string& stmt : m->statements) {
      absl::Status s = c.Script(stmt);
      if (!s.ok() && !AlreadyApplied(s)) {
        return internal::Annotate(s, absl::StrCat("migration ", m->version));
      }
    }
    RETURN_IF_ERROR(
        c.Exec(sql.insert_migration,
               {internal::SqlInt(m->version), internal::SqlInt(absl::ToUnixMillis(absl::Now()))}));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<Store>> OpenMysqlStore(const MysqlAddress& address,
                                                      const StoreOptions& options) {
  auto counter = std::make_shared<internal::StatementCounter>();
  // Migrations get a connection of their own with a long read timeout: DDL
  // waits for the server's disk (a CREATE TABLE on a busy server took over
  // 5 s in CI) and an ALTER of a large run table takes minutes, neither of
  // which is a dead server. The connection is closed when they are done.
  StoreOptions migrating = options;
  migrating.timeout_seconds = std::max(options.timeout_seconds, kMigrationTimeoutSeconds);
  ASSIGN_OR_RETURN(std::unique_ptr<MysqlConn> conn,
                   MysqlConn::Connect(address, migrating, false, counter));
  MysqlConn& c = *conn;
  // The database name was validated by ParseStoreUrl (letters, digits, '_', '$').
  for (const std::string& stmt : {absl::StrCat("CREATE DATABASE IF NOT EXISTS `", address.database,
                                               "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"),
                                  absl::StrCat("USE `", address.database, "`")}) {
    RETURN_IF_ERROR(c.Script(stmt));
  }
  // Lock names are limited to 64 characters; a shared prefix only serialises more.
  const std::string lock = absl::StrCat("gnomon.migrate.", address.database).substr(0, 64);
  const absl::Duration wait = absl::Seconds(std::max(30, 6 * options.timeout_seconds));
  RETURN_IF_ERROR(TakeMigrationLock(c, lock, wait, options));
  absl::Status migrated = ApplyMigrations(c, options.migrate_up_to);
  absl::StatusOr<std::vector<SqlRow>> released =
      c.Query("SELECT RELEASE_LOCK(?)", {internal::SqlText(lock)});
  RETURN_IF_ERROR(migrated);
  RETURN_IF_ERROR(released);

  conn.reset();
  auto db = std::make_unique<MysqlDb>(address, options, std::move(counter));
  return internal::SqlStore::Create(std::move(db), internal::Dialect::kMysql, options);
}

}  // namespace gnomon::store

#include "services/common/store/sqlite_store.h"

#include <sqlite3.h>

#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/migrations.h"
#include "services/common/store/sql_conn.h"
#include "services/common/store/sql_store.h"
#include "services/common/store/statements.h"

namespace gnomon::store {
namespace {

using internal::ExecResult;
using internal::SqlBlob;
using internal::SqlConn;
using internal::SqlDb;
using internal::SqlFn;
using internal::SqlRow;
using internal::SqlValue;

constexpr int kMaxReaders = 4;

absl::Status SqliteError(int rc, sqlite3* db, const std::string& what) {
  std::string msg =
      absl::StrCat("sqlite: ", what, ": ", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_CANTOPEN:
      return absl::UnavailableError(msg);
    default:
      break;
  }
  switch (rc) {
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY:
      return absl::AlreadyExistsError(msg);
    case SQLITE_CONSTRAINT_FOREIGNKEY:
      return absl::FailedPreconditionError(msg);
    default:
      return absl::InternalError(msg);
  }
}

// One SQLite connection with its statement cache. Used by one thread at a time.
class SqliteConn final : public SqlConn {
 public:
  ~SqliteConn() override {
    for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
  }

  // counter (shared by the database's connections) counts the statements run.
  static absl::StatusOr<std::unique_ptr<SqliteConn>> Open(
      const std::string& path, const StoreOptions& options,
      std::shared_ptr<internal::StatementCounter> counter) {
    sqlite3* db = nullptr;
    const int rc =
        sqlite3_open_v2(path.c_str(), &db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    auto conn = std::unique_ptr<SqliteConn>(new SqliteConn(db, std::move(counter)));
    if (rc != SQLITE_OK) return SqliteError(rc, db, absl::StrCat("open ", path));
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, options.sqlite_busy_timeout_ms);
    // A larger page cache and memory-mapped reads: the run table's hot pages
    // are read from memory instead of one pread per page per transaction.
    // Processes opening a new database at once race to switch it to WAL,
    // and SQLite answers that switch "database is locked" at once rather
    // than calling the busy handler (which could deadlock there): it is
    // retried for as long as the busy timeout would have waited.
    const absl::Time give_up = absl::Now() + absl::Milliseconds(options.sqlite_busy_timeout_ms);
    absl::Status wal = conn->Script("PRAGMA journal_mode=WAL");
    while (absl::IsUnavailable(wal) && absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(5));
      wal = conn->Script("PRAGMA journal_mode=WAL");
    }
    RETURN_IF_ERROR(wal);
    for (const char* pragma : {"PRAGMA synchronous=NORMAL", "PRAGMA foreign_keys=ON",
                               "PRAGMA cache_size=-32768", "PRAGMA mmap_size=268435456"}) {
      RETURN_IF_ERROR(conn->Script(pragma));
    }
    return conn;
  }

  sqlite3* handle() const { return db_; }

  // Runs SQL text without caching (pragmas, DDL, transaction control).
  absl::Status Script(const std::string& sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    sqlite3_free(err);
    if (rc != SQLITE_OK) return SqliteError(rc, db_, sql);
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<SqlRow>> Query(const std::string& sql,
                                            const std::vector<SqlValue>& args) override {
    std::vector<SqlRow> rows;
    RETURN_IF_ERROR(Run(sql, args, &rows));
    return rows;
  }

  absl::StatusOr<ExecResult> Exec(const std::string& sql,
                                  const std::vector<SqlValue>& args) override {
    RETURN_IF_ERROR(Run(sql, args, nullptr));
    return ExecResult{sqlite3_changes64(db_)};
  }

  absl::StatusOr<int64_t> Insert(const std::string& sql,
                                 const std::vector<SqlValue>& args) override {
    RETURN_IF_ERROR(Run(sql, args, nullptr));
    return static_cast<int64_t>(sqlite3_last_insert_rowid(db_));
  }

  // One writer at a time (BEGIN IMMEDIATE) and no explicit ids: the rows of
  // one INSERT take consecutive rowids in row order, the last of which is
  // sqlite3_last_insert_rowid().
  absl::StatusOr<std::vector<int64_t>> InsertRows(const std::string& sql,
                                                  const std::vector<SqlValue>& args,
                                                  int rows) override {
    RETURN_IF_ERROR(Run(sql, args, nullptr));
    const int64_t last = sqlite3_last_insert_rowid(db_);
    std::vector<int64_t> ids(rows);
    for (int i = 0; i < rows; ++i) ids[i] = last - (rows - 1) + i;
    return ids;
  }

  bool consecutive_insert_ids() const override { return true; }

 private:
  SqliteConn(sqlite3* db, std::shared_ptr<internal::StatementCounter> counter)
      : db_(db), counter_(std::move(counter)) {}

  absl::StatusOr<sqlite3_stmt*> Prepare(const std::string& sql) {
    auto it = cache_.find(sql);
    if (it != cache_.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) return SqliteError(rc, db_, absl::StrCat("prepare ", sql));
    cache_.emplace(sql, stmt);
    return stmt;
  }

  absl::Status Run(const std::string& sql, const std::vector<SqlValue>& args,
                   std::vector<SqlRow>* rows) {
    ASSIGN_OR_RETURN(sqlite3_stmt * stmt, Prepare(sql));
    if (counter_ != nullptr) counter_->Add();
    // Reset on every exit so no statement keeps a read snapshot open.
    struct Resetter {
      sqlite3_stmt* stmt;
      ~Resetter() {
        sqlite3_reset(stmt);
        sqlite3_clear_bindings(stmt);
      }
    } resetter{stmt};
    for (size_t i = 0; i < args.size(); ++i) {
      const int idx = static_cast<int>(i) + 1;
      int rc = SQLITE_OK;
      if (const int64_t* v = std::get_if<int64_t>(&args[i])) {
        rc = sqlite3_bind_int64(stmt, idx, *v);
      } else if (const std::string* t = std::get_if<std::string>(&args[i])) {
        rc = sqlite3_bind_text64(stmt, idx, t->data(), t->size(), SQLITE_STATIC, SQLITE_UTF8);
      } else if (const SqlBlob* b = std::get_if<SqlBlob>(&args[i])) {
        rc = sqlite3_bind_blob64(stmt, idx, b->bytes.data(), b->bytes.size(), SQLITE_STATIC);
      } else {
        rc = sqlite3_bind_null(stmt, idx);
      }
      if (rc != SQLITE_OK) return SqliteError(rc, db_, absl::StrCat("bind ", sql));
    }
    while (true) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) return absl::OkStatus();
      if (rc != SQLITE_ROW) return SqliteError(rc, db_, sql);
      if (rows == nullptr) continue;
      const int n = sqlite3_column_count(stmt);
      SqlRow row;
      row.reserve(n);
      for (int c = 0; c < n; ++c) {
        switch (sqlite3_column_type(stmt, c)) {
          case SQLITE_INTEGER:
            row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(stmt, c)));
            break;
          case SQLITE_NULL:
            row.emplace_back(std::monostate());
            break;
          case SQLITE_BLOB: {
            const void* p = sqlite3_column_blob(stmt, c);
            const int len = sqlite3_column_bytes(stmt, c);
            row.emplace_back(std::string(static_cast<const char*>(p), p ? len : 0));
            break;
          }
          default: {
            const unsigned char* p = sqlite3_column_text(stmt, c);
            const int len = sqlite3_column_bytes(stmt, c);
            row.emplace_back(std::string(reinterpret_cast<const char*>(p), p ? len : 0));
            break;
          }
        }
      }
      rows->push_back(std::move(row));
    }
  }

  sqlite3* const db_;
  const std::shared_ptr<internal::StatementCounter> counter_;  // May be null.
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
};

// Copies the WAL back into the database file from its own connection and
// thread, so commits on the writer do not pay for checkpoints (SQLite's
// automatic checkpoint runs inside the committing transaction). PASSIVE: it
// never blocks the writer or readers. The writer keeps a large automatic
// threshold as a backstop should this thread fall behind.
class Checkpointer {
 public:
  explicit Checkpointer(std::unique_ptr<SqliteConn> conn)
      : conn_(std::move(conn)), thread_([this] { Loop(); }) {}
  ~Checkpointer() {
    {
      absl::MutexLock lock(&mu_);
      stop_ = true;
      wake_.Signal();
    }
    thread_.join();
  }

 private:
  void Loop() ABSL_LOCKS_EXCLUDED(mu_) {
    absl::MutexLock lock(&mu_);
    while (!stop_) {
      // A timed wait on a CondVar (not a sleep): Stop() wakes it at once.
      wake_.WaitWithTimeout(&mu_, kCheckpointEvery);
      if (stop_) break;
      mu_.Unlock();
      sqlite3_wal_checkpoint_v2(conn_->handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr,
                                nullptr);
      mu_.Lock();
    }
  }

  static constexpr absl::Duration kCheckpointEvery = absl::Milliseconds(100);
  const std::unique_ptr<SqliteConn> conn_;  // Used only by thread_.
  absl::Mutex mu_;
  absl::CondVar wake_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::thread thread_;
};

class SqliteDb final : public SqlDb {
 public:
  SqliteDb(std::string path, StoreOptions options,
           std::shared_ptr<internal::StatementCounter> counter, std::unique_ptr<SqliteConn> writer,
           std::unique_ptr<Checkpointer> checkpointer)
      : path_(std::move(path)),
        options_(options),
        counter_(std::move(counter)),
        writer_(std::move(writer)),
        checkpointer_(std::move(checkpointer)) {}

  using SqlDb::Read;
  using SqlDb::Transact;
  absl::Status Transact(internal::Lane lane, const SqlFn& fn) override
      ABSL_LOCKS_EXCLUDED(write_mu_, turn_mu_) {
    TakeWriterTurn(lane);
    absl::Status s;
    {
      absl::MutexLock lock(&write_mu_);
      s = TransactLocked(*writer_, fn);
    }
    EndWriterTurn();
    return s;
  }

  // Reads use connections of their own (WAL): they wait for no writer.
  absl::Status Read(internal::Lane, const SqlFn& fn) override
      ABSL_LOCKS_EXCLUDED(read_mu_, write_mu_) {
    if (path_ == ":memory:") {
      absl::MutexLock lock(&write_mu_);
      return fn(*writer_);
    }
    ASSIGN_OR_RETURN(std::unique_ptr<SqliteConn> conn, TakeReader());
    absl::Status s = fn(*conn);
    absl::MutexLock lock(&read_mu_);
    idle_readers_.push_back(std::move(conn));
    reader_freed_.Signal();
    return s;
  }

  uint64_t executed_statements() const override { return counter_->value(); }

  // Applies the migrations not yet recorded, in one write transaction.
  absl::Status Migrate() ABSL_LOCKS_EXCLUDED(write_mu_) {
    absl::MutexLock lock(&write_mu_);
    const internal::Statements& sql = internal::StatementsFor(internal::Dialect::kSqlite);
    SqliteConn& conn = *writer_;
    return TransactLocked(conn, [&](SqlConn&) -> absl::Status {
      RETURN_IF_ERROR(conn.Script(sql.create_migrations_table));
      ASSIGN_OR_RETURN(std::vector<SqlRow> rows, conn.Query(sql.select_migrations, {}));
      int64_t applied = 0;
      for (const SqlRow& row : rows) applied = std::max(applied, internal::ColInt(row, 0));
      for (const internal::Migration* m : internal::PendingMigrations(
               internal::SqliteMigrations(), applied, options_.migrate_up_to, "sqlite")) {
        for (const std::string& stmt : m->statements) {
          if (absl::Status s = conn.Script(stmt); !s.ok()) {
            return internal::Annotate(s, absl::StrCat("migration ", m->version));
          }
        }
        RETURN_IF_ERROR(conn.Exec(
            sql.insert_migration,
            {internal::SqlInt(m->version), internal::SqlInt(absl::ToUnixMillis(absl::Now()))}));
      }
      return absl::OkStatus();
    });
  }

 private:
  // One writer at a time; a control transaction waiting goes before every
  // bulk one that waits (it waits at most for the one writing now).
  void TakeWriterTurn(internal::Lane lane) ABSL_LOCKS_EXCLUDED(turn_mu_) {
    const bool control = lane == internal::Lane::kControl;
    absl::MutexLock lock(&turn_mu_);
    if (control) ++control_waiting_;
    // A CondVar loop rather than Await (see TakeReader).
    while (writing_ || (!control && control_waiting_ > 0)) turn_.Wait(&turn_mu_);
    if (control) --control_waiting_;
    writing_ = true;
  }
  void EndWriterTurn() ABSL_LOCKS_EXCLUDED(turn_mu_) {
    absl::MutexLock lock(&turn_mu_);
    writing_ = false;
    turn_.SignalAll();
  }

  absl::Status TransactLocked(SqliteConn& conn, const SqlFn& fn)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(write_mu_) {
    RETURN_IF_ERROR(conn.Script("BEGIN IMMEDIATE"));
    absl::Status s = fn(conn);
    if (s.ok()) s = conn.Script("COMMIT");
    if (!s.ok()) conn.Script("ROLLBACK").IgnoreError();  // Fails only if none is open.
    return s;
  }

  absl::StatusOr<std::unique_ptr<SqliteConn>> TakeReader() ABSL_LOCKS_EXCLUDED(read_mu_) {
    {
      absl::MutexLock lock(&read_mu_);
      // A CondVar loop rather than Await: Debian's Abseil is not built for
      // TSan, and conditions evaluated by other threads inside it look racy.
      while (idle_readers_.empty() && readers_ >= kMaxReaders) reader_freed_.Wait(&read_mu_);
      if (!idle_readers_.empty()) {
        std::unique_ptr<SqliteConn> conn = std::move(idle_readers_.back());
        idle_readers_.pop_back();
        return conn;
      }
      ++readers_;
    }
    absl::StatusOr<std::unique_ptr<SqliteConn>> conn = SqliteConn::Open(path_, options_, counter_);
    if (!conn.ok()) {
      absl::MutexLock lock(&read_mu_);
      --readers_;
      reader_freed_.Signal();
    }
    return conn;
  }

  const std::string path_;
  const StoreOptions options_;
  const std::shared_ptr<internal::StatementCounter> counter_;
  absl::Mutex turn_mu_;
  absl::CondVar turn_;  // Signalled when the writer is free.
  bool writing_ ABSL_GUARDED_BY(turn_mu_) = false;
  int control_waiting_ ABSL_GUARDED_BY(turn_mu_) = 0;
  absl::Mutex write_mu_;
  const std::unique_ptr<SqliteConn> writer_ ABSL_PT_GUARDED_BY(write_mu_);
  absl::Mutex read_mu_;
  absl::CondVar reader_freed_;  // Signalled when a reader is returned or closed.
  std::vector<std::unique_ptr<SqliteConn>> idle_readers_ ABSL_GUARDED_BY(read_mu_);
  int readers_ ABSL_GUARDED_BY(read_mu_) = 0;         // Open reader connections, idle or in use.
  const std::unique_ptr<Checkpointer> checkpointer_;  // Null for ":memory:".
};

}  // namespace

absl::StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path,
                                                       const StoreOptions& options) {
  if (path.empty()) return absl::InvalidArgumentError("store url: sqlite path is empty");
  auto counter = std::make_shared<internal::StatementCounter>();
  ASSIGN_OR_RETURN(std::unique_ptr<SqliteConn> writer, SqliteConn::Open(path, options, counter));
  std::unique_ptr<Checkpointer> checkpointer;
  if (path != ":memory:") {
    // ~80 MB of WAL before the writer checkpoints itself.
    RETURN_IF_ERROR(writer->Script("PRAGMA wal_autocheckpoint=20000"));
    // The checkpointer runs no counted statements.
    ASSIGN_OR_RETURN(std::unique_ptr<SqliteConn> conn, SqliteConn::Open(path, options, nullptr));
    checkpointer = std::make_unique<Checkpointer>(std::move(conn));
  }
  auto db = std::make_unique<SqliteDb>(path, options, std::move(counter), std::move(writer),
                                       std::move(checkpointer));
  RETURN_IF_ERROR(db->Migrate());
  return internal::SqlStore::Create(std::move(db), internal::Dialect::kSqlite, options);
}

}  // namespace gnomon::store

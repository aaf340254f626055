// SqlConn / SqlDb: the narrow seam between gnomon's store logic (SqlStore) and a
// database driver (SQLite's C API, MySQL Connector/C++).
//
// SqlStore writes its logic once against these interfaces; a backend supplies
// connections, transactions, prepared-statement caching and the mapping of
// driver errors to absl::Status (Unavailable, AlreadyExists, Internal).
//
// Example:
//   absl::Status s = db.Transact([&](SqlConn& c) -> absl::Status {
//     absl::StatusOr<ExecResult> r = c.Exec(sql.advance_job, {SqlValue(next), ...});
//     if (!r.ok()) return r.status();
//     return absl::OkStatus();
//   });
//
// Thread safety: a SqlDb is thread-safe; a SqlConn is used by one thread at a
// time, only inside the callback it was passed to.
#ifndef GNOMON_SERVICES_COMMON_STORE_SQL_CONN_H_
#define GNOMON_SERVICES_COMMON_STORE_SQL_CONN_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace gnomon::store::internal {

// Bytes bound as a BLOB (a std::string binds as TEXT).
struct SqlBlob {
  std::string bytes;
};

// A bound parameter or a fetched column. Fetched BLOB and TEXT columns are
// both returned as std::string.
using SqlValue = std::variant<std::monostate, int64_t, std::string, SqlBlob>;
using SqlRow = std::vector<SqlValue>;

inline SqlValue SqlNull() { return SqlValue(std::monostate()); }
inline SqlValue SqlInt(int64_t v) { return SqlValue(v); }
inline SqlValue SqlText(std::string v) { return SqlValue(std::move(v)); }
inline SqlValue SqlBytes(std::string v) { return SqlValue(SqlBlob{std::move(v)}); }

// Column accessors: NULL reads as 0 / "".
int64_t ColInt(const SqlRow& row, size_t i);
std::string ColStr(const SqlRow& row, size_t i);
bool ColIsNull(const SqlRow& row, size_t i);

struct ExecResult {
  int64_t affected_rows = 0;  // Rows matched (MySQL connects with CLIENT_FOUND_ROWS).
};

class SqlConn {
 public:
  virtual ~SqlConn() = default;
  // Runs a SELECT. `sql` is cached as a prepared statement by its text.
  virtual absl::StatusOr<std::vector<SqlRow>> Query(const std::string& sql,
                                                    const std::vector<SqlValue>& args) = 0;
  // Runs an INSERT/UPDATE/DELETE.
  virtual absl::StatusOr<ExecResult> Exec(const std::string& sql,
                                          const std::vector<SqlValue>& args) = 0;
  // Runs an INSERT and returns the generated id.
  virtual absl::StatusOr<int64_t> Insert(const std::string& sql,
                                         const std::vector<SqlValue>& args) = 0;
  // Runs a multi-row INSERT of `rows` rows that either inserts every row or
  // fails as a whole (AlreadyExists on a unique-key clash), and returns the
  // generated ids in row order if the driver can tell them from the
  // statement (consecutive_insert_ids()), else an empty vector: the caller
  // then reads them back by the rows' unique keys.
  virtual absl::StatusOr<std::vector<int64_t>> InsertRows(const std::string& sql,
                                                          const std::vector<SqlValue>& args,
                                                          int rows) = 0;
  // True if a multi-row INSERT takes consecutive ids (in steps of a known
  // increment) in row order, so InsertRows returns them.
  virtual bool consecutive_insert_ids() const = 0;
};

using SqlFn = std::function<absl::Status(SqlConn&)>;

// Which connections a call goes through. Control calls (partition leases,
// executor membership, the credential lookups of requests, health pings)
// must not wait behind the bulk writes of runs when the store is busy: a
// live replica would otherwise lose its leases to its own load. MySQL gives
// them connections of their own; SQLite (one writer) lets them write next.
enum class Lane { kBulk, kControl };

class SqlDb {
 public:
  virtual ~SqlDb() = default;
  // Runs fn in one write transaction; commits if it returns OK, else rolls back
  // and returns its status.
  virtual absl::Status Transact(Lane lane, const SqlFn& fn) = 0;
  absl::Status Transact(const SqlFn& fn) { return Transact(Lane::kBulk, fn); }
  // Runs fn outside a transaction (each statement sees committed data).
  virtual absl::Status Read(Lane lane, const SqlFn& fn) = 0;
  absl::Status Read(const SqlFn& fn) { return Read(Lane::kBulk, fn); }
  // Statements run through Query, Exec, Insert and InsertRows on this
  // database's connections since it was opened, one per round trip to the
  // server (MySQL's Insert is two: the INSERT, then LAST_INSERT_ID()).
  // Transaction control (BEGIN/COMMIT) is not counted; see committed().
  virtual uint64_t executed_statements() const = 0;
};

// The statement counter a backend's connections share (relaxed atomics: a
// statistic, not a synchronisation point).
class StatementCounter {
 public:
  void Add() { n_.fetch_add(1, std::memory_order_relaxed); }
  uint64_t value() const { return n_.load(std::memory_order_relaxed); }

 private:
  std::atomic<uint64_t> n_{0};
};

// Counts the committed transactions of the SqlDb it wraps.
class CountingSqlDb final : public SqlDb {
 public:
  explicit CountingSqlDb(std::unique_ptr<SqlDb> db) : db_(std::move(db)) {}
  using SqlDb::Read;
  using SqlDb::Transact;
  absl::Status Transact(Lane lane, const SqlFn& fn) override {
    absl::Status s = db_->Transact(lane, fn);
    if (s.ok()) committed_.fetch_add(1, std::memory_order_relaxed);
    return s;
  }
  absl::Status Read(Lane lane, const SqlFn& fn) override { return db_->Read(lane, fn); }
  uint64_t executed_statements() const override { return db_->executed_statements(); }
  uint64_t committed() const { return committed_.load(std::memory_order_relaxed); }

 private:
  const std::unique_ptr<SqlDb> db_;
  std::atomic<uint64_t> committed_{0};
};

}  // namespace gnomon::store::internal

#endif  // GNOMON_SERVICES_COMMON_STORE_SQL_CONN_H_

// MysqlConn: one MySQL Connector/C++ connection behind the SqlConn seam, with
// its prepared-statement cache and the mapping of sql::SQLException to
// absl::Status. No exception leaves this class.
//
// Example:
//   absl::StatusOr<std::unique_ptr<MysqlConn>> c =
//       MysqlConn::Connect(addr, options, true, /*counter=*/nullptr);
//   absl::StatusOr<std::vector<SqlRow>> rows = (*c)->Query("SELECT 1", {});
//
// Error mapping: connection-type failures (2002 can't connect, 2003 refused,
// 2005 unknown host, 2006 gone away, 2013/2055 lost connection, 1053 shutdown,
// 1927 killed, 4031 idle disconnect, 1040 too many connections), statement
// timeouts (1969, 3024), lock wait timeout (1205) and deadlock (1213) are
// Unavailable and mark the connection broken (the pool discards it);
// duplicate key (1062) is AlreadyExists; a foreign-key failure (1451, 1452) is
// FailedPrecondition; a value too long for its column (1406) is
// InvalidArgument; anything else Internal.
//
// Thread safety: not thread-safe; one thread at a time (the pool hands it out).
#ifndef GNOMON_SERVICES_COMMON_STORE_MYSQL_CONN_H_
#define GNOMON_SERVICES_COMMON_STORE_MYSQL_CONN_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/common/store/sql_conn.h"
#include "services/common/store/store.h"
#include "services/common/store/store_url.h"

namespace sql {
class Connection;
class PreparedStatement;
}  // namespace sql

namespace gnomon::store::internal {

class MysqlConn final : public SqlConn {
 public:
  // Connects to address (selecting its database when use_database is true)
  // with the connect/read/write timeouts of options, utf8mb4, found-rows
  // semantics for affected rows, READ COMMITTED and strict SQL mode, and
  // learns how the server allocates auto-increment ids (see InsertRows).
  // counter (may be null) counts the statements the connection runs.
  static absl::StatusOr<std::unique_ptr<MysqlConn>> Connect(
      const MysqlAddress& address, const StoreOptions& options, bool use_database,
      std::shared_ptr<StatementCounter> counter);
  ~MysqlConn() override;

  absl::StatusOr<std::vector<SqlRow>> Query(const std::string& sql,
                                            const std::vector<SqlValue>& args) override;
  absl::StatusOr<ExecResult> Exec(const std::string& sql,
                                  const std::vector<SqlValue>& args) override;
  absl::StatusOr<int64_t> Insert(const std::string& sql,
                                 const std::vector<SqlValue>& args) override;
  // With innodb_autoinc_lock_mode 0 or 1 ("traditional", "consecutive";
  // MariaDB's default is 1) InnoDB reserves the ids of a "simple insert" (a
  // multi-row INSERT ... VALUES without IGNORE or ON DUPLICATE KEY, which is
  // what InsertRows runs) in one step, so its rows take LAST_INSERT_ID(),
  // + auto_increment_increment, ... in row order, whatever other sessions
  // insert meanwhile. With mode 2 ("interleaved", MySQL 8's default) ids of
  // concurrent statements interleave: InsertRows then returns no ids and
  // the caller reads them back by unique key.
  absl::StatusOr<std::vector<int64_t>> InsertRows(const std::string& sql,
                                                  const std::vector<SqlValue>& args,
                                                  int rows) override;
  bool consecutive_insert_ids() const override { return id_step_ > 0; }
  // Runs SQL text without preparing it (DDL, transaction control, USE).
  absl::Status Script(const std::string& sql);

  // True once a connection-type failure was seen; the pool then discards it.
  bool broken() const { return broken_; }
  // Statements that succeeded since the last ResetCounters().
  int succeeded() const { return succeeded_; }
  void ResetCounters() { succeeded_ = 0; }

 private:
  MysqlConn(std::unique_ptr<sql::Connection> conn, std::shared_ptr<StatementCounter> counter);
  absl::StatusOr<sql::PreparedStatement*> Prepare(const std::string& sql);

  std::unique_ptr<sql::Connection> conn_;
  const std::shared_ptr<StatementCounter> counter_;  // May be null.
  int64_t id_step_ = 0;  // auto_increment_increment if ids are consecutive, else 0.
  std::unordered_map<std::string, std::unique_ptr<sql::PreparedStatement>> cache_;
  bool broken_ = false;
  int succeeded_ = 0;
};

}  // namespace gnomon::store::internal

#endif  // GNOMON_SERVICES_COMMON_STORE_MYSQL_CONN_H_

#include "services/common/store/mysql_conn.h"

#include <cppconn/exception.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <cppconn/resultset_metadata.h>
#include <cppconn/statement.h>
#include <mysql_connection.h>
#include <mysql_driver.h>

#include <algorithm>
#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"

namespace gnomon::store::internal {
namespace {

bool IsUnavailableCode(int code) {
  switch (code) {
    case 1040:  // Too many connections.
    case 1053:  // Server shutdown in progress.
    case 1205:  // Lock wait timeout.
    case 1213:  // Deadlock.
    case 1927:  // Connection killed (MariaDB).
    case 1969:  // Statement timeout (MariaDB max_statement_time).
    case 2002:  // Can't connect through socket.
    case 2003:  // Can't connect (refused, timeout).
    case 2005:  // Unknown host.
    case 2006:  // Server has gone away.
    case 2013:  // Lost connection during query.
    case 2055:  // Lost connection at ... system error.
    case 3024:  // Query execution interrupted, max_execution_time exceeded (MySQL).
    case 4031:  // Disconnected by the server because of inactivity.
      return true;
    default:
      return false;
  }
}

sql::SQLString Sql(const std::string& s) { return sql::SQLString(s); }

}  // namespace

// Maps a driver exception to a Status; *broken is set for connection-type failures.
absl::Status FromSqlException(const sql::SQLException& e, const std::string& what, bool* broken) {
  const int code = e.getErrorCode();
  const std::string state = e.getSQLStateCStr() != nullptr ? e.getSQLStateCStr() : "";
  std::string msg = absl::StrCat("mysql: ", what, ": ", e.what(), " (error ", code, ")");
  if (IsUnavailableCode(code) || (code == 0 && state.rfind("08", 0) == 0)) {
    *broken = true;
    return absl::UnavailableError(msg);
  }
  if (code == 1062) return absl::AlreadyExistsError(msg);
  if (code == 1451 || code == 1452) return absl::FailedPreconditionError(msg);
  if (code == 1406) return absl::InvalidArgumentError(msg);  // Data too long for a column.
  return absl::InternalError(msg);
}

// Runs body, converting every exception into a returned Status.
#define GNOMON_MYSQL_TRY(ctx, broken, ...)                                           \
  try {                                                                              \
    __VA_ARGS__                                                                      \
  } catch (const sql::SQLException& e) {                                             \
    return FromSqlException(e, ctx, broken);                                         \
  } catch (const std::exception& e) {                                                \
    return absl::InternalError(absl::StrCat("mysql: ", ctx, ": ", e.what()));        \
  } catch (...) {                                                                    \
    return absl::InternalError(absl::StrCat("mysql: ", ctx, ": unknown exception")); \
  }

MysqlConn::MysqlConn(std::unique_ptr<sql::Connection> conn,
                     std::shared_ptr<StatementCounter> counter)
    : conn_(std::move(conn)), counter_(std::move(counter)) {}

MysqlConn::~MysqlConn() {
  cache_.clear();
  try {
    conn_.reset();
  } catch (...) {  // Closing a dead connection must not throw out of a destructor.
  }
}

absl::StatusOr<std::unique_ptr<MysqlConn>> MysqlConn::Connect(
    const MysqlAddress& a, const StoreOptions& options, bool use_database,
    std::shared_ptr<StatementCounter> counter) {
  // Thread-safe one-time initialisation of the driver (and the client library).
  static sql::mysql::MySQL_Driver* const driver = [] {
    try {
      return sql::mysql::get_mysql_driver_instance();
    } catch (...) {
      return static_cast<sql::mysql::MySQL_Driver*>(nullptr);
    }
  }();
  if (driver == nullptr) return absl::InternalError("mysql: driver failed to initialise");
  const std::string where = absl::StrCat("connect to ", a.host, ":", a.port);
  std::unique_ptr<MysqlConn> out;
  bool broken = false;  // There is no connection to discard yet.
  GNOMON_MYSQL_TRY(where, &broken, {
    sql::ConnectOptionsMap opts;
    opts["hostName"] = Sql(absl::StrCat("tcp://", a.host, ":", a.port));
    opts["userName"] = Sql(a.user);
    opts["password"] = Sql(a.password);
    if (use_database) opts["schema"] = Sql(a.database);
    const int timeout = std::max(1, options.timeout_seconds);
    opts["OPT_CONNECT_TIMEOUT"] = timeout;
    opts["OPT_READ_TIMEOUT"] = timeout;
    opts["OPT_WRITE_TIMEOUT"] = timeout;
    opts["OPT_RECONNECT"] = false;     // Reconnects are ours: the pool replaces broken connections.
    opts["CLIENT_FOUND_ROWS"] = true;  // UPDATE reports matched rows, as SQLite does.
    opts["OPT_CHARSET_NAME"] = Sql("utf8mb4");
    std::unique_ptr<sql::Connection> conn(driver->connect(opts));
    out.reset(new MysqlConn(std::move(conn), std::move(counter)));
  })
  for (const std::string& stmt : {
           std::string("SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'"),
           std::string("SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"),
           absl::StrCat("SET SESSION innodb_lock_wait_timeout = ",
                        std::max(1, options.timeout_seconds)),
       }) {
    RETURN_IF_ERROR(out->Script(stmt));
  }
  absl::StatusOr<std::vector<SqlRow>> autoinc =
      out->Query("SELECT @@innodb_autoinc_lock_mode, @@auto_increment_increment", {});
  if (!autoinc.ok() && out->broken()) return autoinc.status();
  // A server without the variable (not InnoDB) gets the safe path.
  if (autoinc.ok() && !autoinc->empty() && ColInt(autoinc->front(), 0) != 2) {
    out->id_step_ = std::max<int64_t>(1, ColInt(autoinc->front(), 1));
  }
  out->ResetCounters();
  return out;
}

absl::Status MysqlConn::Script(const std::string& text){
    GNOMON_MYSQL_TRY(text, &broken_,
                     {
                       std::unique_ptr<sql::Statement> st(conn_->createStatement());
                       st->execute(Sql(text));
                       ++succeeded_;
                       return absl::OkStatus();
                     })}

absl::StatusOr<sql::PreparedStatement*> MysqlConn::Prepare(const std::string& text) {
  auto it = cache_.find(text);
  if (it != cache_.end()) return it->second.get();
  GNOMON_MYSQL_TRY(absl::StrCat("prepare ", text), &broken_, {
    std::unique_ptr<sql::PreparedStatement> ps(conn_->prepareStatement(Sql(text)));
    sql::PreparedStatement* raw = ps.get();
    cache_.emplace(text, std::move(ps));
    return raw;
  })
}

namespace {

// Binds args to ps (1-based). Throws what the driver throws.
void Bind(sql::PreparedStatement* ps, const std::vector<SqlValue>& args) {
  ps->clearParameters();
  for (size_t i = 0; i < args.size(); ++i) {
    const unsigned int idx = static_cast<unsigned int>(i) + 1;
    if (const int64_t* v = std::get_if<int64_t>(&args[i])) {
      ps->setInt64(idx, *v);
    } else if (const std::string* t = std::get_if<std::string>(&args[i])) {
      ps->setString(idx, Sql(*t));
    } else if (const SqlBlob* b = std::get_if<SqlBlob>(&args[i])) {
      ps->setString(idx, Sql(b->bytes));
    } else {
      ps->setNull(idx, sql::DataType::SQLNULL);
    }
  }
}

bool IsIntegerType(int type) {
  switch (type) {
    case sql::DataType::BIT:
    case sql::DataType::TINYINT:
    case sql::DataType::SMALLINT:
    case sql::DataType::MEDIUMINT:
    case sql::DataType::INTEGER:
    case sql::DataType::BIGINT:
      return true;
    default:
      return false;
  }
}

}  // namespace

absl::StatusOr<std::vector<SqlRow>> MysqlConn::Query(const std::string& text,
                                                     const std::vector<SqlValue>& args) {
  ASSIGN_OR_RETURN(sql::PreparedStatement * ps, Prepare(text));
  GNOMON_MYSQL_TRY(text, &broken_, {
    Bind(ps, args);
    if (counter_ != nullptr) counter_->Add();
    std::unique_ptr<sql::ResultSet> rs(ps->executeQuery());
    sql::ResultSetMetaData* meta = rs->getMetaData();
    const unsigned int n = meta->getColumnCount();
    std::vector<bool> integer(n + 1);
    for (unsigned int c = 1; c <= n; ++c) integer[c] = IsIntegerType(meta->getColumnType(c));
    std::vector<SqlRow> rows;
    while (rs->next()) {
      SqlRow row;
      row.reserve(n);
      for (unsigned int c = 1; c <= n; ++c) {
        if (rs->isNull(c)) {
          row.emplace_back(std::monostate());
        } else if (integer[c]) {
          row.emplace_back(static_cast<int64_t>(rs->getInt64(c)));
        } else {
          row.emplace_back(rs->getString(c).asStdString());
        }
      }
      rows.push_back(std::move(row));
    }
    ++succeeded_;
    return rows;
  })
}

absl::StatusOr<ExecResult> MysqlConn::Exec(const std::string& text,
                                           const std::vector<SqlValue>& args) {
  ASSIGN_OR_RETURN(sql::PreparedStatement * ps, Prepare(text));
  GNOMON_MYSQL_TRY(text, &broken_, {
    Bind(ps, args);
    if (counter_ != nullptr) counter_->Add();
    const int affected = ps->executeUpdate();
    ++succeeded_;
    return ExecResult{affected};
  })
}

absl::StatusOr<int64_t> MysqlConn::Insert(const std::string& text,
                                          const std::vector<SqlValue>& args) {
  RETURN_IF_ERROR(Exec(text, args));
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, Query("SELECT LAST_INSERT_ID()", {}));
  if (rows.empty()) return absl::InternalError("mysql: LAST_INSERT_ID() returned no row");
  return ColInt(rows.front(), 0);
}

absl::StatusOr<std::vector<int64_t>> MysqlConn::InsertRows(const std::string& text,
                                                           const std::vector<SqlValue>& args,
                                                           int rows) {
  RETURN_IF_ERROR(Exec(text, args));
  std::vector<int64_t> ids;
  if (id_step_ == 0) return ids;
  ASSIGN_OR_RETURN(std::vector<SqlRow> first, Query("SELECT LAST_INSERT_ID()", {}));
  if (first.empty()) return absl::InternalError("mysql: LAST_INSERT_ID() returned no row");
  ids.resize(rows);
  for (int i = 0; i < rows; ++i) ids[i] = ColInt(first.front(), 0) + i * id_step_;
  return ids;
}

#undef GNOMON_MYSQL_TRY

}  // namespace gnomon::store::internal

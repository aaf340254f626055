#include "bench/store_reader.h"

#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "services/common/status/status_macros.h"
#include "sqlite3.h"
#include "tests/support/subprocess.h"

namespace gnomon::bench {

int64_t AsInt(absl::string_view value, int64_t fallback) {
  int64_t v = 0;
  if (absl::SimpleAtoi(value, &v)) return v;
  double d = 0;  // avg() and the like.
  return absl::SimpleAtod(value, &d) ? static_cast<int64_t>(d) : fallback;
}

absl::StatusOr<int64_t> StoreReader::QueryInt(const std::string& sql) {
  int64_t v = 0;
  bool seen = false;
  RETURN_IF_ERROR(ForEachRow(sql, [&](absl::Span<const absl::string_view> row) {
    if (!seen && !row.empty()) v = AsInt(row[0]);
    seen = true;
  }));
  return v;
}

namespace {

class SqliteReader final : public StoreReader {
 public:
  explicit SqliteReader(std::string path) : path_(std::move(path)) {}

  absl::Status ForEachRow(const std::string& sql, RowFn row) override {
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
      sqlite3_close(db);
      return absl::UnavailableError(absl::StrCat("open ", path_, ": ", msg));
    }
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt* st = nullptr;
    absl::Status status;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      status = absl::InvalidArgumentError(absl::StrCat(sqlite3_errmsg(db), ": ", sql));
    } else {
      std::vector<absl::string_view> values;
      int rc;
      while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        values.clear();
        for (int i = 0; i < sqlite3_column_count(st); ++i) {
          const unsigned char* text = sqlite3_column_text(st, i);
          values.push_back(text ? reinterpret_cast<const char*>(text) : "NULL");
        }
        row(values);
      }
      if (rc != SQLITE_DONE)
        status = absl::InternalError(absl::StrCat(sqlite3_errmsg(db), ": ", sql));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return status;
  }

 private:
  std::string path_;
};

class MariadbReader final : public StoreReader {
 public:
  MariadbReader(std::string socket, std::string database)
      : socket_(std::move(socket)), database_(std::move(database)) {}

  absl::Status ForEachRow(const std::string& sql, RowFn row) override {
    // -N -B: no column names, tab-separated values, NULL as "NULL".
    // timeout(1) bounds a query against a server that stopped answering.
    testing::CommandResult r =
        testing::RunCommand({"/usr/bin/timeout", "300", "/usr/bin/mariadb", "--no-defaults",
                             "--connect-timeout=10", absl::StrCat("--socket=", socket_), "-uroot",
                             "-N", "-B", absl::StrCat("--database=", database_), "-e", sql});
    if (r.exit_code != 0) {
      return absl::InternalError(
          absl::StrCat("mariadb exited ", r.exit_code, ": ", r.err, " for ", sql));
    }
    std::vector<absl::string_view> values;
    for (absl::string_view line : absl::StrSplit(r.out, '\n', absl::SkipEmpty())) {
      values = absl::StrSplit(line, '\t');
      row(values);
    }
    return absl::OkStatus();
  }

 private:
  std::string socket_;
  std::string database_;
};

}  // namespace

std::unique_ptr<StoreReader> SqliteStoreReader(std::string path) {
  return std::make_unique<SqliteReader>(std::move(path));
}

std::unique_ptr<StoreReader> MariadbStoreReader(std::string socket, std::string database) {
  return std::make_unique<MariadbReader>(std::move(socket), std::move(database));
}

absl::StatusOr<std::map<std::string, int64_t>> MariadbGlobalStatus(
    std::string socket, const std::vector<std::string>& names) {
  std::map<std::string, int64_t> out;
  RETURN_IF_ERROR(MariadbStoreReader(std::move(socket), "mysql")
                      ->ForEachRow(absl::StrCat("SHOW GLOBAL STATUS WHERE Variable_name IN ('",
                                                absl::StrJoin(names, "','"), "')"),
                                   [&](absl::Span<const absl::string_view> row) {
                                     if (row.size() >= 2) out[std::string(row[0])] = AsInt(row[1]);
                                   }));
  return out;
}

}  // namespace gnomon::bench

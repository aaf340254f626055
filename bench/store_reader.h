// StoreReader: read-only SQL against a gnomon store from a benchmark, the same
// query text for both backends, so figures for SQLite and MySQL come from one
// piece of code. Values arrive as text ("NULL" for NULL), one row at a time.
//
//   std::unique_ptr<StoreReader> db = SqliteStoreReader(dir + "/gnomon.db");
//   absl::Status s = db->ForEachRow("SELECT count(*) FROM run",
//                                   [&](absl::Span<const absl::string_view> row) { ... });
//
// The SQLite reader opens the file read-only per query (WAL lets it read while
// gnomond writes); the MariaDB reader runs the `mariadb` command-line client
// over a server's socket, so the bench links no MySQL driver.
//
// Thread safety: one query at a time per reader.
#ifndef GNOMON_BENCH_STORE_READER_H_
#define GNOMON_BENCH_STORE_READER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace gnomon::bench {

class StoreReader {
 public:
  using RowFn = absl::FunctionRef<void(absl::Span<const absl::string_view>)>;
  virtual ~StoreReader() = default;
  // Runs `sql` and calls `row` for each result row.
  virtual absl::Status ForEachRow(const std::string& sql, RowFn row) = 0;
  // The first column of the first row as an integer (NULL reads as 0).
  absl::StatusOr<int64_t> QueryInt(const std::string& sql);
};

std::unique_ptr<StoreReader> SqliteStoreReader(std::string path);
// `database` on the server listening on the Unix socket `socket`, as root.
std::unique_ptr<StoreReader> MariadbStoreReader(std::string socket, std::string database);

// SHOW GLOBAL STATUS values of `names` on the server listening on `socket`;
// names the server lacks are absent.
absl::StatusOr<std::map<std::string, int64_t>> MariadbGlobalStatus(
    std::string socket, const std::vector<std::string>& names);

// Parses a column value; NULL and non-numbers read as `fallback`.
int64_t AsInt(absl::string_view value, int64_t fallback = 0);

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_STORE_READER_H_

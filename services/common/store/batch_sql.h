// BatchSql: the text of one multi-row statement for each row count a batch
// is cut into, and the cutting itself.
//
// A batch of n rows becomes full statements of kMaxBatchRows rows, then the
// rest as one statement rounded up to a power of two (padded: the caller
// repeats a harmless row) or as a sum of powers of two (inserts, which
// cannot be padded). So a connection prepares and caches at most ten texts
// per statement kind, whatever the batch sizes, and a batch costs
// O(1 + n / kMaxBatchRows) statements instead of n.
//
// kMaxBatchRows keeps every statement within the bound-parameter limits
// (SQLite's SQLITE_MAX_VARIABLE_NUMBER, 32766 since 3.32; MySQL's 65535):
// the widest row, an inserted run, has 29 parameters (14848 per statement),
// and within SQLite's expression depth limit (1000) for OR lists.
//
// Example:
//   const BatchSql sql([](int rows) { return absl::StrCat("... ", rows, " rows"); });
//   for (const Batch& b : CutBatches(n, /*padded=*/true)) c.Exec(sql.For(b.statement_rows), ...);
//
// Thread safety: BatchSql is immutable once built; CutBatches is pure.
#ifndef GNOMON_SERVICES_COMMON_STORE_BATCH_SQL_H_
#define GNOMON_SERVICES_COMMON_STORE_BATCH_SQL_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/common/store/sql_conn.h"

namespace gnomon::store::internal {

inline constexpr int kMaxBatchRows = 512;

// Rows [begin, begin + rows) of a batch, sent as one statement of
// statement_rows rows (> rows only when padded).
struct Batch {
  size_t begin = 0;
  size_t rows = 0;
  int statement_rows = 0;
};

std::vector<Batch> CutBatches(size_t n, bool padded);

// A statement whose placeholders take the row-major parameters (row 0's
// columns, then row 1's, ...) in another order: order[i] is the index, in
// the row-major list, of the value the i-th placeholder takes (a value may
// be taken more than once). Empty: row-major.
struct OrderedSql {
  std::string text;
  std::vector<int> order;
};

class BatchSql {
 public:
  BatchSql() = default;
  // build(rows) returns the statement for `rows` rows; called for 1, 2, 4, ... kMaxBatchRows.
  explicit BatchSql(const std::function<std::string(int rows)>& build);
  explicit BatchSql(const std::function<OrderedSql(int rows)>& build);
  // rows: a power of two no larger than kMaxBatchRows.
  const std::string& For(int rows) const;
  // The parameter order of For(rows) (empty: row-major).
  const std::vector<int>& OrderFor(int rows) const;

 private:
  std::vector<std::string> texts_;
  std::vector<std::vector<int>> orders_;
};

// Runs the multi-row SELECT `sql` over `rows` (each the parameters of one
// row), padded: the last statement repeats the last row up to its row
// count. Returns the rows of all its statements.
absl::StatusOr<std::vector<SqlRow>> QueryPadded(SqlConn& c, const BatchSql& sql,
                                                const std::vector<SqlRow>& rows);
// Runs the multi-row UPDATE/upsert `sql` over `rows`, padded with `pad`
// (or, if null, the last row: right for updates by key, not for upserts
// that add).
absl::Status ExecPadded(SqlConn& c, const BatchSql& sql, const std::vector<SqlRow>& rows,
                        const SqlRow* pad = nullptr);
// Runs the multi-row INSERT `sql` over `rows`, cut into powers of two.
absl::Status InsertUnpadded(SqlConn& c, const BatchSql& sql, const std::vector<SqlRow>& rows);

// `item` `rows` times, separated by `separator`.
std::string RepeatJoined(std::string_view item, int rows, std::string_view separator);
// "(?, ?, ?)" for 3 params.
std::string Placeholders(int params);

}  // namespace gnomon::store::internal

#endif  // GNOMON_SERVICES_COMMON_STORE_BATCH_SQL_H_

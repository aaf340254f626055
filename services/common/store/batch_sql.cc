#include "services/common/store/batch_sql.h"

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/status/status_macros.h"

namespace gnomon::store::internal {

std::vector<Batch> CutBatches(size_t n, bool padded) {
  std::vector<Batch> out;
  size_t begin = 0;
  for (; n - begin >= static_cast<size_t>(kMaxBatchRows); begin += kMaxBatchRows) {
    out.push_back({begin, static_cast<size_t>(kMaxBatchRows), kMaxBatchRows});
  }
  size_t rest = n - begin;
  if (rest == 0) return out;
  if (padded) {
    int p = 1;
    while (static_cast<size_t>(p) < rest) p *= 2;
    out.push_back({begin, rest, p});
    return out;
  }
  for (int p = kMaxBatchRows / 2; p >= 1; p /= 2) {
    if (rest < static_cast<size_t>(p)) continue;
    out.push_back({begin, static_cast<size_t>(p), p});
    begin += p;
    rest -= p;
  }
  return out;
}

BatchSql::BatchSql(const std::function<std::string(int rows)>& build) {
  for (int rows = 1; rows <= kMaxBatchRows; rows *= 2) {
    texts_.push_back(build(rows));
    orders_.emplace_back();
  }
}

BatchSql::BatchSql(const std::function<OrderedSql(int rows)>& build) {
  for (int rows = 1; rows <= kMaxBatchRows; rows *= 2) {
    OrderedSql s = build(rows);
    texts_.push_back(std::move(s.text));
    orders_.push_back(std::move(s.order));
  }
}

const std::vector<int>& BatchSql::OrderFor(int rows) const {
  size_t i = 0;
  while ((1 << i) < rows) ++i;
  return orders_[i];
}

const std::string& BatchSql::For(int rows) const {
  size_t i = 0;
  while ((1 << i) < rows) ++i;
  if (i >= texts_.size() || (1 << i) != rows) std::abort();  // A caller bug, not data.
  return texts_[i];
}

namespace {

std::vector<SqlValue> Flatten(const std::vector<SqlRow>& rows, const Batch& b, const SqlRow* pad) {
  std::vector<SqlValue> args;
  for (size_t i = b.begin; i < b.begin + b.rows; ++i) {
    args.insert(args.end(), rows[i].begin(), rows[i].end());
  }
  const SqlRow& filler = pad != nullptr ? *pad : rows[b.begin + b.rows - 1];
  for (size_t i = b.rows; i < static_cast<size_t>(b.statement_rows); ++i) {
    args.insert(args.end(), filler.begin(), filler.end());
  }
  return args;
}

}  // namespace

absl::StatusOr<std::vector<SqlRow>> QueryPadded(SqlConn& c, const BatchSql& sql,
                                                const std::vector<SqlRow>& rows) {
  std::vector<SqlRow> out;
  for (const Batch& b : CutBatches(rows.size(), /*padded=*/true)) {
    ASSIGN_OR_RETURN(std::vector<SqlRow> got,
                     c.Query(sql.For(b.statement_rows), Flatten(rows, b, nullptr)));
    for (SqlRow& row : got) out.push_back(std::move(row));
  }
  return out;
}

absl::Status ExecPadded(SqlConn& c, const BatchSql& sql, const std::vector<SqlRow>& rows,
                        const SqlRow* pad) {
  for (const Batch& b : CutBatches(rows.size(), /*padded=*/true)) {
    std::vector<SqlValue> params = Flatten(rows, b, pad);
    if (const std::vector<int>& order = sql.OrderFor(b.statement_rows); !order.empty()) {
      std::vector<SqlValue> ordered;
      ordered.reserve(order.size());
      for (int i : order) ordered.push_back(params[i]);
      params = std::move(ordered);
    }
    RETURN_IF_ERROR(c.Exec(sql.For(b.statement_rows), params));
  }
  return absl::OkStatus();
}

absl::Status InsertUnpadded(SqlConn& c, const BatchSql& sql, const std::vector<SqlRow>& rows) {
  for (const Batch& b : CutBatches(rows.size(), /*padded=*/false)) {
    RETURN_IF_ERROR(c.Exec(sql.For(b.statement_rows), Flatten(rows, b, nullptr)));
  }
  return absl::OkStatus();
}

std::string RepeatJoined(std::string_view item, int rows, std::string_view separator) {
  std::string out;
  out.reserve(rows * (item.size() + separator.size()));
  for (int i = 0; i < rows; ++i) {
    if (i > 0) out.append(separator);
    out.append(item);
  }
  return out;
}

std::string Placeholders(int params) {
  return absl::StrCat("(", RepeatJoined("?", params, ", "), ")");
}

}  // namespace gnomon::store::internal

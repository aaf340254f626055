#include "bench/store_stats_log.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace gnomon::bench {

StoreStatsDelta ParseStoreStats(const std::string& output, int64_t from_ms, int64_t to_ms) {
  constexpr absl::string_view kPrefix = "gnomond: store stats: ";
  struct Line {
    int64_t ms = 0, transactions = 0, statements = -1;
  };
  std::optional<Line> first, last;
  for (absl::string_view text : absl::StrSplit(output, '\n')) {
    const size_t at = text.find(kPrefix);
    if (at == absl::string_view::npos) continue;
    std::vector<absl::string_view> words =
        absl::StrSplit(text.substr(at + kPrefix.size()), ' ', absl::SkipEmpty());
    Line l;
    bool has_ms = false;
    if (words.empty() || !absl::SimpleAtoi(words[0], &l.transactions)) continue;
    for (size_t i = 1; i < words.size(); ++i) {
      if (words[i - 1] == "by") has_ms = absl::SimpleAtoi(words[i], &l.ms);
      if (absl::StartsWith(words[i], "statement") &&
          !absl::SimpleAtoi(words[i - 1], &l.statements)) {
        l.statements = -1;
      }
    }
    if (!has_ms) continue;
    if (l.ms >= from_ms && !first) first = l;
    if (l.ms <= to_ms) last = l;
  }
  if (!first || !last || last->ms <= first->ms) return {};
  StoreStatsDelta d;
  d.transactions = last->transactions - first->transactions;
  d.span_ms = last->ms - first->ms;
  if (first->statements >= 0 && last->statements >= 0)
    d.statements = last->statements - first->statements;
  return d;
}

}  // namespace gnomon::bench

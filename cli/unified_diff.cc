#include "cli/unified_diff.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace gnomon::cli {
namespace {

constexpr int kContext = 3;

// Lines with their newline; the last one may lack it.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const size_t len = nl == std::string_view::npos ? text.size() : nl + 1;
    out.push_back(text.substr(0, len));
    text.remove_prefix(len);
  }
  return out;
}

// One line of the edit script: ' ' kept, '-' only in a, '+' only in b.
struct Op {
  char kind;
  int a;  // Index in a (' ' and '-').
  int b;  // Index in b (' ' and '+').
};

// Myers' greedy algorithm; `trace[d]` keeps the furthest x per diagonal k
// (index k + d + 1) before step d, for the walk back.
std::vector<Op> EditScript(const std::vector<std::string_view>& a,
                           const std::vector<std::string_view>& b) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  std::vector<std::vector<int>> trace;
  std::vector<int> v = {0, 0, 0};  // Diagonals -1..1 around d = 0.
  auto at = [](const std::vector<int>& vec, int d, int k) { return vec[k + d + 1]; };
  int d = 0;
  for (;; ++d) {
    std::vector<int> next(2 * d + 3, 0);
    bool done = false;
    for (int k = -d; k <= d && !done; k += 2) {
      const int prev_d = std::max(d - 1, 0);
      int x;
      if (d == 0) {
        x = 0;
      } else if (k == -d || (k != d && at(v, prev_d, k - 1) < at(v, prev_d, k + 1))) {
        x = at(v, prev_d, k + 1);
      } else {
        x = at(v, prev_d, k - 1) + 1;
      }
      int y = x - k;
      while (x < n && y < m && a[x] == b[y]) ++x, ++y;
      next[k + d + 1] = x;
      done = x >= n && y >= m;
    }
    trace.push_back(v);
    v = std::move(next);
    if (done) break;
  }
  trace.push_back(v);  // trace[d + 1]: after step d.
  // Walk back from (n, m): each step d came from diagonal k+1 (an insert)
  // or k-1 (a delete), then followed a snake of equal lines.
  std::vector<Op> ops;
  int x = n, y = m;
  for (int step = d; step >= 0; --step) {
    const int k = x - y;
    int prev_x = 0, prev_y = 0;
    if (step > 0) {
      const std::vector<int>& before = trace[step];  // After step - 1.
      const int pd = step - 1;
      const int prev_k =
          (k == -step || (k != step && at(before, pd, k - 1) < at(before, pd, k + 1))) ? k + 1
                                                                                       : k - 1;
      prev_x = at(before, pd, prev_k);
      prev_y = prev_x - prev_k;
    }
    const bool insert = step > 0 && prev_x - prev_y == k + 1;
    // The snake ends at (x, y) and starts where the step's edit put us.
    const int start_x = step == 0 ? 0 : (insert ? prev_x : prev_x + 1);
    while (x > start_x) {
      --x, --y;
      ops.push_back({' ', x, y});
    }
    if (step == 0) break;
    if (insert) {
      ops.push_back({'+', prev_x, prev_y});  // b[prev_y] inserted.
    } else {
      ops.push_back({'-', prev_x, prev_y});  // a[prev_x] deleted.
    }
    x = prev_x, y = prev_y;
  }
  std::reverse(ops.begin(), ops.end());
  return ops;
}

// "-3,2" style range of a hunk; diff writes a 0-line range at the line before.
std::string Range(int first, int count) {
  if (count == 1) return absl::StrCat(first + 1);
  return absl::StrCat(count == 0 ? first : first + 1, ",", count);
}

void AppendLine(std::string& out, char kind, std::string_view line) {
  out += kind;
  out.append(line.data(), line.size());
  if (line.empty() || line.back() != '\n') out += "\n\\ No newline at end of file\n";
}

}  // namespace

std::string UnifiedDiff(std::string_view before, std::string_view after,
                        std::string_view before_name, std::string_view after_name) {
  if (before == after) return "";
  const std::vector<std::string_view> a = Lines(before), b = Lines(after);
  const std::vector<Op> ops = EditScript(a, b);
  std::string out;
  for (const auto& [marker, name] :
       {std::pair{"--- ", before_name}, std::pair{"+++ ", after_name}}) {
    out += marker;
    out.append(name.data(), name.size());
    out += '\n';
  }
  const int total = static_cast<int>(ops.size());
  for (int i = 0; i < total;) {
    if (ops[i].kind == ' ') {
      ++i;
      continue;
    }
    // A hunk: this change, the changes within 2 * kContext kept lines of
    // it, and kContext kept lines on either side.
    const int begin = std::max(0, i - kContext);
    int end = i;  // One past the last change.
    for (int j = i, kept = 0; j < total; ++j) {
      if (ops[j].kind == ' ') {
        if (++kept > 2 * kContext) break;
      } else {
        kept = 0;
        end = j + 1;
      }
    }
    const int stop = std::min(total, end + kContext);
    int a_first = -1, b_first = -1, a_count = 0, b_count = 0;
    for (int j = begin; j < stop; ++j) {
      if (ops[j].kind != '+') {
        if (a_first < 0) a_first = ops[j].a;
        ++a_count;
      }
      if (ops[j].kind != '-') {
        if (b_first < 0) b_first = ops[j].b;
        ++b_count;
      }
    }
    // An empty side starts after the lines before the hunk on that side.
    if (a_first < 0) a_first = ops[begin].a;
    if (b_first < 0) b_first = ops[begin].b;
    absl::StrAppend(&out, "@@ -", Range(a_first, a_count), " +", Range(b_first, b_count), " @@\n");
    for (int j = begin; j < stop; ++j) {
      AppendLine(out, ops[j].kind, ops[j].kind == '+' ? b[ops[j].b] : a[ops[j].a]);
    }
    i = stop;
  }
  return out;
}

}  // namespace gnomon::cli

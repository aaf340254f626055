#include "tests/support/limit_table.h"

#include <regex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace gnomon::testing {

absl::StatusOr<LimitTable> ReadLimitTable(const std::string& markdown) {
  const size_t start = markdown.find("\n## Input limits\n");
  if (start == std::string::npos) return absl::NotFoundError("no \"## Input limits\" section");
  const size_t end = markdown.find("\n## ", start + 1);
  LimitTable table;
  bool in_table = false;
  for (absl::string_view line : absl::StrSplit(markdown.substr(start, end - start), '\n')) {
    if (line == "| field | limit |") {
      in_table = true;
      continue;
    }
    if (!in_table || absl::StartsWith(line, "|---")) continue;
    if (!absl::StartsWith(line, "| `")) break;
    std::vector<std::string> cells = absl::StrSplit(line, " | ");
    if (cells.size() != 2) return absl::InvalidArgumentError(absl::StrCat("bad row: ", line));
    std::string field(absl::StripSuffix(absl::StripPrefix(cells[0], "| `"), "`"));
    std::string limit(absl::StripSuffix(cells[1], " |"));
    table.push_back({field, limit});
  }
  if (table.empty())
    return absl::NotFoundError("no \"| field | limit |\" table under \"## Input limits\"");
  return table;
}

Limit ParseLimit(const std::string& text) {
  Limit l;
  std::smatch m;
  if (std::regex_search(text, m, std::regex(R"(^(at most|(\d+) to) (\d+) (bytes|items))"))) {
    l.kind = m[4] == "bytes" ? Limit::kBytes : Limit::kItems;
    l.min = m[2].matched ? std::stoll(m[2]) : 0;
    l.required = l.min > 0;
    l.max = std::stoll(m[3]);
    l.name = absl::StartsWith(m.suffix().str(), ", name");
    l.any_bytes = absl::StartsWith(m.suffix().str(), ", any bytes");
  } else if (absl::StartsWith(text, "one of")) {
    l.kind = Limit::kOneOf;
  } else if (std::regex_search(text, m, std::regex(R"(^(-?\d+)\.\.(\d+)(?:[ ,(]|$))"))) {
    l.kind = Limit::kRange;
    l.lo_text = m[1];
    l.hi_text = m[2];
  } else if (std::regex_search(text, m, std::regex(R"(^(\w+)\.\.(\w+))"))) {
    absl::Duration lo;
    if (absl::ParseDuration(m[1].str(), &lo) && absl::ParseDuration(m[2].str(), &l.dhi))
      l.kind = Limit::kDurations;
  }
  return l;
}

}  // namespace gnomon::testing

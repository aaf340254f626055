// LimitTable: the "Input limits" table of docs/operations.md, read so tests
// can check the documented limits against the running code.
//
//   absl::StatusOr<LimitTable> table = ReadLimitTable(markdown);
//   Limit l = ParseLimit((*table)[0].limit);  // "at most 256 bytes" -> kBytes, 256
//
// Thread safety: pure functions.
#ifndef GNOMON_TESTS_SUPPORT_LIMIT_TABLE_H_
#define GNOMON_TESTS_SUPPORT_LIMIT_TABLE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gnomon::testing {

// One row: `field` (a path suffix, "[]" for a list's elements) and its limit
// as written.
struct LimitRow {
  std::string field;
  std::string limit;
};
using LimitTable = std::vector<LimitRow>;

// The rows of the "| field | limit |" table under "## Input limits".
absl::StatusOr<LimitTable> ReadLimitTable(const std::string& markdown);

// A limit cell, parsed. The forms: "at most N bytes|items" and "M to N
// bytes|items" (M >= 1: then empty, and fewer than M, are refused), with
// ", name" (letters, digits, '.', '_', '-') or ", any bytes" (no charset;
// otherwise control characters are refused) after them; "one of ...";
// "A..B" (numbers) and "D1..D2" (durations such as 0..24h).
struct Limit {
  enum Kind { kUnknown, kBytes, kItems, kRange, kDurations, kOneOf } kind = kUnknown;
  int64_t max = 0;               // kBytes, kItems
  int64_t min = 0;               // kBytes, kItems: "M to N"
  bool required = false;         // "M to N"
  bool name = false;             // ", name"
  bool any_bytes = false;        // ", any bytes" (otherwise control characters are refused)
  std::string lo_text, hi_text;  // kRange
  absl::Duration dhi;            // kDurations
};
Limit ParseLimit(const std::string& text);

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_LIMIT_TABLE_H_

// The cron table of docs/scheduling.md ("Cron syntax") states fire times:
// each row's expression must parse and fire exactly at the listed instants
// after 2024-01-01 00:00:00 UTC.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "services/common/cron/cron.h"

#ifndef GNOMON_SCHEDULING_DOC
#error "GNOMON_SCHEDULING_DOC must name docs/scheduling.md"
#endif

namespace gnomon::cron {
namespace {

struct Row {
  std::string expression;
  std::vector<std::string> fires;
};

// The rows of the first table after the "### Cron syntax" heading.
std::vector<Row> CronTableRows() {
  std::ifstream in(GNOMON_SCHEDULING_DOC);
  EXPECT_TRUE(in.good()) << "cannot open " << GNOMON_SCHEDULING_DOC;
  std::vector<Row> rows;
  std::string line;
  bool in_section = false, in_table = false;
  while (std::getline(in, line)) {
    if (absl::StartsWith(line, "#")) {
      if (in_section) break;
      in_section = line == "### Cron syntax";
      continue;
    }
    if (!in_section) continue;
    if (!absl::StartsWith(line, "|")) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    std::vector<std::string> cells = absl::StrSplit(line, '|');
    // "| a | b | c |" splits into "", a, b, c, "".
    if (cells.size() != 5) {
      ADD_FAILURE() << "a row of the cron table needs 3 cells: " << line;
      continue;
    }
    absl::string_view expression = absl::StripAsciiWhitespace(cells[1]);
    if (!absl::ConsumePrefix(&expression, "`") || !absl::ConsumeSuffix(&expression, "`")) {
      continue;  // The header and its separator.
    }
    Row row{std::string(expression), {}};
    for (absl::string_view fire : absl::StrSplit(cells[3], ',')) {
      row.fires.emplace_back(absl::StripAsciiWhitespace(fire));
    }
    rows.push_back(row);
  }
  return rows;
}

TEST(CronDocsTest, EveryRowOfTheSchedulingDocsCronTableFiresAsListed) {
  std::vector<Row> rows = CronTableRows();
  ASSERT_GE(rows.size(), 10u) << "the cron table of docs/scheduling.md was not found";
  bool saw_last_weekday_offset = false;
  for (const Row& row : rows) {
    absl::StatusOr<CronExpression> e = CronExpression::Parse(row.expression);
    ASSERT_TRUE(e.ok()) << row.expression << ": " << e.status();
    saw_last_weekday_offset |=
        e->fields().dom_mode == CronFields::DomMode::kLastWeekday && e->fields().dom_offset > 0;
    absl::Time after = absl::FromCivil(absl::CivilSecond(2024, 1, 1, 0, 0, 0), absl::UTCTimeZone());
    std::vector<std::string> got;
    for (size_t i = 0; i < row.fires.size(); ++i) {
      std::optional<absl::Time> next = e->NextAfter(after, absl::UTCTimeZone());
      if (!next) break;
      got.push_back(absl::FormatTime("%Y-%m-%d %H:%M:%S", *next, absl::UTCTimeZone()));
      after = *next;
    }
    EXPECT_EQ(got, row.fires) << row.expression;
  }
  EXPECT_TRUE(saw_last_weekday_offset) << "the table should show L-nW";
}

}  // namespace
}  // namespace gnomon::cron

// The compatibility rule of migrations (migrations.h, docs/kubernetes.md
// "Upgrade"): schema N+1 runs beside binaries of release N, so the latest
// migration of each backend may only add. Whatever the latest version is,
// its statements must not drop, rename or retype anything an earlier binary
// reads, and a column it adds must be nullable or have a default (an earlier
// binary's INSERT does not name it).
#include <regex>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "services/common/store/migrations.h"

namespace gnomon::store::internal {
namespace {

// What the rule forbids, and why, by pattern (case-insensitive).
struct Forbidden {
  const char* pattern;
  const char* why;
};
const Forbidden kForbidden[] = {
    {R"(\bDROP\s+TABLE\b)", "drops a table"},
    {R"(\bDROP\s+COLUMN\b)", "drops a column"},
    // MySQL's ALTER TABLE t DROP c (COLUMN is optional); DROP INDEX/KEY and
    // DROP PRIMARY/FOREIGN KEY are not columns.
    {R"(\bALTER\s+TABLE\b.*\bDROP\s+(?!INDEX\b|KEY\b|PRIMARY\b|FOREIGN\b|CONSTRAINT\b|COLUMN\b)\w)",
     "drops a column"},
    {R"(\bRENAME\b)", "renames"},
    {R"(\bMODIFY\b)", "retypes a column"},
    {R"(\bCHANGE\s+(COLUMN\s+)?\w)", "retypes or renames a column"},
    {R"(\bALTER\s+COLUMN\b)", "alters a column"},
    {R"(\bTRUNCATE\b)", "empties a table"},
};

// A violation of the rule in `stmt`, or "" when it only adds.
std::string Violation(const std::string& stmt) {
  for (const Forbidden& f : kForbidden) {
    if (std::regex_search(stmt,
                          std::regex(f.pattern, std::regex::icase | std::regex::ECMAScript))) {
      return f.why;
    }
  }
  // ADD [COLUMN] name type ... NOT NULL without DEFAULT.
  std::smatch m;
  const std::regex add(R"(\bADD\s+(COLUMN\s+)?([^,]*))", std::regex::icase);
  for (auto it = std::sregex_iterator(stmt.begin(), stmt.end(), add); it != std::sregex_iterator();
       ++it) {
    const std::string clause = (*it)[2].str();
    const std::regex not_null(R"(\bNOT\s+NULL\b)", std::regex::icase);
    const std::regex dflt(R"(\bDEFAULT\b|\bAUTO_INCREMENT\b)", std::regex::icase);
    const std::regex index(R"(^(INDEX|KEY|UNIQUE|PRIMARY|CONSTRAINT|FOREIGN)\b)",
                           std::regex::icase);
    if (std::regex_search(clause, index)) continue;
    if (std::regex_search(clause, not_null) && !std::regex_search(clause, dflt)) {
      return "adds a NOT NULL column without a default";
    }
  }
  return "";
}

void ExpectAdditive(const std::vector<Migration>& all, const char* backend) {
  ASSERT_FALSE(all.empty());
  const Migration& latest = all.back();
  for (const std::string& stmt : latest.statements) {
    EXPECT_EQ(Violation(stmt), "") << backend << " migration " << latest.version << " ("
                                   << latest.description << ") is not additive: " << stmt;
  }
}

TEST(MigrationRules, LatestSqliteMigrationOnlyAdds) {
  ExpectAdditive(SqliteMigrations(), "sqlite");
}
TEST(MigrationRules, LatestMysqlMigrationOnlyAdds) { ExpectAdditive(MysqlMigrations(), "mysql"); }

TEST(MigrationRules, BothBackendsEndAtTheSameVersion) {
  EXPECT_EQ(SqliteMigrations().back().version, MysqlMigrations().back().version);
}

// The check itself catches what the rule forbids and lets additions through.
TEST(MigrationRules, ViolationSpotsEachForbiddenChange) {
  for (const char* bad :
       {"DROP TABLE run", "drop table if exists audit_log", "ALTER TABLE run DROP COLUMN params",
        "ALTER TABLE run DROP params", "ALTER TABLE run RENAME COLUMN a TO b",
        "ALTER TABLE run RENAME TO runs", "ALTER TABLE run MODIFY params TEXT",
        "ALTER TABLE run CHANGE COLUMN a b INT", "ALTER TABLE run ADD COLUMN x INTEGER NOT NULL",
        "ALTER TABLE run ADD x BIGINT NOT NULL, ADD KEY run_x (x)"}) {
    EXPECT_NE(Violation(bad), "") << bad;
  }
  for (const char* good :
       {"CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, a TEXT NOT NULL)",
        "ALTER TABLE run ADD COLUMN x INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE run ADD x BIGINT NOT NULL DEFAULT 0, ADD KEY run_x (x)",
        "ALTER TABLE run ADD COLUMN note TEXT", "CREATE INDEX IF NOT EXISTS run_x ON run(x)",
        "ALTER TABLE run DROP INDEX run_old", "DROP INDEX IF EXISTS run_old",
        "ALTER TABLE job ADD UNIQUE KEY job_name (group_id, name)"}) {
    EXPECT_EQ(Violation(good), "") << good;
  }
}

}  // namespace
}  // namespace gnomon::store::internal

// Migration: one versioned schema step of a store backend.
//
// Each backend keeps its ordered list in its own schema file (sqlite_schema.cc,
// mysql_schema.cc). At start-up the backend applies, in order, every migration
// whose version is not in schema_migrations, and records it there; statements
// are written to be idempotent (IF NOT EXISTS) so a step interrupted by a crash
// can be re-run.
//
// Compatibility rule (docs/kubernetes.md, "Upgrade"): schema version N+1 runs
// beside binaries that know only N. So migrations are additive (new tables,
// columns with defaults, indexes; nothing an earlier binary reads is dropped,
// renamed or retyped), and a store whose schema is newer than the binary is
// accepted (and logged), not refused. migration_rules_test checks the latest
// migration of each backend.
//
// Example:
//   for (const Migration& m : SqliteMigrations()) { ... m.statements ... }
//
// Thread safety: the lists are immutable and live forever.
#ifndef GNOMON_SERVICES_COMMON_STORE_MIGRATIONS_H_
#define GNOMON_SERVICES_COMMON_STORE_MIGRATIONS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gnomon::store::internal {

struct Migration {
  int64_t version = 0;      // Strictly increasing, starting at 1.
  std::string description;  // For logs and people.
  std::vector<std::string> statements;
};

// The version (on both backends) that adds the `setting` table, where the
// partition count is recorded; a store before it hashed jobs into 64.
inline constexpr int64_t kSettingsMigration = 14;

const std::vector<Migration>& SqliteMigrations();
const std::vector<Migration>& MysqlMigrations();

// The migrations of `all` that a store whose highest recorded version is
// `applied` still needs, in order, for a binary that knows the versions up
// to `known_up_to` (0: all of `all`). When the store is ahead of the binary
// (a newer release migrated it), logs that and returns none.
std::vector<const Migration*> PendingMigrations(const std::vector<Migration>& all, int64_t applied,
                                                int64_t known_up_to, std::string_view backend);

}  // namespace gnomon::store::internal

#endif  // GNOMON_SERVICES_COMMON_STORE_MIGRATIONS_H_

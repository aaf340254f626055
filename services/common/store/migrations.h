// Migration: one versioned schema step of a store backend.
//
// Each backend keeps its ordered list in its own schema file (sqlite_schema.cc,
// mysql_schema.cc). At start-up the backend applies, in order, every migration
// whose version is not in schema_migrations, and records it there; statements
// are written to be idempotent (IF NOT EXISTS) so a step interrupted by a crash
// can be re-run.
//
// Example:
//   for (const Migration& m : SqliteMigrations()) { ... m.statements ... }
//
// Thread safety: the lists are immutable and live forever.
#ifndef GNOMON_SERVICES_COMMON_STORE_MIGRATIONS_H_
#define GNOMON_SERVICES_COMMON_STORE_MIGRATIONS_H_

#include <cstdint>
#include <string>
#include <vector>

namespace gnomon::store::internal {

struct Migration {
  int64_t version = 0;      // Strictly increasing, starting at 1.
  std::string description;  // For logs and people.
  std::vector<std::string> statements;
};

const std::vector<Migration>& SqliteMigrations();
const std::vector<Migration>& MysqlMigrations();

}  // namespace gnomon::store::internal

#endif  // GNOMON_SERVICES_COMMON_STORE_MIGRATIONS_H_

// The SQLite backend of Store: one database file in WAL mode.
//
// Writes go through one connection under a mutex (BEGIN IMMEDIATE, so a
// transaction never has to upgrade its lock); reads use a small pool of
// further connections, which WAL lets run beside the writer. Statements are
// prepared once per connection and cached. Pending migrations are applied
// on open, under SQLite's write lock, so concurrent openers apply each once.
//
// Example:
//   absl::StatusOr<std::unique_ptr<Store>> store =
//       OpenSqliteStore("/var/lib/gnomon/gnomon.db", StoreOptions{});
//
// Thread safety: the returned Store is thread-safe.
#ifndef GNOMON_SERVICES_COMMON_STORE_SQLITE_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_SQLITE_STORE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "services/common/store/store.h"

namespace gnomon::store {

// Opens (creating if needed) the database file at `path` and migrates it.
// ":memory:" gives a private in-memory database served by one connection.
absl::StatusOr<std::unique_ptr<Store>> OpenSqliteStore(const std::string& path,
                                                       const StoreOptions& options);

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_SQLITE_STORE_H_

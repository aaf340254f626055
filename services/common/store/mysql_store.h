// The MySQL/MariaDB backend of Store, over MySQL Connector/C++ 1.1.
//
// A small pool of connections (created on demand, reused, discarded after a
// connection-type failure so the next call reconnects). Every
// sql::SQLException is caught here and mapped: server gone, lost connection,
// timeouts, lock-wait timeout and deadlock become Unavailable (callers retry);
// duplicate key becomes AlreadyExists; anything else Internal. The database is
// created if missing; pending migrations are applied on open under
// GET_LOCK so concurrent openers apply each once.
//
// Example:
//   MysqlAddress addr{"root", "", "127.0.0.1", 3306, "gnomon"};
//   absl::StatusOr<std::unique_ptr<Store>> store = OpenMysqlStore(addr, StoreOptions{});
//
// Thread safety: the returned Store is thread-safe.
#ifndef GNOMON_SERVICES_COMMON_STORE_MYSQL_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_MYSQL_STORE_H_

#include <memory>

#include "absl/status/statusor.h"
#include "services/common/store/store.h"
#include "services/common/store/store_url.h"

namespace gnomon::store {

absl::StatusOr<std::unique_ptr<Store>> OpenMysqlStore(const MysqlAddress& address,
                                                      const StoreOptions& options);

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_MYSQL_STORE_H_

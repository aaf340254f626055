// OpenStore: picks the backend named by the URL.
#include "services/common/store/store.h"

#include <memory>
#include <string_view>

#include "services/common/status/status_macros.h"
#include "services/common/store/mysql_store.h"
#include "services/common/store/sqlite_store.h"
#include "services/common/store/store_url.h"

namespace gnomon::store {

absl::StatusOr<std::unique_ptr<Store>> OpenStore(std::string_view url,
                                                 const StoreOptions& options) {
  ASSIGN_OR_RETURN(StoreUrl parsed, ParseStoreUrl(url));
  if (parsed.kind == StoreUrl::Kind::kSqlite) {
    return OpenSqliteStore(parsed.sqlite_path, options);
  }
  return OpenMysqlStore(parsed.mysql, options);
}

}  // namespace gnomon::store

#include "services/common/store/mysql_store.h"

#include "absl/status/status.h"

namespace gnomon::store {

absl::StatusOr<std::unique_ptr<Store>> OpenMysqlStore(const MysqlAddress& address,
                                                      const StoreOptions& options) {
  return absl::UnimplementedError("mysql store: not built yet");
}

}  // namespace gnomon::store

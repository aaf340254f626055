// AuditStore: the audit log of admin changes.
//
// Appended by the admin API, read by it, trimmed by retention.
//
// One of the role-sized interfaces that together make up the Store
// (store.h); the same SQL store implements them all, and each part of gnomon
// takes only the ones it uses. Conventions (times, errors, thread safety) are
// store.h's.
#ifndef GNOMON_SERVICES_COMMON_STORE_AUDIT_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_AUDIT_STORE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/admin.pb.h"

namespace gnomon::store {

class AuditStore {
 public:
  virtual ~AuditStore() = default;

  // Appends `entry` (its time and fields as given; the id is assigned).
  virtual absl::Status AppendAudit(const v1::AuditEntry& entry) = 0;
  // Entries newest first with id < before_id (0: from the newest), only
  // those whose object is `object` unless it is empty; at most `limit`.
  virtual absl::StatusOr<std::vector<v1::AuditEntry>> ListAudit(std::string_view object,
                                                                int64_t before_id, int limit) = 0;
  // Deletes at most `limit` of the oldest entries written before before_ms;
  // returns how many.
  virtual absl::StatusOr<int64_t> DeleteAuditBefore(int64_t before_ms, int limit) = 0;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_AUDIT_STORE_H_

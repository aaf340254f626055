// MembershipStore: the registry's rows of registered executors.
//
// Written by the registry replicas; read by every replica to route.
//
// One of the role-sized interfaces that together make up the Store
// (store.h); the same SQL store implements them all, and each part of gnomon
// takes only the ones it uses. Conventions (times, errors, thread safety) are
// store.h's.
#ifndef GNOMON_SERVICES_COMMON_STORE_MEMBERSHIP_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_MEMBERSHIP_STORE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gnomon/v1/common.pb.h"

namespace gnomon::store {

class MembershipStore {
 public:
  virtual ~MembershipStore() = default;

  // Inserts or replaces the row of (app_name, address) with last beat now_ms,
  // written for the registration `registration_id`: a number the registry
  // replica chose for this registration of the executor, unique among all
  // replicas' registrations (random, not 0). A row written without a
  // register time (a beat) keeps its register time and registration.
  virtual absl::Status UpsertExecutor(const v1::ExecutorInfo& info, int64_t now_ms,
                                      int64_t registration_id) = 0;
  // Removes the row of (app_name, address) if it is still the one written
  // for `registration_id`, made at register_ms: an executor that registered
  // again meanwhile (through another registry replica, even in the same
  // millisecond) keeps its row. NotFound otherwise.
  virtual absl::Status RemoveExecutor(std::string_view app_name, std::string_view address,
                                      int64_t register_ms, int64_t registration_id) = 0;
  virtual absl::StatusOr<std::vector<v1::ExecutorInfo>> ListExecutors() = 0;
  // Deletes rows whose last beat is older than before_ms; returns how many.
  virtual absl::StatusOr<int64_t> PruneExecutors(int64_t before_ms) = 0;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_MEMBERSHIP_STORE_H_

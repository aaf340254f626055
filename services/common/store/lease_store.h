// LeaseStore: leases with fencing epochs (scheduler partitions, replica presence).
//
// Leases expire by the store's clock, so replicas need not agree on the time.
//
// One of the role-sized interfaces that together make up the Store
// (store.h); the same SQL store implements them all, and each part of gnomon
// takes only the ones it uses. Conventions (times, errors, thread safety) are
// store.h's.
#ifndef GNOMON_SERVICES_COMMON_STORE_LEASE_STORE_H_
#define GNOMON_SERVICES_COMMON_STORE_LEASE_STORE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace gnomon::store {

// A lease (a scheduler partition, a replica's presence) with its fencing epoch.
struct Lease {
  std::string name;
  std::string holder;      // "" when free.
  int64_t epoch = 0;       // Increases every time the holder changes.
  int64_t expires_ms = 0;  // In the store's clock.
};

// Leases as read at one instant of the store's clock.
struct Leases {
  int64_t now_ms = 0;  // The store's clock when they were read.
  std::vector<Lease> leases;
};

class LeaseStore {
 public:
  virtual ~LeaseStore() = default;

  // Leases expire by the store's clock (the database server's for MySQL), so
  // replicas need not agree on the time.
  //
  // Takes or renews, in one transaction, each lease of `names` that is free,
  // expired, held by `holder`, or held by an earlier incarnation of it: a
  // holder "replica#incarnation" takes over at once a lease held by
  // "replica#other" (a restarted process does not wait out its
  // predecessor's lease). Each is held until the store's now + ttl_ms; the
  // epoch increases when the holder changes. Returns the store's clock and
  // the leases of `names` now held by `holder` (those held by others are left out).
  virtual absl::StatusOr<Leases> AcquireLeases(const std::vector<std::string>& names,
                                               std::string_view holder, int64_t ttl_ms) = 0;
  // Gives up those of `names` that `holder` holds (their epochs stay): each
  // is free, and expired since the store's now. A lease row first created
  // (AcquireLeases) likewise counts as expired since its creation.
  virtual absl::Status ReleaseLeases(const std::vector<std::string>& names,
                                     std::string_view holder) = 0;
  // Deletes those of `names` that have been expired since before
  // `expired_before_ms` (the store's clock; a lease taken or released again
  // meanwhile stays). For presence rows only: a partition's row keeps its
  // epoch for ever.
  virtual absl::Status DeleteExpiredLeases(const std::vector<std::string>& names,
                                           int64_t expired_before_ms) = 0;
  // Every lease whose name starts with `prefix` (letters, digits, '/', '-',
  // '.' and ':'), held or not, by name, and the store's clock.
  virtual absl::StatusOr<Leases> ListLeases(std::string_view prefix) = 0;
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_LEASE_STORE_H_

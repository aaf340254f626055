// TableVersion: one cheap read that changes whenever a row of a small
// table of named objects (calendars, alarm channels) is created, replaced
// or deleted — so a reader keeping them all in memory re-reads them only
// when it moves. Sound because ids are never reused and every update time
// the store writes is later than all before it.
#ifndef GNOMON_SERVICES_COMMON_STORE_TABLE_VERSION_H_
#define GNOMON_SERVICES_COMMON_STORE_TABLE_VERSION_H_

#include <cstdint>

namespace gnomon::store {

struct TableVersion {
  int64_t count = 0;
  int64_t newest_update_ms = 0;
  int64_t id_sum = 0;
  // Spelled out: gnomon builds as C++17 (no defaulted comparisons).
  bool operator==(const TableVersion& o) const {
    return count == o.count && newest_update_ms == o.newest_update_ms && id_sum == o.id_sum;
  }
  bool operator!=(const TableVersion& o) const { return !(*this == o); }
};

}  // namespace gnomon::store

#endif  // GNOMON_SERVICES_COMMON_STORE_TABLE_VERSION_H_

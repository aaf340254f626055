// PendingMigrations: which steps of a backend's list a store still needs.
#include "services/common/store/migrations.h"

#include "services/common/client/log.h"

namespace gnomon::store::internal {

std::vector<const Migration*> PendingMigrations(const std::vector<Migration>& all, int64_t applied,
                                                int64_t known_up_to, std::string_view backend) {
  std::vector<const Migration*> pending;
  int64_t known = 0;
  for (const Migration& m : all) {
    if (known_up_to > 0 && m.version > known_up_to) break;
    known = m.version;
    if (m.version > applied) pending.push_back(&m);
  }
  if (applied > known) {
    // Migrations are additive, so this binary's statements still work: a
    // rolling upgrade runs the new schema beside the previous release.
    GNOMON_LOG(INFO) << "store (" << backend << "): schema version " << applied
                     << " is newer than this binary's " << known << "; using it as it is";
  }
  return pending;
}

}  // namespace gnomon::store::internal

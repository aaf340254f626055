#include "services/common/server/concurrency_cap.h"

namespace gnomon {

std::optional<ConcurrencyCap::Permit> ConcurrencyCap::TryAcquire(std::string_view key) {
  absl::MutexLock l(&mu_);
  if (total_ > 0 && open_ >= total_) return std::nullopt;
  std::string owned(key);
  int& mine = per_key_open_[owned];
  if (per_key_ > 0 && mine >= per_key_) return std::nullopt;  // mine > 0: kept.
  ++mine;
  ++open_;
  return Permit(this, std::move(owned));
}

void ConcurrencyCap::Release(const std::string& key) {
  absl::MutexLock l(&mu_);
  --open_;
  auto it = per_key_open_.find(key);
  if (it != per_key_open_.end() && --it->second == 0) per_key_open_.erase(it);
}

}  // namespace gnomon

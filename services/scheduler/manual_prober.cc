#include "services/scheduler/manual_prober.h"

#include "services/common/client/log.h"

namespace gnomon::scheduler {

bool ManualProber::Alive(const std::string& address) const {
  absl::MutexLock l(&mu_);
  auto it = alive_.find(address);
  return it == alive_.end() || it->second;
}

void ManualProber::ProbeAll() {
  absl::StatusOr<std::vector<v1::Group>> groups = store_->ListGroups();
  if (!groups.ok()) return;
  absl::flat_hash_map<std::string, bool> result;
  for (const v1::Group& g : *groups) {
    if (!g.has_manual()) continue;
    for (const std::string& address : g.manual().addresses()) {
      result[address] = executors_->Beat(address, g.app_name(), absl::Seconds(1));
    }
  }
  absl::MutexLock l(&mu_);
  for (const auto& [address, up] : result) {
    auto it = alive_.find(address);
    if (it != alive_.end() && it->second != up) {
      GNOMON_LOG(INFO) << "scheduler: manual executor " << address << (up ? " is up" : " is down");
    }
  }
  alive_ = std::move(result);
}

}  // namespace gnomon::scheduler

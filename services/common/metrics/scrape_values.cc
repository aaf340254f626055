#include "services/common/metrics/scrape_values.h"

#include <set>

namespace gnomon::metrics {

void MirrorCount(prometheus::Counter& counter, uint64_t total) {
  const double now = static_cast<double>(total);
  if (now > counter.Value()) counter.Increment(now - counter.Value());
}

void GaugeSnapshot::Set(const std::vector<std::pair<prometheus::Labels, double>>& values) {
  absl::MutexLock l(&mu_);
  // Each child is set once (no passing through 0 while a scrape reads).
  std::set<const prometheus::Labels*> present;
  for (const auto& [labels, value] : values) {
    auto [it, fresh] = seen_.try_emplace(labels, nullptr);
    if (fresh) it->second = &family_.Add(labels);
    it->second->Set(value);
    present.insert(&it->first);
  }
  for (const auto& [labels, gauge] : seen_) {
    if (!present.count(&labels)) gauge->Set(0);
  }
}

}  // namespace gnomon::metrics

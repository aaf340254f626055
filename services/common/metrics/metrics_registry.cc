#include "services/common/metrics/metrics_registry.h"

#include <utility>

#include "services/common/metrics/process_metrics.h"

namespace gnomon::metrics {

ScrapeHook::ScrapeHook(ScrapeHook&& other) noexcept
    : registry_(std::exchange(other.registry_, nullptr)), id_(other.id_) {}

ScrapeHook& ScrapeHook::operator=(ScrapeHook&& other) noexcept {
  if (this != &other) {
    Reset();
    registry_ = std::exchange(other.registry_, nullptr);
    id_ = other.id_;
  }
  return *this;
}

ScrapeHook::~ScrapeHook() { Reset(); }

void ScrapeHook::Reset() {
  if (registry_ != nullptr) registry_->Remove(id_);
  registry_ = nullptr;
}

// prometheus-cpp merges a family registered again under the same name.
prometheus::Family<prometheus::Counter>& MetricsRegistry::CounterFamily(const std::string& name,
                                                                        const std::string& help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(registry_);
}

prometheus::Family<prometheus::Gauge>& MetricsRegistry::GaugeFamily(const std::string& name,
                                                                    const std::string& help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(registry_);
}

prometheus::Family<prometheus::Histogram>& MetricsRegistry::HistogramFamily(
    const std::string& name, const std::string& help) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(registry_);
}

prometheus::Counter& MetricsRegistry::Counter(const std::string& name, const std::string& help,
                                              const prometheus::Labels& labels) {
  return CounterFamily(name, help).Add(labels);
}

prometheus::Gauge& MetricsRegistry::Gauge(const std::string& name, const std::string& help,
                                          const prometheus::Labels& labels) {
  return GaugeFamily(name, help).Add(labels);
}

prometheus::Histogram& MetricsRegistry::Histogram(
    const std::string& name, const std::string& help,
    const prometheus::Histogram::BucketBoundaries& buckets, const prometheus::Labels& labels) {
  return HistogramFamily(name, help).Add(labels, buckets);
}

ScrapeHook MetricsRegistry::OnScrape(std::function<void()> refresh) {
  absl::MutexLock l(&mu_);
  const uint64_t id = next_id_++;
  hooks_.emplace(id, std::move(refresh));
  return ScrapeHook(this, id);
}

void MetricsRegistry::Remove(uint64_t id) {
  absl::MutexLock l(&mu_);
  hooks_.erase(id);
}

std::vector<prometheus::MetricFamily> MetricsRegistry::Collect() const {
  {
    // Held while the hooks run: a hook's owner that unregisters meanwhile
    // waits here instead of being destroyed under a running hook.
    absl::MutexLock l(&mu_);
    for (const auto& [id, refresh] : hooks_) refresh();
  }
  std::vector<prometheus::MetricFamily> families = registry_.Collect();
  for (prometheus::MetricFamily& f : ProcessFamilies()) families.push_back(std::move(f));
  return families;
}

}  // namespace gnomon::metrics

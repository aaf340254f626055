// MetricsRegistry: one process's Prometheus metrics — the prometheus::Registry
// every component's metric struct registers its families in (once, at
// construction), plus hooks that refresh values read only at scrape time
// (gauges of queue depths, counts kept elsewhere). It is the Collectable a
// MetricsServer serves, or an application adds to its own prometheus::Exposer.
//
//   auto metrics = std::make_shared<MetricsRegistry>();
//   prometheus::Counter& fired = metrics->Counter("gnomon_example_total", "Fires.");
//   prometheus::Gauge& depth = metrics->Gauge("gnomon_example_queued", "Waiting.");
//   ScrapeHook hook = metrics->OnScrape([&] { depth.Set(queue.size()); });
//   fired.Increment();  // the hot path: an atomic add, no lookup
//
// Thread safety: thread-safe. Hooks run one at a time, under the registry's
// lock, on the scraping thread; a hook must not call OnScrape. Destroying a
// ScrapeHook waits for a scrape running its hook, so a component that owns
// its hook may be destroyed while scrapes go on.
#ifndef GNOMON_SERVICES_COMMON_METRICS_METRICS_REGISTRY_H_
#define GNOMON_SERVICES_COMMON_METRICS_METRICS_REGISTRY_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/collectable.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/labels.h"
#include "prometheus/metric_family.h"
#include "prometheus/registry.h"

namespace gnomon::metrics {

class MetricsRegistry;

// Keeps a scrape hook registered until destroyed (movable, not copyable).
class ScrapeHook {
 public:
  ScrapeHook() = default;
  ScrapeHook(ScrapeHook&& other) noexcept;
  ScrapeHook& operator=(ScrapeHook&& other) noexcept;
  ~ScrapeHook();

 private:
  friend class MetricsRegistry;
  ScrapeHook(MetricsRegistry* registry, uint64_t id) : registry_(registry), id_(id) {}
  void Reset();

  MetricsRegistry* registry_ = nullptr;
  uint64_t id_ = 0;
};

class MetricsRegistry final : public prometheus::Collectable {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  prometheus::Registry& registry() { return registry_; }

  // The family `name` (registered by the first call; later calls with the
  // same name get the same family), and a metric of it with `labels`.
  prometheus::Family<prometheus::Counter>& CounterFamily(const std::string& name,
                                                         const std::string& help);
  prometheus::Family<prometheus::Gauge>& GaugeFamily(const std::string& name,
                                                     const std::string& help);
  prometheus::Family<prometheus::Histogram>& HistogramFamily(const std::string& name,
                                                             const std::string& help);
  prometheus::Counter& Counter(const std::string& name, const std::string& help,
                               const prometheus::Labels& labels = {});
  prometheus::Gauge& Gauge(const std::string& name, const std::string& help,
                           const prometheus::Labels& labels = {});
  prometheus::Histogram& Histogram(const std::string& name, const std::string& help,
                                   const prometheus::Histogram::BucketBoundaries& buckets,
                                   const prometheus::Labels& labels = {});
  // Runs `refresh` before every scrape until the returned hook is destroyed
  // (which must happen before this registry is).
  [[nodiscard]] ScrapeHook OnScrape(std::function<void()> refresh) ABSL_LOCKS_EXCLUDED(mu_);
  // Runs the hooks, then collects every family, and the process_* ones
  // (ProcessFamilies).
  std::vector<prometheus::MetricFamily> Collect() const override ABSL_LOCKS_EXCLUDED(mu_);

 private:
  friend class ScrapeHook;
  void Remove(uint64_t id) ABSL_LOCKS_EXCLUDED(mu_);

  prometheus::Registry registry_;
  mutable absl::Mutex mu_;
  std::map<uint64_t, std::function<void()>> hooks_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace gnomon::metrics

#endif  // GNOMON_SERVICES_COMMON_METRICS_METRICS_REGISTRY_H_

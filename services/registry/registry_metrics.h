// RegistryMetrics: the registry role's Prometheus metrics — sessions opened
// and closed (by why), beats, and, read at scrape, sessions held here and
// live executors per app. RegistryCore holds a pointer (null: not measured).
//
//   RegistryMetrics m(*registry);
//   m.Closed(SessionEnd::kMissedBeats);
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_REGISTRY_REGISTRY_METRICS_H_
#define GNOMON_SERVICES_REGISTRY_REGISTRY_METRICS_H_

#include <array>
#include <cstddef>
#include <map>
#include <string>

#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "services/common/metrics/metrics_registry.h"
#include "services/common/metrics/scrape_values.h"

namespace gnomon::registry {

enum class SessionEnd {
  kLeft,         // Deregistered, or its stream ended.
  kMissedBeats,  // Removed for missing its beats.
  kReplaced,     // The same executor registered again on a new stream.
  kCount
};

class RegistryMetrics {
 public:
  explicit RegistryMetrics(metrics::MetricsRegistry& metrics);

  void Opened() { opened_.Increment(); }
  void Closed(SessionEnd why) { closed_[static_cast<size_t>(why)]->Increment(); }
  void Beat() { beats_.Increment(); }
  // Scrape time: sessions held by this replica, live executors by app
  // (this replica's and other replicas').
  void SetMembership(size_t sessions, const std::map<std::string, int>& executors_by_app);

 private:
  prometheus::Counter& opened_;
  std::array<prometheus::Counter*, static_cast<size_t>(SessionEnd::kCount)> closed_{};
  prometheus::Counter& beats_;
  prometheus::Gauge& sessions_;
  metrics::GaugeSnapshot executors_;
};

}  // namespace gnomon::registry

#endif  // GNOMON_SERVICES_REGISTRY_REGISTRY_METRICS_H_

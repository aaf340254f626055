#include "services/registry/registry_metrics.h"

#include <iterator>
#include <utility>
#include <vector>

namespace gnomon::registry {
namespace {

constexpr const char* kSessionEnds[] = {"left", "missed_beats", "replaced"};
static_assert(std::size(kSessionEnds) == static_cast<size_t>(SessionEnd::kCount));

}  // namespace

RegistryMetrics::RegistryMetrics(metrics::MetricsRegistry& m)
    : opened_(m.Counter("gnomon_registry_sessions_opened_total",
                        "Executor sessions registered with this registry replica.")),
      beats_(m.Counter("gnomon_registry_beats_total", "Beats received from executors.")),
      sessions_(m.Gauge("gnomon_registry_sessions",
                        "Executor sessions this registry replica holds now.")),
      executors_(m.GaugeFamily(
          "gnomon_registry_executors",
          "Live executors per app (group), as this replica sees them: its own sessions and "
          "other replicas' from the store.")) {
  for (size_t i = 0; i < closed_.size(); ++i) {
    closed_[i] =
        &m.Counter("gnomon_registry_sessions_closed_total",
                   "Executor sessions that ended, by why: left (deregistered or stream ended), "
                   "missed_beats, replaced (the executor registered again).",
                   {{"reason", kSessionEnds[i]}});
  }
}

void RegistryMetrics::SetMembership(size_t sessions,
                                    const std::map<std::string, int>& executors_by_app) {
  sessions_.Set(static_cast<double>(sessions));
  std::vector<std::pair<prometheus::Labels, double>> values;
  for (const auto& [app, n] : executors_by_app) values.push_back({{{"app", app}}, n});
  executors_.Set(values);
}

}  // namespace gnomon::registry

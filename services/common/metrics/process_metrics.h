// ProcessFamilies: the process_* families every Prometheus client library
// exports by convention (prometheus-cpp does not) — CPU seconds, resident
// and virtual memory, open and maximum file descriptors, start time — read
// from /proc/self at each scrape. MetricsRegistry::Collect adds them, so
// every gnomon process's /metrics has them and stock dashboards work.
//
//   std::vector<prometheus::MetricFamily> f = ProcessFamilies();
//
// Thread safety: thread-safe (reads only the process's own /proc files).
#ifndef GNOMON_SERVICES_COMMON_METRICS_PROCESS_METRICS_H_
#define GNOMON_SERVICES_COMMON_METRICS_PROCESS_METRICS_H_

#include <vector>

#include "prometheus/metric_family.h"

namespace gnomon::metrics {

// Those it could read (none on a system without /proc).
std::vector<prometheus::MetricFamily> ProcessFamilies();

}  // namespace gnomon::metrics

#endif  // GNOMON_SERVICES_COMMON_METRICS_PROCESS_METRICS_H_

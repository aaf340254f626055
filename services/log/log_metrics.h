// LogMetrics: the log role's Prometheus metrics, fed by a ReportWriter
// observer after each durable batch: runs ended (by status and handle code),
// how long they ran, how long a result took from its handler's end to being
// stored, and report items by kind and acknowledgement; plus, at scrape, the
// items waiting for the store.
//
//   LogMetrics m(*registry);
//   writer.AddObserver([&m](const auto& items, const auto& acks) { m.Stored(items, acks, now); });
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_LOG_LOG_METRICS_H_
#define GNOMON_SERVICES_LOG_LOG_METRICS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "gnomon/v1/log.pb.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "services/common/metrics/enum_metrics.h"
#include "services/common/metrics/metrics_registry.h"
#include "services/common/metrics/run_metrics.h"

namespace gnomon::logsvc {

class LogMetrics {
 public:
  explicit LogMetrics(metrics::MetricsRegistry& metrics);

  // A batch of report items was stored at now_ms with these acks (one each).
  void Stored(const std::vector<v1::ReportItem>& items, const std::vector<v1::ReportAck>& acks,
              int64_t now_ms);
  // Scrape time: items received and not yet stored.
  void SetQueued(size_t items) { queued_.Set(static_cast<double>(items)); }

 private:
  static constexpr size_t kKinds = 3;                                        // started, log, result
  std::vector<metrics::PerEnum<v1::ReportAck, prometheus::Counter>> items_;  // Index: kind.
  metrics::RunEndCounters runs_ended_;
  prometheus::Histogram& run_duration_;
  prometheus::Histogram& report_latency_;
  prometheus::Gauge& queued_;
};

}  // namespace gnomon::logsvc

#endif  // GNOMON_SERVICES_LOG_LOG_METRICS_H_

#include "services/log/log_metrics.h"

#include <algorithm>

#include "google/protobuf/util/time_util.h"
#include "services/common/metrics/buckets.h"

namespace gnomon::logsvc {
namespace {

using google::protobuf::util::TimeUtil;

constexpr const char* kKindNames[] = {"started", "log", "result"};

size_t KindOf(const v1::ReportItem& item) {
  switch (item.item_case()) {
    case v1::ReportItem::kStarted:
      return 0;
    case v1::ReportItem::kLog:
      return 1;
    default:
      return 2;
  }
}

}  // namespace

LogMetrics::LogMetrics(metrics::MetricsRegistry& m)
    : runs_ended_(metrics::ServerRunEnds(m)),
      run_duration_(
          m.Histogram("gnomon_run_duration_seconds",
                      "How long runs ran, handler start to end, as their executors reported.",
                      metrics::RunDurationBuckets())),
      report_latency_(
          m.Histogram("gnomon_result_report_latency_seconds",
                      "From a handler's end (the executor's clock) to its result being stored.",
                      metrics::LatenessBuckets())),
      queued_(m.Gauge(
          "gnomon_log_report_queue_items",
          "Report items (starts, log batches, results) received and waiting for the store.")) {
  auto& items =
      m.CounterFamily("gnomon_log_report_items_total",
                      "Report items stored, by kind (started, log, result) and acknowledgement "
                      "(applied; duplicate: sent again; unknown_run).");
  for (const char* kind : kKindNames)
    items_.emplace_back(items, "ack", prometheus::Labels{{"kind", kind}});
}

void LogMetrics::Stored(const std::vector<v1::ReportItem>& items,
                        const std::vector<v1::ReportAck>& acks, int64_t now_ms) {
  for (size_t i = 0; i < items.size() && i < acks.size(); ++i) {
    items_[KindOf(items[i])][acks[i]].Increment();
    if (!items[i].has_result() || acks[i] != v1::REPORT_ACK_APPLIED) continue;
    const v1::RunResult& r = items[i].result();
    runs_ended_.Ended(r.handle_code());
    const int64_t end = TimeUtil::TimestampToMilliseconds(r.end_time());
    if (r.has_start_time() && r.has_end_time()) {
      const int64_t start = TimeUtil::TimestampToMilliseconds(r.start_time());
      run_duration_.Observe(std::max<int64_t>(0, end - start) / 1000.0);
    }
    if (r.has_end_time()) report_latency_.Observe(std::max<int64_t>(0, now_ms - end) / 1000.0);
  }
}

}  // namespace gnomon::logsvc

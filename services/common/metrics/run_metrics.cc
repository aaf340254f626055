#include "services/common/metrics/run_metrics.h"

namespace gnomon::metrics {

RunEndCounters::RunEndCounters(MetricsRegistry& metrics, const std::string& name,
                               const std::string& help)
    : by_code_(metrics.CounterFamily(name, help),
               PerEnum<v1::HandleCode, prometheus::Counter>::LabelsOf([](int code) {
                 return prometheus::Labels{
                     {"status", code == v1::HANDLE_CODE_SUCCESS ? "succeeded" : "failed"}};
               }),
               "handle_code") {}

RunEndCounters ServerRunEnds(MetricsRegistry& metrics) {
  return RunEndCounters(
      metrics, "gnomon_runs_total",
      "Runs that ended, by status and handle code: results executors reported (log "
      "role) and runs the scheduler failed itself (no executor, refused, executor lost).");
}

bool DueAtSlot(v1::TriggerType type) {
  switch (type) {
    case v1::TRIGGER_TYPE_CRON:
    case v1::TRIGGER_TYPE_FIX_RATE:
    case v1::TRIGGER_TYPE_FIX_DELAY:
    case v1::TRIGGER_TYPE_MISFIRE:
      return true;
    default:
      return false;
  }
}

int64_t DueMillis(v1::TriggerType type, int64_t scheduled_ms, int64_t trigger_ms) {
  return DueAtSlot(type) && scheduled_ms > 0 ? scheduled_ms : trigger_ms;
}

bool RequestTimeIsDue(v1::TriggerType type) {
  return type != v1::TRIGGER_TYPE_RETRY && type != v1::TRIGGER_TYPE_BACKFILL;
}

}  // namespace gnomon::metrics

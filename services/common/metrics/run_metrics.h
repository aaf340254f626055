// Metrics about runs that several processes keep alike: runs that ended,
// by status and handle code, and the instant lateness is measured from.
//
//   RunEndCounters ended(*metrics, "gnomon_executor_runs_total", "Runs that ended ...");
//   ended.Ended(result.handle_code());
//   double late_s = (now_ms - DueMillis(type, scheduled_ms, trigger_ms)) / 1000.0;
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_COMMON_METRICS_RUN_METRICS_H_
#define GNOMON_SERVICES_COMMON_METRICS_RUN_METRICS_H_

#include <cstdint>
#include <string>

#include "gnomon/v1/common.pb.h"
#include "prometheus/counter.h"
#include "services/common/metrics/enum_metrics.h"
#include "services/common/metrics/metrics_registry.h"

namespace gnomon::metrics {

// Counter `name`{status, handle_code}: status "succeeded" for handle code
// 200, else "failed"; handle_code the code's name ("timeout"), "other" for a
// code a handler made up.
class RunEndCounters {
 public:
  RunEndCounters(MetricsRegistry& metrics, const std::string& name, const std::string& help);
  void Ended(int32_t handle_code, int64_t runs = 1) { by_code_[handle_code].Increment(runs); }

 private:
  PerEnum<v1::HandleCode, prometheus::Counter> by_code_;
};

// gnomon_runs_total, which the log role (results) and the scheduler (runs it
// fails itself) both count, in one process or several.
RunEndCounters ServerRunEnds(MetricsRegistry& metrics);

// When a run was due, for its lateness: its slot for scheduled fires (cron,
// fix rate, fix delay, and misfires, whose lateness is the point), else when
// it was triggered (manual, API, child jobs, retries — whose slot is the
// first attempt's — and backfills, whose slots are history).
bool DueAtSlot(v1::TriggerType type);
int64_t DueMillis(v1::TriggerType type, int64_t scheduled_ms, int64_t trigger_ms);
// Whether a RunRequest's scheduled_time (the slot, else the trigger time) is
// when the run was due: not for retries and backfills, which carry a slot
// from before.
bool RequestTimeIsDue(v1::TriggerType type);

}  // namespace gnomon::metrics

#endif  // GNOMON_SERVICES_COMMON_METRICS_RUN_METRICS_H_

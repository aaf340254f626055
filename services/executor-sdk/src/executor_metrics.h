// ExecutorMetrics: an executor's Prometheus metrics — dispatches by how they
// were answered, handler start lateness, handler duration, runs by status
// and handle code, refused tokens, and, read at scrape, runs in flight, runs
// queued per block strategy, the spool's depth and the age of its oldest
// unacknowledged result. The SDK's parts hold a pointer (null: not measured).
//
//   ExecutorMetrics m(registry.get());
//   m.Answered(outcome);
//   m.Started(request, start);
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_EXECUTOR_METRICS_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_EXECUTOR_METRICS_H_

#include <map>
#include <optional>

#include "absl/time/time.h"
#include "gnomon/v1/executor.pb.h"
#include "gnomon/v1/log.pb.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "services/common/metrics/enum_metrics.h"
#include "services/common/metrics/metrics_registry.h"
#include "services/common/metrics/run_metrics.h"
#include "services/executor-sdk/src/run_manager.h"

namespace gnomon::executor::internal {

class ExecutorMetrics {
 public:
  explicit ExecutorMetrics(metrics::MetricsRegistry& metrics);

  // How a dispatched run was answered.
  void Answered(const DispatchOutcome& outcome);
  // A handler started at `start` (lateness from when the run was due).
  void Started(const v1::RunRequest& request, absl::Time start);
  void Finished(const v1::RunResult& result);
  void AuthFailed() { auth_failures_.Increment(); }
  // Scrape time. `oldest_result_end`: the end of the oldest result not yet
  // acknowledged by the log service, if any.
  void SetState(uint32_t running, const std::map<v1::BlockStrategy, int>& queued, size_t spooled,
                std::optional<absl::Time> oldest_result_end, absl::Time now);

 private:
  prometheus::Counter& accepted_;
  prometheus::Counter& already_accepted_;
  prometheus::Counter& covered_;
  metrics::PerEnum<v1::RejectKind, prometheus::Counter> rejected_;
  metrics::PerEnum<v1::TriggerType, prometheus::Histogram> start_lateness_;
  prometheus::Histogram& handler_duration_;
  metrics::RunEndCounters runs_;
  prometheus::Counter& auth_failures_;
  prometheus::Gauge& running_;
  metrics::PerEnum<v1::BlockStrategy, prometheus::Gauge> queued_;
  prometheus::Gauge& spooled_;
  prometheus::Gauge& oldest_result_age_;
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_EXECUTOR_METRICS_H_

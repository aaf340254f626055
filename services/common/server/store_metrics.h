// StoreMetrics: Prometheus metrics of a process's store calls — how long
// each kind of call takes, how many failed — fed by an ObservedStore in
// front of the store, plus the store's own counts of committed transactions
// and executed statements, read at scrape.
//
//   StoreMetrics store_metrics(*metrics, real.get());
//   store::ObservedStore store(real.get(), &store_metrics);
//   ... every role uses &store ...
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_COMMON_SERVER_STORE_METRICS_H_
#define GNOMON_SERVICES_COMMON_SERVER_STORE_METRICS_H_

#include <array>
#include <atomic>

#include "absl/status/status.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/histogram.h"
#include "services/common/metrics/metrics_registry.h"
#include "services/common/store/observed_store.h"

namespace gnomon {

// Whether a store call's status is an error (the store unavailable, a
// timeout, a bug) rather than an answer (NotFound, AlreadyExists, a refused
// precondition or argument).
bool IsStoreError(const absl::Status& status);

class StoreMetrics final : public store::StoreObserver {
 public:
  // `store` is the real store, whose counts are read at scrape; it must
  // outlive this.
  StoreMetrics(metrics::MetricsRegistry& metrics, const store::Store* store);
  ~StoreMetrics() override;
  StoreMetrics(const StoreMetrics&) = delete;
  StoreMetrics& operator=(const StoreMetrics&) = delete;
  void Observe(store::StoreCall call, const absl::Status& status, absl::Duration took) override;

 private:
  static constexpr size_t kCalls = static_cast<size_t>(store::StoreCall::kCount);
  struct CallMetrics {
    prometheus::Histogram* duration;
    prometheus::Counter* errors;
  };
  // The call's metrics, made at its first use: a process makes only some
  // of the calls (the log role never leases), so unused ones make no series.
  const CallMetrics& Of(store::StoreCall call);

  prometheus::Family<prometheus::Histogram>& durations_;
  prometheus::Family<prometheus::Counter>& errors_;
  std::array<std::atomic<const CallMetrics*>, kCalls> calls_{};
  prometheus::Counter& transactions_;
  prometheus::Counter& statements_;
  metrics::ScrapeHook hook_;
};

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_STORE_METRICS_H_

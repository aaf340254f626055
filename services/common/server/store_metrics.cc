#include "services/common/server/store_metrics.h"

#include <string>

#include "services/common/metrics/buckets.h"
#include "services/common/metrics/scrape_values.h"

namespace gnomon {

bool IsStoreError(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
      return false;
    default:
      return true;
  }
}

StoreMetrics::StoreMetrics(metrics::MetricsRegistry& m, const store::Store* store)
    : durations_(m.HistogramFamily(
          "gnomon_store_operation_duration_seconds",
          "Store calls by operation (a Store method: one transaction or read), start to "
          "end, including waits for a connection or the SQLite writer.")),
      errors_(m.CounterFamily(
          "gnomon_store_errors_total",
          "Store calls that failed with an error (unavailable, timeout, internal), by "
          "operation; answers such as not found are not errors.")),
      transactions_(
          m.Counter("gnomon_store_transactions_total", "Write transactions the store committed.")),
      statements_(m.Counter(
          "gnomon_store_statements_total",
          "SQL statements the store executed (round trips; transaction control not counted). "
          "Per transaction: rate of this over rate of transactions.")),
      hook_(m.OnScrape([this, store] {
        metrics::MirrorCount(transactions_, store->committed_transactions());
        metrics::MirrorCount(statements_, store->executed_statements());
      })) {}

StoreMetrics::~StoreMetrics() {
  for (std::atomic<const CallMetrics*>& slot : calls_) delete slot.load();
}

const StoreMetrics::CallMetrics& StoreMetrics::Of(store::StoreCall call) {
  std::atomic<const CallMetrics*>& slot = calls_[static_cast<size_t>(call)];
  if (const CallMetrics* m = slot.load(std::memory_order_acquire)) return *m;
  // First use, possibly on two threads at once: Family::Add returns the
  // same metrics for the same labels, so the loser's entry is equal.
  const prometheus::Labels labels = {{"operation", std::string(store::StoreCallName(call))}};
  auto* fresh =
      new CallMetrics{&durations_.Add(labels, metrics::LatencyBuckets()), &errors_.Add(labels)};
  const CallMetrics* expected = nullptr;
  if (!slot.compare_exchange_strong(expected, fresh, std::memory_order_acq_rel)) {
    delete fresh;
    return *expected;
  }
  return *fresh;
}

void StoreMetrics::Observe(store::StoreCall call, const absl::Status& status, absl::Duration took) {
  const CallMetrics& m = Of(call);
  m.duration->Observe(absl::ToDoubleSeconds(took));
  if (IsStoreError(status)) m.errors->Increment();
}

}  // namespace gnomon

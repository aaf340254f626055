// LogRole: the log service's writer thread, tail hub and gRPC service.
//
// Thread safety: Start/Stop from one thread.
#ifndef GNOMON_SERVICES_LOG_LOG_ROLE_H_
#define GNOMON_SERVICES_LOG_LOG_ROLE_H_

#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "services/common/metrics/metrics_registry.h"
#include "services/common/store/store.h"
#include "services/log/log_metrics.h"
#include "services/log/log_service.h"
#include "services/log/retention.h"

namespace gnomon::logsvc {

class LogRole {
 public:
  // `registry` (may be null: not measured) must outlive the role.
  LogRole(store::Store* store, Authenticator* auth, ReportWriterOptions options,
          RetentionOptions retention, QueryLimits queries,
          metrics::MetricsRegistry* registry = nullptr, Clock* clock = &RealClock())
      : metrics_(registry != nullptr ? std::make_unique<LogMetrics>(*registry) : nullptr),
        writer_(store, clock, options),
        service_(store, store, store, auth, &writer_, &hub_, queries, clock),
        retention_(store, store, clock, retention, store) {
    ConnectTailHub(&writer_, &hub_);
    if (metrics_ == nullptr) return;
    writer_.AddObserver([m = metrics_.get(), clock](const std::vector<v1::ReportItem>& items,
                                                    const std::vector<v1::ReportAck>& acks) {
      m->Stored(items, acks, clock->NowMillis());
    });
    scrape_hook_ = registry->OnScrape([this] { metrics_->SetQueued(writer_.queued_items()); });
  }
  ~LogRole() { Stop(); }

  grpc::Service* service() { return &service_; }
  // Results and other report items waiting for the store.
  size_t queued_items() const { return writer_.queued_items(); }
  // Called after every batch of reports that holds a result is stored (the
  // scheduler in the same process then handles follow-ups at once).
  void OnResultsStored(std::function<void()> cb) {
    writer_.AddObserver([cb = std::move(cb)](const std::vector<v1::ReportItem>& items,
                                             const std::vector<v1::ReportAck>&) {
      for (const v1::ReportItem& item : items) {
        if (item.has_result()) return cb();
      }
    });
  }
  void Start() {
    thread_ = std::thread([this] { writer_.Run(); });
    retention_.Start();
  }
  void Stop() {
    writer_.Stop();
    retention_.Stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  const std::unique_ptr<LogMetrics> metrics_;  // Null: not measured.
  ReportWriter writer_;
  LogTailHub hub_;
  LogServiceImpl service_;
  Retention retention_;
  std::thread thread_;
  metrics::ScrapeHook scrape_hook_;  // Last: unregistered before writer_ goes.
};

}  // namespace gnomon::logsvc

#endif  // GNOMON_SERVICES_LOG_LOG_ROLE_H_

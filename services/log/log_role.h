// LogRole: the log service's writer thread, tail hub and gRPC service.
//
// Thread safety: Start/Stop from one thread.
#ifndef GNOMON_SERVICES_LOG_LOG_ROLE_H_
#define GNOMON_SERVICES_LOG_LOG_ROLE_H_

#include <functional>
#include <thread>
#include <vector>

#include "services/log/log_service.h"
#include "services/log/retention.h"

namespace gnomon::logsvc {

class LogRole {
 public:
  LogRole(store::Store* store, Authenticator* auth, ReportWriterOptions options,
          RetentionOptions retention, Clock* clock = &RealClock())
      : writer_(store, clock, options),
        service_(store, auth, &writer_, &hub_),
        retention_(store, clock, retention) {
    ConnectTailHub(&writer_, &hub_);
  }
  ~LogRole() { Stop(); }

  grpc::Service* service() { return &service_; }
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
    retention_thread_ = std::thread([this] { retention_.Run(); });
  }
  void Stop() {
    writer_.Stop();
    retention_.Stop();
    if (thread_.joinable()) thread_.join();
    if (retention_thread_.joinable()) retention_thread_.join();
  }

 private:
  ReportWriter writer_;
  LogTailHub hub_;
  LogServiceImpl service_;
  Retention retention_;
  std::thread thread_;
  std::thread retention_thread_;
};

}  // namespace gnomon::logsvc

#endif  // GNOMON_SERVICES_LOG_LOG_ROLE_H_

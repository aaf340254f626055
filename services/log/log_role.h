// LogRole: the log service's writer thread, tail hub and gRPC service.
//
// Thread safety: Start/Stop from one thread.
#ifndef GNOMON_SERVICES_LOG_LOG_ROLE_H_
#define GNOMON_SERVICES_LOG_LOG_ROLE_H_

#include <thread>

#include "services/log/log_service.h"

namespace gnomon::logsvc {

class LogRole {
 public:
  LogRole(store::Store* store, Authenticator* auth, ReportWriterOptions options,
          Clock* clock = &RealClock())
      : writer_(store, clock, options), service_(store, auth, &writer_, &hub_) {
    ConnectTailHub(&writer_, &hub_);
  }
  ~LogRole() { Stop(); }

  grpc::Service* service() { return &service_; }
  void Start() { thread_ = std::thread([this] { writer_.Run(); }); }
  void Stop() {
    writer_.Stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  ReportWriter writer_;
  LogTailHub hub_;
  LogServiceImpl service_;
  std::thread thread_;
};

}  // namespace gnomon::logsvc

#endif  // GNOMON_SERVICES_LOG_LOG_ROLE_H_

// HealthMonitor: keeps grpc.health.v1.Health telling the truth. Every
// `interval` it runs each service's check (its store reachable, a scheduler
// holding the partitions it should) and sets that service's status; the
// overall status ("") — what the readiness probe asks — is SERVING only
// while every check passes. The service "liveness" stays SERVING until the
// server shuts down: a store outage makes a pod unready, never restarts it.
// Changes are logged with the reason.
//
//   HealthMonitor monitor(server.server()->GetHealthCheckService(), &RealClock());
//   monitor.Add("gnomon.v1.JobAdmin", [&] { return store->Ping(); });
//   monitor.Start();
//   monitor.Stop();
//
// Thread safety: Add before Start; Start and Stop from one thread.
#ifndef GNOMON_SERVICES_COMMON_SERVER_HEALTH_MONITOR_H_
#define GNOMON_SERVICES_COMMON_SERVER_HEALTH_MONITOR_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/health_check_service_interface.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"

namespace gnomon {

inline constexpr char kLivenessService[] = "liveness";
// The detail "is this process behind the work offered?" (OverloadMonitor):
// NOT_SERVING while behind; readiness does not depend on it.
inline constexpr char kOverloadHealthService[] = "gnomon.overload";

class HealthMonitor {
 public:
  // OK: serving; otherwise the reason it is not (logged on change).
  using Check = std::function<absl::Status()>;

  HealthMonitor(grpc::HealthCheckServiceInterface* health, Clock* clock,
                absl::Duration interval = absl::Seconds(1))
      : health_(health), interval_(interval), worker_(clock) {}

  void Add(std::string service, Check check) {
    checks_.push_back({std::move(service), std::move(check), true, true});
  }
  // A detail: `service` answers as the check says, but the overall status
  // (readiness) does not depend on it, and changes are not logged (its
  // owner logs them). gnomond's "gnomon.overload" says whether the process
  // is behind the work offered: a reason to look, not to take it out of
  // service.
  void AddDetail(std::string service, Check check) {
    checks_.push_back({std::move(service), std::move(check), true, false});
  }
  // One pass: runs every check and sets the statuses.
  void CheckNow();
  // Passes every interval, on its own thread, until Stop().
  void Start() {
    worker_.Start(interval_, [this] { CheckNow(); });
  }
  void Stop() { worker_.Stop(); }

 private:
  struct Entry {
    std::string service;
    Check check;
    bool serving;  // As last set.
    bool gates;    // Whether the overall status depends on it (else: a detail).
  };

  grpc::HealthCheckServiceInterface* const health_;
  const absl::Duration interval_;
  std::vector<Entry> checks_;  // The worker's thread only, after the Adds.
  PeriodicWorker worker_;
};

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_HEALTH_MONITOR_H_

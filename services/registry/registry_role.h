// RegistryRole: the registry's core (with its expiry thread) and gRPC service.
//
// Thread safety: Start/Stop from one thread.
#ifndef GNOMON_SERVICES_REGISTRY_REGISTRY_ROLE_H_
#define GNOMON_SERVICES_REGISTRY_REGISTRY_ROLE_H_

#include <memory>

#include "services/common/metrics/metrics_registry.h"
#include "services/common/store/store.h"
#include "services/registry/registry_core.h"
#include "services/registry/registry_metrics.h"
#include "services/registry/registry_service.h"

namespace gnomon::registry {

class RegistryRole {
 public:
  // `registry` (may be null: not measured) must outlive the role.
  RegistryRole(store::Store* store, Authenticator* auth, RegistryOptions options,
               metrics::MetricsRegistry* registry = nullptr, Clock* clock = &RealClock())
      : metrics_(registry != nullptr ? std::make_unique<RegistryMetrics>(*registry) : nullptr),
        core_(store, clock, options, metrics_.get()),
        service_(&core_, auth, store) {
    if (registry != nullptr) scrape_hook_ = registry->OnScrape([this] { core_.RefreshMetrics(); });
  }
  ~RegistryRole() { Stop(); }

  grpc::Service* service() { return &service_; }
  void Start() { core_.StartExpiry(); }
  // Ends every session (executors reconnect elsewhere) and the expiry thread.
  void Stop() { core_.Stop(); }

 private:
  const std::unique_ptr<RegistryMetrics> metrics_;
  RegistryCore core_;
  RegistryService service_;
  metrics::ScrapeHook scrape_hook_;  // Last: unregistered before core_ goes.
};

}  // namespace gnomon::registry

#endif  // GNOMON_SERVICES_REGISTRY_REGISTRY_ROLE_H_

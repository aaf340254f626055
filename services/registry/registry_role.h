// RegistryRole: the registry's core, gRPC service and reaper thread.
//
// Thread safety: Start/Stop from one thread.
#ifndef GNOMON_SERVICES_REGISTRY_REGISTRY_ROLE_H_
#define GNOMON_SERVICES_REGISTRY_REGISTRY_ROLE_H_

#include <thread>

#include "services/registry/registry_core.h"
#include "services/registry/registry_service.h"

namespace gnomon::registry {

class RegistryRole {
 public:
  RegistryRole(store::Store* store, Authenticator* auth, RegistryOptions options,
               Clock* clock = &RealClock())
      : core_(store, clock, options), service_(&core_, auth) {}
  ~RegistryRole() { Stop(); }

  grpc::Service* service() { return &service_; }
  void Start() { reaper_ = std::thread([this] { core_.RunReaper(); }); }
  // Ends every session (executors reconnect elsewhere) and the reaper.
  void Stop() {
    core_.Stop();
    if (reaper_.joinable()) reaper_.join();
  }

 private:
  RegistryCore core_;
  RegistryService service_;
  std::thread reaper_;
};

}  // namespace gnomon::registry

#endif  // GNOMON_SERVICES_REGISTRY_REGISTRY_ROLE_H_

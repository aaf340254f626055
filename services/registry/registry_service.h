// RegistryService: the gRPC adapter of gnomon.v1.Registry over RegistryCore.
//
// Session (one per connected executor): the call must carry the group's
// access token (checked from metadata before anything is read, and again
// every kGroupRecheck); the first message must be Register; then Beats, each
// acknowledged, until Deregister or the stream ends. It uses gRPC's callback
// API: a connected executor holds no thread between its messages.
// WatchExecutors: for schedulers (admin or cluster token); synchronous (one
// server thread per watch, and schedulers are few).
//
//   RegistryService service(&core, &auth, store);
//   builder.RegisterService(&service);  // Outlives the server's Shutdown.
//
// Thread safety: gRPC calls it from many threads; membership lives in
// RegistryCore, and each session's stream state under its own mutex.
#ifndef GNOMON_SERVICES_REGISTRY_REGISTRY_SERVICE_H_
#define GNOMON_SERVICES_REGISTRY_REGISTRY_SERVICE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "services/common/server/authenticator.h"
#include "services/common/store/job_store.h"
#include "services/registry/registry_core.h"

namespace gnomon::registry {

class RegistryService final
    : public v1::Registry::WithCallbackMethod_Session<v1::Registry::Service> {
 public:
  // `store` names the apps of the groups a scoped watcher is granted.
  // `groups` is read for the groups an executor may join.
  RegistryService(RegistryCore* core, Authenticator* auth, store::JobStore* groups)
      : core_(core), auth_(auth), groups_(groups) {}

  grpc::ServerBidiReactor<v1::SessionRequest, v1::SessionResponse>* Session(
      grpc::CallbackServerContext* context) override;
  grpc::Status WatchExecutors(grpc::ServerContext* context,
                              const v1::WatchExecutorsRequest* request,
                              grpc::ServerWriter<v1::WatchExecutorsResponse>* writer) override;

 private:
  class SessionStream;

  // The apps `access` may watch of those the request asks for (all it
  // reaches when it asks for none); PermissionDenied beyond them.
  absl::StatusOr<std::vector<std::string>> WatchableApps(const Access& access,
                                                         const v1::WatchExecutorsRequest& request);
  RegistryCore* const core_;
  Authenticator* const auth_;
  store::JobStore* const groups_;
};

}  // namespace gnomon::registry

#endif  // GNOMON_SERVICES_REGISTRY_REGISTRY_SERVICE_H_

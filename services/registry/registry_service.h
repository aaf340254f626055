// RegistryService: the gRPC adapter of gnomon.v1.Registry over RegistryCore.
//
// Session: the first message must be Register and the call must carry the
// group's access token; then Beats until Deregister or the stream ends.
// WatchExecutors: for schedulers (admin or cluster token).
//
// Thread safety: gRPC calls it from many threads; state lives in RegistryCore.
#ifndef GNOMON_SERVICES_REGISTRY_REGISTRY_SERVICE_H_
#define GNOMON_SERVICES_REGISTRY_REGISTRY_SERVICE_H_

#include "gnomon/v1/registry.grpc.pb.h"
#include "services/common/server/authenticator.h"
#include "services/common/store/job_store.h"
#include "services/registry/registry_core.h"

namespace gnomon::registry {

class RegistryService final : public v1::Registry::Service {
 public:
  // `store` names the apps of the groups a scoped watcher is granted.
  // `groups` is read for the groups an executor may join.
  RegistryService(RegistryCore* core, Authenticator* auth, store::JobStore* groups)
      : core_(core), auth_(auth), groups_(groups) {}

  grpc::Status Session(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::SessionResponse, v1::SessionRequest>* stream) override;
  grpc::Status WatchExecutors(grpc::ServerContext* context,
                              const v1::WatchExecutorsRequest* request,
                              grpc::ServerWriter<v1::WatchExecutorsResponse>* writer) override;

 private:
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

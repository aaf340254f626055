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
#include "services/registry/registry_core.h"

namespace gnomon::registry {

class RegistryService final : public v1::Registry::Service {
 public:
  RegistryService(RegistryCore* core, Authenticator* auth) : core_(core), auth_(auth) {}

  grpc::Status Session(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::SessionResponse, v1::SessionRequest>* stream) override;
  grpc::Status WatchExecutors(grpc::ServerContext* context,
                              const v1::WatchExecutorsRequest* request,
                              grpc::ServerWriter<v1::WatchExecutorsResponse>* writer) override;

 private:
  RegistryCore* const core_;
  Authenticator* const auth_;
};

}  // namespace gnomon::registry

#endif  // GNOMON_SERVICES_REGISTRY_REGISTRY_SERVICE_H_

#include "services/registry/registry_service.h"

#include <vector>

#include "google/protobuf/util/time_util.h"
#include "services/common/server/grpc_status.h"
#include "services/registry/session_validation.h"

namespace gnomon::registry {

using google::protobuf::util::TimeUtil;

grpc::Status RegistryService::Session(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::SessionResponse, v1::SessionRequest>* stream) {
  // The app to authenticate comes from metadata, so nothing is read from an
  // unauthenticated caller.
  absl::StatusOr<Caller> caller = auth_->Authorize(*context, v1::Registry::service_full_name(), __func__);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  v1::SessionRequest first;
  if (!stream->Read(&first)) return grpc::Status::OK;
  if (!first.has_register_()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "session: the first message must be register");
  }
  const v1::Register& reg = first.register_();
  if (absl::Status s = ValidateRegister(reg); !s.ok()) return ToGrpcStatus(s);
  // The caller is authenticated for its own app only; naming another one is a
  // protocol error, not a credential question.
  if (reg.app_name() != caller->group.app_name()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "register.app_name must equal the x-gnomon-app metadata");
  }
  absl::StatusOr<uint64_t> session = core_->Join(reg, [context] { context->TryCancel(); });
  if (!session.ok()) return ToGrpcStatus(session.status());

  v1::SessionResponse registered;
  const RegistryOptions& opts = core_->options();
  *registered.mutable_registered()->mutable_beat_interval() =
      TimeUtil::MillisecondsToDuration(absl::ToInt64Milliseconds(opts.beat_interval));
  *registered.mutable_registered()->mutable_beat_timeout() = TimeUtil::MillisecondsToDuration(
      absl::ToInt64Milliseconds(opts.beat_interval * opts.missed_beats));
  if (!stream->Write(registered)) {
    core_->Leave(*session, "stream broken");
    return grpc::Status::OK;
  }

  v1::SessionRequest req;
  while (stream->Read(&req)) {
    absl::Status valid = req.has_beat()         ? ValidateBeat(req.beat())
                         : req.has_deregister() ? ValidateDeregister(req.deregister())
                                                : absl::OkStatus();
    if (!valid.ok()) {
      core_->Leave(*session, "protocol error");
      return ToGrpcStatus(valid);
    }
    if (req.has_beat()) {
      if (absl::Status s = core_->Beat(*session, req.beat()); !s.ok()) {
        // Reaped for missed beats while this message was in flight.
        return ToGrpcStatus(s);
      }
      v1::SessionResponse ack;
      ack.mutable_beat_ack();
      if (!stream->Write(ack)) break;
    } else if (req.has_deregister()) {
      core_->Leave(*session, "deregistered: " + req.deregister().reason());
      return grpc::Status::OK;
    } else {
      core_->Leave(*session, "protocol error");
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          req.has_register_() ? "session: register sent twice"
                                              : "session: empty message");
    }
  }
  core_->Leave(*session, context->IsCancelled() ? "stream cancelled" : "stream closed");
  return grpc::Status::OK;
}

grpc::Status RegistryService::WatchExecutors(grpc::ServerContext* context,
                                             const v1::WatchExecutorsRequest* request,
                                             grpc::ServerWriter<v1::WatchExecutorsResponse>* writer) {
  if (auto caller = auth_->Authorize(*context, v1::Registry::service_full_name(), __func__); !caller.ok()) {
    return ToGrpcStatus(caller.status());
  }
  if (absl::Status s = ValidateWatchRequest(*request); !s.ok()) return ToGrpcStatus(s);
  std::vector<std::string> apps(request->app_names().begin(), request->app_names().end());
  std::shared_ptr<Watcher> watcher = core_->Watch(std::move(apps));
  while (!context->IsCancelled()) {
    std::optional<v1::WatchExecutorsResponse> msg = watcher->Next(absl::Milliseconds(500));
    if (!msg) {
      if (watcher->closed()) break;
      continue;
    }
    if (!writer->Write(*msg)) break;
  }
  watcher->Close();
  return context->IsCancelled() ? grpc::Status::CANCELLED
                                : grpc::Status(grpc::StatusCode::UNAVAILABLE, "registry stopping");
}

}  // namespace gnomon::registry

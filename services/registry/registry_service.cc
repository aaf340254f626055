#include "services/registry/registry_service.h"

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/client/log.h"
#include "services/common/server/field_checks.h"
#include "services/common/server/grpc_status.h"
#include "services/common/server/stream_credentials.h"
#include "services/common/status/status_macros.h"
#include "services/registry/session_validation.h"

namespace gnomon::registry {

using google::protobuf::util::TimeUtil;

grpc::Status RegistryService::Session(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::SessionResponse, v1::SessionRequest>* stream) {
  // The app to authenticate comes from metadata, so nothing is read from an
  // unauthenticated caller.
  absl::StatusOr<Caller> caller =
      auth_->Authorize(*context, v1::Registry::service_full_name(), __func__);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  // Now and then: is the session's token still accepted? A rotation makes it
  // the previous token (the executor is told until when), and once that
  // expires the session ends (and with it, dispatches to it).
  StreamCredentials creds(auth_, *context, v1::Registry::service_full_name(), __func__,
                          *std::move(caller), kGroupRecheck);
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
  if (reg.app_name() != creds.caller().group.app_name()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "register.app_name must equal the x-gnomon-app metadata");
  }
  const std::optional<int64_t> token_expires = creds.caller().token_expires_ms;
  absl::StatusOr<uint64_t> session = core_->Join(
      reg, [context] { context->TryCancel(); }, creds.caller().token_fingerprint);
  if (!session.ok()) return ToGrpcStatus(session.status());
  if (token_expires) {
    GNOMON_LOG(WARNING) << "registry: executor " << reg.address() << " of app \"" << reg.app_name()
                        << "\" presents its group's previous access token, accepted until "
                        << absl::FormatTime(absl::FromUnixMillis(*token_expires))
                        << " (restart it with the new one)";
  }

  v1::SessionResponse registered;
  const RegistryOptions& opts = core_->options();
  *registered.mutable_registered()->mutable_beat_interval() =
      TimeUtil::MillisecondsToDuration(absl::ToInt64Milliseconds(opts.beat_interval));
  *registered.mutable_registered()->mutable_beat_timeout() = TimeUtil::MillisecondsToDuration(
      absl::ToInt64Milliseconds(opts.beat_interval * opts.missed_beats));
  if (token_expires) {
    *registered.mutable_registered()->mutable_token_expire_time() =
        TimeUtil::MillisecondsToTimestamp(*token_expires);
  }
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
      // The message names the field and its limit (and quotes no long value).
      core_->Leave(*session, absl::StrCat("protocol error: ", valid.message()));
      return ToGrpcStatus(valid);
    }
    if (req.has_beat()) {
      v1::SessionResponse ack;
      ack.mutable_beat_ack();
      if (absl::Status s = creds.Check(); !s.ok()) {
        core_->Leave(*session, "its group's access token was rotated out");
        return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                            "the group's access token was rotated and the one this executor "
                            "presents is no longer accepted; restart it with the new token");
      }
      if (std::optional<int64_t> expires = creds.caller().token_expires_ms) {
        *ack.mutable_beat_ack()->mutable_token_expire_time() =
            TimeUtil::MillisecondsToTimestamp(*expires);
      }
      if (absl::Status s = core_->Beat(*session, req.beat()); !s.ok()) {
        // Reaped for missed beats while this message was in flight.
        return ToGrpcStatus(s);
      }
      if (!stream->Write(ack)) break;
    } else if (req.has_deregister()) {
      core_->Leave(*session, "deregistered: " + req.deregister().reason());
      return grpc::Status::OK;
    } else {
      core_->Leave(*session, "protocol error");
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, req.has_register_()
                                                                  ? "session: register sent twice"
                                                                  : "session: empty message");
    }
  }
  core_->Leave(*session, context->IsCancelled() ? "stream cancelled" : "stream closed");
  return grpc::Status::OK;
}

absl::StatusOr<std::vector<std::string>> RegistryService::WatchableApps(
    const Access& access, const v1::WatchExecutorsRequest& request) {
  std::vector<std::string> asked(request.app_names().begin(), request.app_names().end());
  if (access.AllGroups()) return asked;
  // A scoped caller watches the apps of its granted groups, and no others.
  ASSIGN_OR_RETURN(std::vector<v1::Group> groups, groups_->ListGroups());
  absl::flat_hash_set<std::string> reached;
  for (const v1::Group& g : groups) {
    if (access.Reaches(g.id())) reached.insert(g.app_name());
  }
  for (size_t i = 0; i < asked.size(); ++i) {
    if (!reached.contains(asked[i])) {
      return absl::PermissionDeniedError(
          absl::StrCat(checks::Indexed("app_names", static_cast<int>(i)),
                       ": not in a group this credential is granted"));
    }
  }
  if (!asked.empty()) return asked;
  if (reached.empty()) return absl::PermissionDeniedError("this credential is granted no group");
  return std::vector<std::string>(reached.begin(), reached.end());
}

grpc::Status RegistryService::WatchExecutors(
    grpc::ServerContext* context, const v1::WatchExecutorsRequest* request,
    grpc::ServerWriter<v1::WatchExecutorsResponse>* writer) {
  auto caller = auth_->Authorize(*context, v1::Registry::service_full_name(), __func__);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (absl::Status s = ValidateWatchRequest(*request); !s.ok()) return ToGrpcStatus(s);
  absl::StatusOr<std::vector<std::string>> apps = WatchableApps(caller->access, *request);
  if (!apps.ok()) return ToGrpcStatus(apps.status());
  std::shared_ptr<Watcher> watcher = core_->Watch(*apps);
  // A watch lasts as long as its watcher: its credential is checked again as
  // it goes, and a caller whose grants no longer reach an app it watches
  // (a user's, narrowed) is refused.
  StreamCredentials creds(auth_, *context, v1::Registry::service_full_name(), __func__,
                          *std::move(caller), kBearerRecheck);
  auto still_reaches = [&](const Access& access) -> absl::Status {
    ASSIGN_OR_RETURN(std::vector<std::string> now, WatchableApps(access, *request));
    absl::flat_hash_set<std::string> reached(now.begin(), now.end());
    for (const std::string& app : *apps) {
      if (!reached.contains(app)) {
        return absl::PermissionDeniedError(
            "a watched app is no longer in a group this "
            "credential is granted");
      }
    }
    return absl::OkStatus();
  };
  while (!context->IsCancelled()) {
    if (absl::Status s = creds.Check(still_reaches); !s.ok()) {
      watcher->Close();
      return ToGrpcStatus(s);
    }
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

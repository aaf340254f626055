#include "services/registry/registry_service.h"

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "google/protobuf/util/time_util.h"
#include "proto/decoding/request_decoding.h"
#include "services/common/client/auth_metadata.h"
#include "services/common/client/log.h"
#include "services/common/server/field_checks.h"
#include "services/common/server/grpc_status.h"
#include "services/common/server/stream_credentials.h"
#include "services/common/status/status_macros.h"
#include "services/registry/session_validation.h"

namespace gnomon::registry {

using google::protobuf::util::TimeUtil;

namespace {

using SessionReactor = grpc::ServerBidiReactor<v1::SessionRequest, v1::SessionResponse>;

// Replies (beat acknowledgements) waiting behind the write in flight at
// most; past it, the next message is read once the writes catch up, so an
// executor that sends without reading cannot queue without bound.
constexpr size_t kMaxQueuedReplies = 8;

// Ends a refused call at once.
class Refused final : public SessionReactor {
 public:
  explicit Refused(grpc::Status status) { Finish(std::move(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

// One executor's session. Reactions: OnReadDone for each message (the first
// is Register), OnWriteDone for Registered and each BeatAck. One read and
// one write at most are in flight; a reply is queued behind the write in
// flight. The stream ends through End (Finish, called exactly once, never
// under mu_: its completion may run OnDone at once).
//
// Lifetime: the stream holds itself (self_) until OnDone; the registry's
// cancel callback holds a weak_ptr, so a cancel that comes late (the
// executor reaped as its stream ends) finds it gone or finishing, and does
// nothing. A cancel cancels the call (as the synchronous handler did), and
// the read or write it fails ends the stream.
//
// Each reaction takes mu_ before it touches the stream's state and starts the
// next read or write under it, which also orders (for ThreadSanitizer, which
// does not see inside gRPC) what reactions on different threads touch.
class RegistryService::SessionStream final : public SessionReactor {
 public:
  // Starts reading the first message.
  static SessionReactor* Open(RegistryCore* core, grpc::CallbackServerContext* context,
                              Authenticator* auth, Authenticator::MetadataLookup metadata,
                              Caller caller) {
    auto s = std::shared_ptr<SessionStream>(
        new SessionStream(core, context, auth, std::move(metadata), std::move(caller)));
    absl::MutexLock l(&s->mu_);
    s->self_ = s;
    s->StartRead(&s->in_);
    return s.get();
  }

  void OnReadDone(bool ok) override {
    Phase phase;
    {
      absl::MutexLock l(&mu_);
      if (finishing_) return;
      phase = phase_;
    }
    // A message that did not decode (invalid UTF-8) is refused, naming the
    // field; gRPC reports it as if the executor had closed its stream.
    if (grpc::Status failed = ok ? grpc::Status::OK : in_failure_.Take(); !failed.ok()) {
      std::optional<std::string> leave;
      if (phase != Phase::kRegistering) leave = "protocol error: " + failed.error_message();
      End(std::move(failed), std::move(leave));
      return;
    }
    if (phase == Phase::kRegistering) {
      Register(ok);
    } else if (!ok) {
      End(grpc::Status::OK, ClosedReason());
    } else {
      Serve();
    }
  }

  void OnWriteDone(bool ok) override {
    Phase phase;
    {
      absl::MutexLock l(&mu_);
      writing_ = false;
      if (finishing_) return;
      phase = phase_;
      if (ok && phase == Phase::kWelcoming) {
        // Registered is written: the beats are read from now on.
        phase_ = Phase::kServing;
        StartRead(&in_);
        return;
      }
      if (ok) {
        if (!queue_.empty()) {
          out_ = std::move(queue_.front());
          queue_.pop_front();
          writing_ = true;
          StartWrite(&out_);
        }
        if (read_paused_ && queue_.size() < kMaxQueuedReplies) {
          read_paused_ = false;
          StartRead(&in_);
        }
        return;
      }
    }
    End(grpc::Status::OK, phase == Phase::kWelcoming ? "stream broken" : ClosedReason());
  }

  void OnDone() override {
    std::shared_ptr<SessionStream> self;
    {
      absl::MutexLock l(&mu_);
      self = std::move(self_);
    }
    // `self` may be the last reference: nothing touches this after it.
  }

  // The registry dropped the session (reaped, replaced, stopping): from any
  // thread, at any time.
  void Cancel() {
    absl::MutexLock l(&mu_);
    // Before Finish the call's context is alive, and TryCancel runs no
    // reaction of this stream inline (reads and writes complete on gRPC's
    // threads; OnDone needs Finish, which cannot start while mu_ is held).
    if (!finishing_) context_->TryCancel();
  }

 private:
  enum class Phase {
    kRegistering,  // Reading the first message.
    kWelcoming,    // Writing Registered.
    kServing,      // Reading beats.
  };

  SessionStream(RegistryCore* core, grpc::CallbackServerContext* context, Authenticator* auth,
                Authenticator::MetadataLookup metadata, Caller caller)
      : core_(core),
        context_(context),
        // Now and then: is the session's token still accepted? A rotation
        // makes it the previous token (the executor is told until when), and
        // once that expires the session ends (and with it, dispatches to it).
        creds_(auth, std::move(metadata), v1::Registry::service_full_name(), "Session",
               std::move(caller), kGroupRecheck) {}

  // The first message: Register, then Join and write Registered.
  void Register(bool ok) {
    if (!ok) {
      End(grpc::Status::OK);
      return;
    }
    if (!in_.has_register_()) {
      End(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                       "session: the first message must be register"));
      return;
    }
    const v1::Register& reg = in_.register_();
    if (absl::Status s = ValidateRegister(reg); !s.ok()) {
      End(ToGrpcStatus(s));
      return;
    }
    // The caller is authenticated for its own app only; naming another one
    // is a protocol error, not a credential question.
    if (reg.app_name() != creds_.caller().group.app_name()) {
      End(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                       "register.app_name must equal the x-gnomon-app metadata"));
      return;
    }
    const std::optional<int64_t> token_expires = creds_.caller().token_expires_ms;
    std::weak_ptr<SessionStream> weak;
    {
      absl::MutexLock l(&mu_);
      weak = self_;
    }
    absl::StatusOr<uint64_t> session = core_->Join(
        reg,
        [weak] {
          if (std::shared_ptr<SessionStream> s = weak.lock()) s->Cancel();
        },
        creds_.caller().token_fingerprint);
    if (!session.ok()) {
      End(ToGrpcStatus(session.status()));
      return;
    }
    if (token_expires) {
      GNOMON_LOG(WARNING) << "registry: executor " << reg.address() << " of app \""
                          << reg.app_name()
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
    // Nothing else ends the stream while the first message is handled (a
    // cancel only cancels the call), so the write can start.
    absl::MutexLock l(&mu_);
    session_ = *session;
    phase_ = Phase::kWelcoming;
    out_ = std::move(registered);
    writing_ = true;
    // If the registry cancelled the session meanwhile, this write fails and
    // ends the stream ("stream broken"), as it did before.
    StartWrite(&out_);
  }

  // A message after Register.
  void Serve() {
    absl::Status valid = in_.has_beat()         ? ValidateBeat(in_.beat())
                         : in_.has_deregister() ? ValidateDeregister(in_.deregister())
                                                : absl::OkStatus();
    if (!valid.ok()) {
      // The message names the field and its limit (and quotes no long value).
      End(ToGrpcStatus(valid), absl::StrCat("protocol error: ", valid.message()));
      return;
    }
    if (in_.has_deregister()) {
      End(grpc::Status::OK, "deregistered: " + in_.deregister().reason());
      return;
    }
    if (!in_.has_beat()) {
      End(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, in_.has_register_()
                                                               ? "session: register sent twice"
                                                               : "session: empty message"),
          "protocol error");
      return;
    }
    v1::SessionResponse ack;
    ack.mutable_beat_ack();
    if (absl::Status s = creds_.Check(); !s.ok()) {
      End(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                       "the group's access token was rotated and the one this executor "
                       "presents is no longer accepted; restart it with the new token"),
          "its group's access token was rotated out");
      return;
    }
    if (std::optional<int64_t> expires = creds_.caller().token_expires_ms) {
      *ack.mutable_beat_ack()->mutable_token_expire_time() =
          TimeUtil::MillisecondsToTimestamp(*expires);
    }
    uint64_t session;
    {
      absl::MutexLock l(&mu_);
      session = session_;
    }
    if (absl::Status s = core_->Beat(session, in_.beat()); !s.ok()) {
      // Reaped for missed beats while this message was in flight.
      End(ToGrpcStatus(s));
      return;
    }
    absl::MutexLock l(&mu_);
    if (finishing_) return;
    if (writing_) {
      queue_.push_back(std::move(ack));
    } else {
      out_ = std::move(ack);
      writing_ = true;
      StartWrite(&out_);
    }
    // in_ is not touched again until the next read completes.
    if (queue_.size() < kMaxQueuedReplies) {
      StartRead(&in_);
    } else {
      read_paused_ = true;  // OnWriteDone reads on.
    }
  }

  // Why the stream ended when it was not by a message of the executor's.
  std::string ClosedReason() const {
    return context_->IsCancelled() ? "stream cancelled" : "stream closed";
  }

  // Ends the stream with `status`, unless it is ending already; first, if
  // `leave` is given, the session leaves the registry with that reason.
  // Nothing may touch this after End.
  void End(grpc::Status status, std::optional<std::string> leave = std::nullopt) {
    uint64_t session;
    {
      absl::MutexLock l(&mu_);
      if (finishing_) return;
      finishing_ = true;
      session = session_;
    }
    if (leave) core_->Leave(session, *leave);
    Finish(std::move(status));
  }

  RegistryCore* const core_;
  // Valid until OnDone; used only while the stream is not finishing.
  grpc::CallbackServerContext* const context_;
  // Read by the read reactions only (one at a time).
  StreamCredentials creds_;
  v1::SessionRequest in_;                     // The message read; only reactions to reads touch it.
  proto::ReadFailureWatch in_failure_{&in_};  // Why a read into in_ failed.

  absl::Mutex mu_;
  std::shared_ptr<SessionStream> self_ ABSL_GUARDED_BY(mu_);  // Until OnDone.
  Phase phase_ ABSL_GUARDED_BY(mu_) = Phase::kRegistering;
  uint64_t session_ ABSL_GUARDED_BY(mu_) = 0;  // Once joined.
  bool writing_ ABSL_GUARDED_BY(mu_) = false;  // out_ is being written.
  bool read_paused_ ABSL_GUARDED_BY(mu_) = false;
  // Finish is called or about to be: nothing more starts, and End does nothing.
  bool finishing_ ABSL_GUARDED_BY(mu_) = false;
  v1::SessionResponse out_ ABSL_GUARDED_BY(mu_);
  std::deque<v1::SessionResponse> queue_ ABSL_GUARDED_BY(mu_);
};

SessionReactor* RegistryService::Session(grpc::CallbackServerContext* context) {
  // The metadata copied, so the credentials can be checked again without
  // the call's context. The app to authenticate comes from metadata, so
  // nothing is read from an unauthenticated caller.
  Authenticator::MetadataLookup lookup = CopiedMetadata(*context);
  absl::StatusOr<Caller> caller =
      auth_->Authorize(lookup, v1::Registry::service_full_name(), __func__);
  if (!caller.ok()) return new Refused(ToGrpcStatus(caller.status()));
  return SessionStream::Open(core_, context, auth_, std::move(lookup), *std::move(caller));
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

#include "services/executor-sdk/src/registry_session.h"

#include <cstdlib>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "services/common/client/auth_metadata.h"
#include "services/executor-sdk/src/channels.h"

namespace gnomon::executor::internal {
namespace {

absl::Duration FromProto(const google::protobuf::Duration& d) {
  return absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
}

}  // namespace

RegistrySession::RegistrySession(RegistrySessionOptions options,
                                 std::function<v1::Beat()> beat_source, const Logger* logger)
    : options_(std::move(options)),
      beat_source_(std::move(beat_source)),
      logger_(logger),
      reconnect_({.endpoints = options_.connection.registry_endpoints.size(),
                  .backoff = {.initial = options_.connection.reconnect_initial,
                              .max = options_.connection.reconnect_max}},
                 &mu_, &stopping_) {
  for (const std::string& endpoint : options_.connection.registry_endpoints) {
    channels_.push_back(options_.dial(endpoint));
    stubs_.push_back(v1::Registry::NewStub(channels_.back()));
  }
}

RegistrySession::~RegistrySession() { Stop("executor destroyed"); }

void RegistrySession::Start() {
  absl::MutexLock lock(&mu_);
  if (started_ || stubs_.empty()) return;
  started_ = true;
  reconnect_.Start(
      {.run_stream = [this](size_t index,
                            bool* registered) { return RunSession(index, registered); },
       .ended = [this](size_t index, const grpc::Status& status, bool was_registered,
                       absl::Duration delay)
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(
                        mu_) { LogEnded(index, status, was_registered, delay); }});
}

void RegistrySession::NotifyBusyChanged() {
  absl::MutexLock lock(&mu_);
  dirty_ = true;
}

bool RegistrySession::registered() const {
  absl::MutexLock lock(&mu_);
  return registered_;
}

int RegistrySession::registrations() const {
  absl::MutexLock lock(&mu_);
  return registrations_;
}

void RegistrySession::Stop(const std::string& reason, absl::Duration timeout) {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    stop_reason_ = reason;
    stop_timeout_ = timeout;
    // A session still connecting or registering is cancelled outright; a
    // registered one deregisters itself.
    if (!registered_ && active_context_ != nullptr) active_context_->TryCancel();
  }
  reconnect_.Join();
}

void RegistrySession::LogEnded(size_t index, const grpc::Status& status, bool was_registered,
                               absl::Duration delay) {
  const std::string& endpoint = options_.connection.registry_endpoints[index];
  std::string error = absl::StrCat("registry ", endpoint, ": ", StatusText(status));
  if (IsRefusal(status)) {
    // Say what was refused and the registry's reason (its message names the
    // field and the limit); the credentials only when they were the reason.
    const std::string app = absl::StrCat("app \"", options_.registration.app_name(), "\"");
    logger_->Error(absl::StrCat(
        was_registered
            ? absl::StrCat("registry ", endpoint, " refused a message of the session of ", app,
                           " and ended it: ")
            : absl::StrCat("registry ", endpoint, " refused the registration of ", app, ": "),
        StatusText(status),
        IsCredentialRefusal(status) ? " -- check the app name and access token" : "",
        " (retrying in ", absl::FormatDuration(delay), ")"));
  } else if (was_registered || error != last_error_) {
    logger_->Warning(absl::StrCat("registry session ended, ", error, "; reconnecting"));
  }
  last_error_ = error;
}

void RegistrySession::WarnTokenRotated(const google::protobuf::Timestamp& expires) const {
  logger_->Warning(
      absl::StrCat("the access token of app \"", options_.registration.app_name(),
                   "\" was rotated: the one this executor presents is accepted only until ",
                   absl::FormatTime(absl::RFC3339_sec, absl::FromUnixSeconds(expires.seconds()),
                                    absl::UTCTimeZone()),
                   "; restart it with the new token (GNOMON_ACCESS_TOKEN) before then"));
}

grpc::Status RegistrySession::RunSession(size_t index, bool* was_registered) {
  grpc::ClientContext context;
  context.AddMetadata(std::string(kAccessTokenKey), options_.connection.access_token);
  // The registry authenticates the app named here before reading Register.
  context.AddMetadata(std::string(kAppNameKey), options_.registration.app_name());
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return grpc::Status(grpc::StatusCode::CANCELLED, "stopping");
    active_context_ = &context;
    broken_ = false;
  }
  ReadyForAttempt(channels_[index].get());
  auto stream = stubs_[index]->Session(&context);
  auto finish = [&] {
    grpc::Status status = stream->Finish();
    absl::MutexLock lock(&mu_);
    active_context_ = nullptr;
    registered_ = false;
    return status;
  };
  v1::SessionRequest request;
  *request.mutable_register_() = options_.registration;
  v1::SessionResponse response;
  if (!stream->Write(request) || !stream->Read(&response)) return finish();
  if (!response.has_registered()) {
    context.TryCancel();
    grpc::Status status = finish();
    return grpc::Status(
        grpc::StatusCode::INTERNAL,
        "registry answered Register without Registered (" + StatusText(status) + ")");
  }
  absl::Duration interval = FromProto(response.registered().beat_interval());
  if (interval <= absl::ZeroDuration()) interval = absl::Seconds(10);
  *was_registered = true;
  {
    absl::MutexLock lock(&mu_);
    registered_ = true;
    ++registrations_;
    last_error_.clear();
    logger_->Info(absl::StrCat("registered app \"", options_.registration.app_name(), "\" at ",
                               options_.registration.address(), " with registry ",
                               options_.connection.registry_endpoints[index], " (beat every ",
                               absl::FormatDuration(interval), ")"));
    if (response.registered().has_token_expire_time())
      WarnTokenRotated(response.registered().token_expire_time());
    // A session that registered while Stop() was waiting must deregister now.
  }
  std::thread reader([&] {
    v1::SessionResponse ack;
    bool warned = response.registered().has_token_expire_time();
    while (stream->Read(&ack)) {
      // The token was rotated while this session was open: said once.
      if (!warned && ack.beat_ack().has_token_expire_time()) {
        WarnTokenRotated(ack.beat_ack().token_expire_time());
        warned = true;
      }
    }
    absl::MutexLock lock(&mu_);
    broken_ = true;
  });
  absl::Time last_beat = absl::Now();
  absl::Time next_beat = last_beat + interval;
  while (true) {
    mu_.Lock();
    auto wake = [this]()
                    ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || broken_ || dirty_; };
    mu_.AwaitWithDeadline(absl::Condition(&wake), next_beat);
    if (!stopping_ && !broken_ && dirty_) {
      auto stop_or_broken = [this]()
                                ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || broken_; };
      mu_.AwaitWithDeadline(absl::Condition(&stop_or_broken), last_beat + options_.min_beat_gap);
    }
    bool stopping = stopping_;
    bool broken = broken_;
    std::string reason = stop_reason_;
    absl::Duration stop_timeout = stop_timeout_;
    dirty_ = false;
    mu_.Unlock();
    if (broken) break;
    if (stopping) {
      v1::SessionRequest bye;
      bye.mutable_deregister()->set_reason(reason);
      if (stream->Write(bye)) stream->WritesDone();
      absl::MutexLock lock(&mu_);
      if (!mu_.AwaitWithTimeout(absl::Condition(&broken_), stop_timeout)) context.TryCancel();
      break;
    }
    v1::SessionRequest beat;
    *beat.mutable_beat() = beat_source_();
    double load[1] = {0};
    if (getloadavg(load, 1) == 1) beat.mutable_beat()->set_load(load[0]);
    if (!stream->Write(beat)) break;
    last_beat = absl::Now();
    next_beat = last_beat + interval;
  }
  reader.join();
  return finish();
}

}  // namespace gnomon::executor::internal

// RegistrySession: keeps this executor registered through one long-lived
// Registry.Session stream.
//
// Sends Register, waits for Registered{beat_interval}, then a Beat every
// interval and promptly (at most every 100 ms) after NotifyBusyChanged().
// A broken stream or a refusal reconnects with jittered backoff, rotating
// through the endpoints; refusals for the token or the request are logged as
// errors with the registry's status code and message (what it refused and
// why). Stop() sends Deregister.
//
//   RegistrySession session(options, [&] { return manager.BeatState(); }, &logger);
//   session.Start();
//   session.NotifyBusyChanged();
//   session.Stop("shutdown");
//
// Thread safety: all methods are thread-safe.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_REGISTRY_SESSION_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_REGISTRY_SESSION_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gnomon/executor/options.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "services/executor-sdk/src/channels.h"
#include "services/executor-sdk/src/logger.h"
#include "services/executor-sdk/src/reconnecting_stream.h"

namespace gnomon::executor::internal {

struct RegistrySessionOptions {
  // Registry endpoints, token and reconnect backoff.
  ConnectionOptions connection;
  Dialer dial;  // Makes the channel to an endpoint (TLS or not).
  v1::Register registration;
  absl::Duration min_beat_gap = absl::Milliseconds(100);
};

class RegistrySession {
 public:
  RegistrySession(RegistrySessionOptions options, std::function<v1::Beat()> beat_source,
                  const Logger* logger);
  ~RegistrySession();  // Stop("executor destroyed")
  RegistrySession(const RegistrySession&) = delete;
  RegistrySession& operator=(const RegistrySession&) = delete;

  void Start();
  // Sends a beat soon (busy state changed).
  void NotifyBusyChanged();
  // Deregisters (waiting up to `timeout` for the registry to close the stream)
  // and stops reconnecting. Idempotent.
  void Stop(const std::string& reason, absl::Duration timeout = absl::Seconds(2));
  // True while a session is registered.
  bool registered() const;
  // Completed registrations since Start (for tests and diagnostics).
  int registrations() const;

 private:
  // After a session ended (not stopping): logs why, once per new error.
  void LogEnded(size_t index, const grpc::Status& status, bool was_registered, absl::Duration delay)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One session; returns its final status and whether it registered.
  // Logs that the session's token was rotated out and until when it works.
  void WarnTokenRotated(const google::protobuf::Timestamp& expires) const;
  grpc::Status RunSession(size_t index, bool* registered);

  const RegistrySessionOptions options_;
  const std::function<v1::Beat()> beat_source_;
  const Logger* const logger_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;  // One per endpoint.
  std::vector<std::unique_ptr<v1::Registry::Stub>> stubs_;

  mutable absl::Mutex mu_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  std::string stop_reason_ ABSL_GUARDED_BY(mu_);
  absl::Duration stop_timeout_ ABSL_GUARDED_BY(mu_);
  bool dirty_ ABSL_GUARDED_BY(mu_) = false;
  bool broken_ ABSL_GUARDED_BY(mu_) = false;
  bool registered_ ABSL_GUARDED_BY(mu_) = false;
  int registrations_ ABSL_GUARDED_BY(mu_) = 0;
  grpc::ClientContext* active_context_ ABSL_GUARDED_BY(mu_) = nullptr;
  std::string last_error_ ABSL_GUARDED_BY(mu_);
  ReconnectingStream reconnect_;
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_REGISTRY_SESSION_H_

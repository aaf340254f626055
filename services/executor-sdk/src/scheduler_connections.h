// SchedulerConnections: keeps one Dispatch.Connect stream open to every
// gnomond replica, answering what gnomond sends on it. Executors open no
// port: runs, probes and calls reach them over these streams.
//
// The scheduler endpoints are resolved at Start and again every
// connection.scheduler_resolve_interval (IPv4 addresses if an endpoint has
// any, else IPv6), so a Kubernetes headless Service name reaches every pod,
// including new ones. Every distinct resolved "ip:port" gets a link: its own
// thread and reconnect loop (ReconnectingStream, one endpoint, jittered
// backoff). A link opens the stream with the group's credentials in metadata,
// reads Welcome{replica_id}, sends Hello and then, on its thread, reads a
// message, answers it (`answer` for runs, `reply` for calls) and writes the
// answer. A link whose Welcome names a replica another open link already
// reaches (one replica under two addresses) ends its stream without Hello and
// tries again after its backoff. Links to addresses no longer resolved are
// closed; an endpoint that fails to resolve keeps its links.
//
//   SchedulerConnections connections(std::move(options),
//       [&](const v1::DispatchRequest& r) { return service.Answer(r); },
//       [&](const v1::Call& c) { return service.Reply(c); }, &logger);
//   connections.Start();
//   ...
//   connections.Stop();  // after the runs drained: answers in progress are written first
//
// Thread safety: all methods are thread-safe; `answer` and `reply` are called
// from several links' threads at once.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_SCHEDULER_CONNECTIONS_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_SCHEDULER_CONNECTIONS_H_

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "gnomon/executor/options.h"
#include "gnomon/v1/executor.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "services/executor-sdk/src/channels.h"
#include "services/executor-sdk/src/logger.h"

namespace gnomon::executor::internal {

// Resolves "host:port" ("[v6]:port") with getaddrinfo to sorted, distinct
// "ip:port" addresses: the IPv4 ones if there are any, else the IPv6 ones
// ("[ip]:port"), so "localhost:7070" gives one address.
absl::StatusOr<std::vector<std::string>> ResolveEndpoint(const std::string& endpoint);

// The host of "host:port" without brackets ("[::1]:80" -> "::1").
std::string EndpointHost(const std::string& endpoint);

struct SchedulerConnectionsOptions {
  // App name, token, scheduler endpoints (SchedulerEndpoints), resolve
  // interval and reconnect backoff.
  ConnectionOptions connection;
  // One per endpoint of SchedulerEndpoints(connection), in its order: dials
  // the endpoint's resolved addresses (verifying the endpoint's host name).
  std::vector<Dialer> dial;
  // Sent after Welcome on every stream.
  v1::Hello hello;
  // Unset: ResolveEndpoint (tests substitute their own).
  std::function<absl::StatusOr<std::vector<std::string>>(const std::string& endpoint)> resolve;
};

class SchedulerConnections {
 public:
  using AnswerFn = std::function<v1::DispatchResponse(const v1::DispatchRequest&)>;
  using ReplyFn = std::function<v1::CallReply(const v1::Call&)>;

  SchedulerConnections(SchedulerConnectionsOptions options, AnswerFn answer, ReplyFn reply,
                       const Logger* logger);
  ~SchedulerConnections();  // Stop()
  SchedulerConnections(const SchedulerConnections&) = delete;
  SchedulerConnections& operator=(const SchedulerConnections&) = delete;

  void Start();
  // Closes every stream and stops reconnecting. A message being answered is
  // answered first (for up to a second). Idempotent.
  void Stop();

  // Streams open past Hello.
  int connected() const;
  // Addresses with a link (streaming or reconnecting), sorted.
  std::vector<std::string> addresses() const;

 private:
  struct Link;

  // Resolves, updates the links, waits; until stopped.
  void ResolveLoop();
  // With the resolved addresses (address -> endpoint index; `failed`
  // endpoints keep their links): starts new links, returns the links to
  // close (stopped and cancelled, not yet joined).
  std::vector<std::unique_ptr<Link>> Apply(const std::map<std::string, size_t>& resolved,
                                           const std::vector<bool>& failed)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One stream of `link`, until it ends.
  grpc::Status RunStream(Link& link, bool* progressed);
  void LogEnded(Link& link, const grpc::Status& status, absl::Duration delay)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // "ADDR" or "ADDR (ENDPOINT)" when they differ.
  std::string Describe(const Link& link) const;

  const SchedulerConnectionsOptions options_;
  const std::vector<std::string> endpoints_;
  const AnswerFn answer_;
  const ReplyFn reply_;
  const Logger* const logger_;

  mutable absl::Mutex mu_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, std::unique_ptr<Link>> links_ ABSL_GUARDED_BY(mu_);
  // Last resolution error per endpoint index (logged when it changes).
  std::map<size_t, std::string> resolve_errors_ ABSL_GUARDED_BY(mu_);
  std::thread resolver_;
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_SCHEDULER_CONNECTIONS_H_

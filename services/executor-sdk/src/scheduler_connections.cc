#include "services/executor-sdk/src/scheduler_connections.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/client/auth_metadata.h"
#include "services/executor-sdk/src/reconnecting_stream.h"

namespace gnomon::executor::internal {
namespace {

// Splits "host:port" / "[v6]:port"; false without a port.
bool SplitHostPort(const std::string& endpoint, std::string* host, std::string* port) {
  const size_t colon = endpoint.rfind(':');
  const size_t bracket = endpoint.rfind(']');
  if (colon == std::string::npos || (bracket != std::string::npos && colon < bracket)) {
    return false;
  }
  *host = endpoint.substr(0, colon);
  *port = endpoint.substr(colon + 1);
  if (host->size() >= 2 && host->front() == '[' && host->back() == ']') {
    *host = host->substr(1, host->size() - 2);
  }
  return !host->empty() && !port->empty();
}

}  // namespace

std::string EndpointHost(const std::string& endpoint) {
  std::string host, port;
  return SplitHostPort(endpoint, &host, &port) ? host : endpoint;
}

absl::StatusOr<std::vector<std::string>> ResolveEndpoint(const std::string& endpoint) {
  std::string host, port;
  if (!SplitHostPort(endpoint, &host, &port)) {
    return absl::InvalidArgumentError(
        absl::StrCat("scheduler endpoint \"", endpoint, "\" is not host:port"));
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return absl::UnavailableError(absl::StrCat("cannot resolve ", host, ": ", gai_strerror(rc)));
  }
  std::vector<std::string> v4, v6;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {0};
    if (a->ai_family == AF_INET) {
      const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof text) != nullptr) {
        v4.push_back(absl::StrCat(text, ":", ntohs(in->sin_port)));
      }
    } else if (a->ai_family == AF_INET6) {
      const auto* in6 = reinterpret_cast<const sockaddr_in6*>(a->ai_addr);
      if (::inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text) != nullptr) {
        v6.push_back(absl::StrCat("[", text, "]:", ntohs(in6->sin6_port)));
      }
    }
  }
  ::freeaddrinfo(found);
  // IPv4 when there is any: "localhost" (127.0.0.1 and ::1) is one gnomond,
  // not two; dual-stack replicas would otherwise be reached twice.
  std::vector<std::string>& chosen = v4.empty() ? v6 : v4;
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  return std::move(chosen);
}

// One resolved address and its reconnect loop. The fields that change are
// guarded by SchedulerConnections::mu_ (not annotated: a nested struct
// cannot name its owner's mutex).
struct SchedulerConnections::Link {
  Link(std::string address_in, size_t endpoint_in, std::shared_ptr<grpc::Channel> channel,
       ReconnectOptions reconnect, absl::Mutex* mu)
      : address(std::move(address_in)),
        endpoint(endpoint_in),
        channel(channel),
        stub(v1::Dispatch::NewStub(channel)),
        loop(reconnect, mu, &stopping) {}

  const std::string address;
  const size_t endpoint;  // Index of the endpoint it was resolved from.
  const std::shared_ptr<grpc::Channel> channel;
  const std::unique_ptr<v1::Dispatch::Stub> stub;
  bool stopping = false;
  grpc::ClientContext* context = nullptr;  // Of the open stream.
  // Between reading a message and writing its answer: Stop() lets it finish.
  bool busy = false;
  // Welcome's replica_id while this link's open stream holds that replica.
  std::string replica;
  bool connected = false;      // Hello sent on the open stream.
  bool was_connected = false;  // The last stream got past Hello.
  // The last stream reached a replica already connected through this address.
  std::string duplicate_of;
  std::string last_error;   // Last logged, so that a repeated failure is logged once.
  ReconnectingStream loop;  // Last: destroyed (joined) first.
};

SchedulerConnections::SchedulerConnections(SchedulerConnectionsOptions options, AnswerFn answer,
                                           ReplyFn reply, const Logger* logger)
    : options_(std::move(options)),
      endpoints_(SchedulerEndpoints(options_.connection)),
      answer_(std::move(answer)),
      reply_(std::move(reply)),
      logger_(logger) {}

SchedulerConnections::~SchedulerConnections() { Stop(); }

void SchedulerConnections::Start() {
  absl::MutexLock lock(&mu_);
  if (started_ || stopping_ || endpoints_.empty()) return;
  started_ = true;
  resolver_ = std::thread([this] { ResolveLoop(); });
}

void SchedulerConnections::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
    for (auto& [address, link] : links_) {
      link->stopping = true;
      if (link->context != nullptr && !link->busy) link->context->TryCancel();
    }
    // An answer being made is still written (its runs were admitted, or
    // refused as shutting down): gnomond then knows, instead of guessing.
    auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return std::none_of(links_.begin(), links_.end(),
                          [](const auto& entry) { return entry.second->busy; });
    };
    mu_.AwaitWithTimeout(absl::Condition(&idle), absl::Seconds(1));
    for (auto& [address, link] : links_) {
      if (link->context != nullptr) link->context->TryCancel();
    }
  }
  if (resolver_.joinable()) resolver_.join();
  std::map<std::string, std::unique_ptr<Link>> links;
  {
    absl::MutexLock lock(&mu_);
    links.swap(links_);
  }
  links.clear();  // Joins their loops (their streams are cancelled).
}

int SchedulerConnections::connected() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(std::count_if(links_.begin(), links_.end(),
                                        [](const auto& entry) { return entry.second->connected; }));
}

std::vector<std::string> SchedulerConnections::addresses() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> out;
  for (const auto& [address, link] : links_) out.push_back(address);
  return out;
}

void SchedulerConnections::ResolveLoop() {
  const auto resolve = options_.resolve ? options_.resolve : ResolveEndpoint;
  const absl::Duration interval =
      std::max(options_.connection.scheduler_resolve_interval, absl::Milliseconds(10));
  while (true) {
    // Looked up without the mutex: a slow DNS answer holds up no stream.
    std::map<std::string, size_t> resolved;
    std::vector<bool> failed(endpoints_.size(), false);
    std::vector<std::string> errors(endpoints_.size());
    for (size_t i = 0; i < endpoints_.size(); ++i) {
      absl::StatusOr<std::vector<std::string>> addresses = resolve(endpoints_[i]);
      if (!addresses.ok() || addresses->empty()) {
        failed[i] = true;
        errors[i] = addresses.ok() ? "no addresses" : std::string(addresses.status().message());
        continue;
      }
      for (const std::string& address : *addresses) resolved.emplace(address, i);
    }
    std::vector<std::unique_ptr<Link>> gone;
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return;
      for (size_t i = 0; i < endpoints_.size(); ++i) {
        if (errors[i] == resolve_errors_[i]) continue;
        resolve_errors_[i] = errors[i];
        if (!errors[i].empty()) {
          logger_->Warning(absl::StrCat("scheduler endpoint ", endpoints_[i], ": ", errors[i],
                                        "; its streams stay as they are, resolving again every ",
                                        absl::FormatDuration(interval)));
        }
      }
      gone = Apply(resolved, failed);
    }
    gone.clear();  // Joined without the mutex, which their threads need.
    absl::MutexLock lock(&mu_);
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), interval);
    if (stopping_) return;
  }
}

std::vector<std::unique_ptr<SchedulerConnections::Link>> SchedulerConnections::Apply(
    const std::map<std::string, size_t>& resolved, const std::vector<bool>& failed) {
  std::vector<std::unique_ptr<Link>> gone;
  for (auto it = links_.begin(); it != links_.end();) {
    Link& link = *it->second;
    if (resolved.count(it->first) != 0 || failed[link.endpoint]) {
      ++it;
      continue;
    }
    logger_->Info(absl::StrCat("gnomond ", Describe(link), " is no longer resolved from ",
                               endpoints_[link.endpoint], ": closing its stream"));
    link.stopping = true;
    if (link.context != nullptr) link.context->TryCancel();
    gone.push_back(std::move(it->second));
    it = links_.erase(it);
  }
  const ReconnectOptions reconnect{.endpoints = 1,
                                   .backoff = {.initial = options_.connection.reconnect_initial,
                                               .max = options_.connection.reconnect_max}};
  for (const auto& [address, endpoint] : resolved) {
    if (links_.count(address) != 0) continue;
    auto link = std::make_unique<Link>(address, endpoint, options_.dial[endpoint](address),
                                       reconnect, &mu_);
    Link* l = link.get();
    // In the map before its thread starts: the thread reads the map.
    links_.emplace(address, std::move(link));
    l->loop.Start(
        {.run_stream = [this, l](size_t, bool* progressed) { return RunStream(*l, progressed); },
         .ended = [this, l](size_t, const grpc::Status& status, bool, absl::Duration delay)
                      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { LogEnded(*l, status, delay); }});
  }
  return gone;
}

std::string SchedulerConnections::Describe(const Link& link) const {
  const std::string& endpoint = endpoints_[link.endpoint];
  return endpoint == link.address ? link.address : absl::StrCat(link.address, " (", endpoint, ")");
}

grpc::Status SchedulerConnections::RunStream(Link& link, bool* progressed) {
  ReadyForAttempt(link.channel.get());
  grpc::ClientContext context;
  // As on Registry.Session: gnomond authenticates the app before Welcome.
  context.AddMetadata(std::string(kAccessTokenKey), options_.connection.access_token);
  context.AddMetadata(std::string(kAppNameKey), options_.hello.app_name());
  {
    absl::MutexLock lock(&mu_);
    if (link.stopping) return grpc::Status(grpc::StatusCode::CANCELLED, "stopping");
    link.context = &context;
    link.was_connected = false;
    link.duplicate_of.clear();
  }
  auto stream = link.stub->Connect(&context);
  auto finish = [&] {
    grpc::Status status = stream->Finish();
    absl::MutexLock lock(&mu_);
    link.context = nullptr;
    link.busy = false;
    link.replica.clear();
    link.connected = false;
    return status;
  };
  v1::ConnectResponse message;
  if (!stream->Read(&message)) return finish();
  if (!message.has_welcome()) {
    context.TryCancel();
    grpc::Status status = finish();
    return grpc::Status(
        grpc::StatusCode::INTERNAL,
        "gnomond did not open the stream with Welcome (" + StatusText(status) + ")");
  }
  const std::string replica = message.welcome().replica_id();
  std::string other;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [address, l] : links_) {
      if (l.get() != &link && !replica.empty() && l->replica == replica) other = address;
    }
    if (other.empty()) {
      link.replica = replica;
    } else {
      // One replica under two addresses: one stream to it is enough.
      link.duplicate_of = other;
      context.TryCancel();
    }
  }
  if (!other.empty()) {
    finish();
    return grpc::Status(grpc::StatusCode::ALREADY_EXISTS,
                        absl::StrCat("replica \"", replica, "\" is connected through ", other));
  }
  v1::ConnectRequest hello;
  *hello.mutable_hello() = options_.hello;
  if (!stream->Write(hello)) return finish();
  {
    absl::MutexLock lock(&mu_);
    link.connected = true;
    link.was_connected = true;
    link.last_error.clear();
    logger_->Info(absl::StrCat("connected to gnomond replica \"", replica, "\" at ", Describe(link),
                               " as executor \"", options_.hello.executor(), "\" of app \"",
                               options_.hello.app_name(), "\""));
  }
  bool answered = false;
  bool stop = false;
  v1::ConnectRequest out;
  while (!stop && stream->Read(&message)) {
    {
      absl::MutexLock lock(&mu_);
      link.busy = true;
    }
    out.Clear();
    if (message.has_runs()) {
      *out.mutable_answers() = answer_(message.runs());
    } else if (message.has_call()) {
      *out.mutable_reply() = reply_(message.call());
    }
    // Another Welcome, or a kind this executor does not know: nothing to answer.
    const bool written = out.kind_case() == v1::ConnectRequest::KIND_NOT_SET || stream->Write(out);
    answered = true;
    absl::MutexLock lock(&mu_);
    link.busy = false;
    stop = !written || link.stopping;
  }
  if (stop) context.TryCancel();
  grpc::Status status = finish();
  // A refusal right after Hello is not progress (its backoff grows).
  *progressed = answered || !IsRefusal(status);
  return status;
}

void SchedulerConnections::LogEnded(Link& link, const grpc::Status& status, absl::Duration delay) {
  const std::string where = Describe(link);
  if (!link.duplicate_of.empty()) {
    const std::string key = "same replica as " + link.duplicate_of;
    if (key != link.last_error) {
      logger_->Info(absl::StrCat("gnomond ", where, " is the replica connected through ",
                                 link.duplicate_of, ": keeping one stream to it (trying again in ",
                                 absl::FormatDuration(delay), ")"));
    }
    link.last_error = key;
    return;
  }
  const std::string app = absl::StrCat("app \"", options_.hello.app_name(), "\"");
  std::string error = absl::StrCat("gnomond ", where, ": ", StatusText(status));
  if (IsRefusal(status)) {
    logger_->Error(absl::StrCat(
        link.was_connected
            ? absl::StrCat("gnomond ", where, " refused a message of executor \"",
                           options_.hello.executor(), "\" of ", app, " and ended its stream: ")
            : absl::StrCat("gnomond ", where, " refused the scheduler stream of ", app, ": "),
        StatusText(status),
        IsCredentialRefusal(status) ? " -- check the app name and access token" : "",
        " (retrying in ", absl::FormatDuration(delay), ")"));
  } else if (link.was_connected || error != link.last_error) {
    const char* hint = status.error_code() == grpc::StatusCode::UNIMPLEMENTED
                           ? " (a gnomond without the Dispatch service, older than this SDK?)"
                           : "";
    logger_->Warning(absl::StrCat("scheduler stream ended, ", error, hint, "; reconnecting"));
  }
  link.last_error = error;
}

}  // namespace gnomon::executor::internal

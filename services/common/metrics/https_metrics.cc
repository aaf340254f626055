#include "services/common/metrics/https_metrics.h"

#include <netdb.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "prometheus/text_serializer.h"
#include "services/common/client/log.h"
#include "services/common/tls/pem_check.h"

namespace gnomon::metrics {
namespace {

constexpr size_t kMaxRequestHead = 8 * 1024;

// The files' contents as one string (to notice a change).
absl::StatusOr<std::string> Contents(const tls::TlsOptions& tls) {
  std::string all;
  for (const std::string* f : {&tls.cert_file, &tls.key_file, &tls.ca_file}) {
    if (f->empty()) continue;
    absl::StatusOr<std::string> c = tls::ReadFile(*f);
    if (!c.ok()) return c.status();
    absl::StrAppend(&all, c->size(), ":", *c);
  }
  return all;
}

absl::StatusOr<std::shared_ptr<SSL_CTX>> NewContext(const tls::TlsOptions& tls) {
  if (absl::Status s = tls::CheckFiles(tls.cert_file, tls.key_file, tls.ca_file); !s.ok()) return s;
  std::shared_ptr<SSL_CTX> ctx(SSL_CTX_new(TLS_server_method()), SSL_CTX_free);
  if (ctx == nullptr) return absl::InternalError("tls: cannot create an OpenSSL context");
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), tls.cert_file.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx.get(), tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("tls: cannot use ", tls.cert_file, " with ", tls.key_file));
  }
  if (tls.require_client_cert) {
    if (SSL_CTX_load_verify_locations(ctx.get(), tls.ca_file.c_str(), nullptr) != 1) {
      return absl::InvalidArgumentError(absl::StrCat("tls: cannot load ", tls.ca_file));
    }
    SSL_CTX_set_client_CA_list(ctx.get(), SSL_load_client_CA_file(tls.ca_file.c_str()));
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nullptr);
  }
  return ctx;
}

// Binds and listens on "host:port" ("[::]:9090", "0.0.0.0:0"); returns the fd.
absl::StatusOr<int> Listen(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return absl::InvalidArgumentError(absl::StrCat("not host:port: ", address));
  std::string host = address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.empty() ? nullptr : host.c_str(), address.substr(colon + 1).c_str(), &hints, &found) != 0) {
    return absl::UnavailableError(absl::StrCat("cannot resolve ", address));
  }
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 16) != 0) {
      ::close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) return absl::UnavailableError(absl::StrCat("cannot serve metrics on ", address, ": ", std::strerror(errno)));
  return fd;
}

int BoundPort(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpsMetrics>> HttpsMetrics::Start(const std::string& address,
                                                                  std::shared_ptr<prometheus::Collectable> registry,
                                                                  const tls::TlsOptions& tls) {
  std::unique_ptr<HttpsMetrics> s(new HttpsMetrics());
  s->registry_ = std::move(registry);
  s->tls_ = tls;
  absl::StatusOr<std::string> files = Contents(tls);
  if (!files.ok()) return files.status();
  absl::StatusOr<std::shared_ptr<SSL_CTX>> ctx = NewContext(tls);
  if (!ctx.ok()) return ctx.status();
  s->ctx_ = *std::move(ctx);
  s->served_files_ = *std::move(files);
  s->last_look_ = absl::Now();
  absl::StatusOr<int> fd = Listen(address);
  if (!fd.ok()) return fd.status();
  s->listen_fd_ = *fd;
  s->port_ = BoundPort(*fd);
  s->wake_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (s->wake_fd_ < 0) return absl::InternalError("cannot create an eventfd");
  s->thread_ = std::thread([p = s.get()] { p->Serve(); });
  return s;
}

HttpsMetrics::~HttpsMetrics() {
  if (thread_.joinable()) {
    const uint64_t one = 1;
    ssize_t ignored = ::write(wake_fd_, &one, sizeof(one));
    (void)ignored;
    thread_.join();
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void HttpsMetrics::Serve() {
  // A client that hangs up mid-answer must not kill the process: SIGPIPE is
  // sent to the writing thread, which ignores it (write fails with EPIPE).
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const timeval limit{5, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
    MaybeReload();
    Answer(fd);
    ::close(fd);
  }
}

void HttpsMetrics::MaybeReload() {
  const absl::Time now = absl::Now();
  if (now - last_look_ < tls_.reload_interval) return;
  last_look_ = now;
  absl::StatusOr<std::string> files = Contents(tls_);
  if (!files.ok() || *files == served_files_) return;
  absl::StatusOr<std::shared_ptr<SSL_CTX>> ctx = NewContext(tls_);
  if (!ctx.ok()) {
    GNOMON_LOG(WARNING) << "metrics: the changed TLS files are not usable yet: " << ctx.status();
    return;
  }
  ctx_ = *std::move(ctx);
  served_files_ = *std::move(files);
  GNOMON_LOG(INFO) << "metrics: serving the renewed certificate";
}

void HttpsMetrics::Answer(int fd) {
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl(SSL_new(ctx_.get()), SSL_free);
  if (ssl == nullptr || SSL_set_fd(ssl.get(), fd) != 1 || SSL_accept(ssl.get()) != 1) {
    ERR_clear_error();  // A failed handshake (plaintext, wrong certificate): nothing to answer.
    return;
  }
  std::string head;
  char buf[1024];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < kMaxRequestHead) {
    const int n = SSL_read(ssl.get(), buf, sizeof(buf));
    if (n <= 0) break;
    head.append(buf, static_cast<size_t>(n));
  }
  std::string status = "200 OK";
  std::string body;
  if (absl::StartsWith(head, "GET /metrics ") || absl::StartsWith(head, "GET /metrics?")) {
    body = prometheus::TextSerializer().Serialize(registry_->Collect());
  } else {
    status = "404 Not Found";
    body = "only /metrics is served here\n";
  }
  const std::string response =
      absl::StrCat("HTTP/1.1 ", status, "\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n",
                   "Content-Length: ", body.size(), "\r\nConnection: close\r\n\r\n", body);
  SSL_write(ssl.get(), response.data(), static_cast<int>(response.size()));
  SSL_shutdown(ssl.get());
  ERR_clear_error();
}

}  // namespace gnomon::metrics

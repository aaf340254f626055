#include "services/common/metrics/https_metrics.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "prometheus/text_serializer.h"
#include "services/common/client/log.h"
#include "services/common/tls/listen.h"

namespace gnomon::metrics {
namespace {

constexpr size_t kMaxRequestHead = 8 * 1024;

}  // namespace

absl::StatusOr<std::unique_ptr<HttpsMetrics>> HttpsMetrics::Start(const std::string& address,
                                                                  std::shared_ptr<prometheus::Collectable> registry,
                                                                  const tls::TlsOptions& tls) {
  std::unique_ptr<HttpsMetrics> s(new HttpsMetrics());
  s->registry_ = std::move(registry);
  absl::StatusOr<std::unique_ptr<tls::ServerTlsContext>> ctx = tls::ServerTlsContext::Create(tls, "metrics");
  if (!ctx.ok()) return ctx.status();
  s->tls_ = *std::move(ctx);
  absl::StatusOr<int> fd = tls::Listen(address, "metrics", 16);
  if (!fd.ok()) return fd.status();
  s->listen_fd_ = *fd;
  s->port_ = tls::BoundPort(*fd);
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
    Answer(fd);
    ::close(fd);
  }
}

void HttpsMetrics::Answer(int fd) {
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl(SSL_new(tls_->Current().get()), SSL_free);
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

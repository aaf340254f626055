#include "services/common/http/http_server.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "services/common/client/log.h"
#include "services/common/status/status_macros.h"
#include "services/common/tls/listen.h"

namespace gnomon::http {

// One client connection: a socket, with TLS over it or not.
class Connection {
 public:
  Connection(int fd, SSL* ssl) : fd_(fd), ssl_(ssl) {}
  ~Connection() {
    if (ssl_ != nullptr) {
      SSL_shutdown(ssl_);
      SSL_free(ssl_);
      ERR_clear_error();
    }
  }
  // Up to n bytes; 0 at the end of the stream, < 0 on error or timeout.
  int Read(char* buf, int n) {
    if (ssl_ != nullptr) return SSL_read(ssl_, buf, n);
    return static_cast<int>(::recv(fd_, buf, static_cast<size_t>(n), 0));
  }
  bool WriteAll(std::string_view data) {
    while (!data.empty()) {
      const int n = ssl_ != nullptr
                        ? SSL_write(ssl_, data.data(), static_cast<int>(data.size()))
                        : static_cast<int>(::send(fd_, data.data(), data.size(), MSG_NOSIGNAL));
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  bool PeerClosed() {
    pollfd p{fd_, POLLIN | POLLRDHUP, 0};
    if (::poll(&p, 1, 0) <= 0) return false;
    if ((p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) return true;
    char c;
    return ssl_ == nullptr && ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
  }
  bool keep_alive = true;

 private:
  const int fd_;
  SSL* const ssl_;
};

namespace {

constexpr size_t kMaxHead = 16 * 1024;

// Debian's Abseil has its own string_view.
absl::string_view A(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// Parses the request line and headers of `head` (without the blank line).
bool ParseHead(std::string_view head, HttpRequest* req, bool* http10) {
  std::vector<absl::string_view> lines = absl::StrSplit(A(head), "\r\n");
  std::vector<absl::string_view> first = absl::StrSplit(lines[0], ' ');
  if (first.size() != 3 || !absl::StartsWith(first[2], "HTTP/1.") || first[1].empty() ||
      first[1][0] != '/') {
    return false;
  }
  *http10 = first[2] == "HTTP/1.0";
  req->method = std::string(first[0]);
  const size_t q = first[1].find('?');
  req->path = std::string(first[1].substr(0, q));
  req->query = q == absl::string_view::npos ? "" : std::string(first[1].substr(q + 1));
  for (size_t i = 1; i < lines.size(); ++i) {
    const size_t colon = lines[i].find(':');
    if (colon == absl::string_view::npos || colon == 0) return false;
    req->headers[absl::AsciiStrToLower(lines[i].substr(0, colon))] =
        std::string(absl::StripAsciiWhitespace(lines[i].substr(colon + 1)));
  }
  return true;
}

// Answers an error the connection cannot recover from, and closes it.
void Refuse(Connection& conn, int status, std::string_view why) {
  conn.keep_alive = false;
  HttpResponse resp(&conn);
  const char* code = status == 501   ? "UNIMPLEMENTED"
                     : status == 400 ? "INVALID_ARGUMENT"
                                     : "RESOURCE_EXHAUSTED";
  resp.Send(status, "application/json",
            absl::StrCat(R"({"code":")", code, R"(","message":")", A(why), "\"}"));
}

}  // namespace

std::string HttpRequest::Header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? "" : it->second;
}

std::string_view StatusText(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 204:
      return "No Content";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 413:
      return "Payload Too Large";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 499:
      return "Client Closed Request";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return "";
  }
}

bool HttpResponse::Send(int status, std::string_view content_type, std::string_view body,
                        const std::map<std::string, std::string>& headers) {
  if (sent_) return false;
  sent_ = true;
  std::string head = absl::StrCat(
      "HTTP/1.1 ", status, " ", A(StatusText(status)), "\r\nContent-Type: ", A(content_type),
      "\r\nContent-Length: ", body.size(), "\r\nX-Content-Type-Options: nosniff\r\nConnection: ",
      conn_->keep_alive ? "keep-alive" : "close", "\r\n");
  // API answers are never cached unless the caller says otherwise.
  if (headers.count("Cache-Control") == 0) head += "Cache-Control: no-store\r\n";
  for (const auto& [k, v] : headers) absl::StrAppend(&head, k, ": ", v, "\r\n");
  head += "\r\n";
  return conn_->WriteAll(head) && conn_->WriteAll(body);
}

bool HttpResponse::StartEvents() {
  if (sent_) return false;
  sent_ = streaming_ = true;
  conn_->keep_alive = false;  // The stream ends with the connection.
  return conn_->WriteAll(
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
      "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n");
}

bool HttpResponse::Event(std::string_view event, std::string_view data) {
  std::string out;
  if (!event.empty()) absl::StrAppend(&out, "event: ", A(event), "\n");
  // A data line per line of `data` (JSON from protobuf has none; be safe).
  for (absl::string_view line : absl::StrSplit(A(data), '\n'))
    absl::StrAppend(&out, "data: ", line, "\n");
  out += "\n";
  return conn_->WriteAll(out);
}

bool HttpResponse::KeepAlive() { return conn_->WriteAll(": keep-alive\n\n"); }

bool HttpResponse::ClientGone() { return conn_->PeerClosed(); }

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const std::string& address,
                                                              Handler handler,
                                                              const tls::TlsOptions& tls,
                                                              std::string what, HttpLimits limits) {
  std::unique_ptr<HttpServer> s(new HttpServer(std::move(handler), std::move(what), limits));
  if (tls.enabled) {
    ASSIGN_OR_RETURN(std::unique_ptr<tls::ServerTlsContext> ctx,
                     tls::ServerTlsContext::Create(tls, s->what_));
    s->tls_ = std::move(ctx);
  }
  ASSIGN_OR_RETURN(int fd, tls::Listen(address, s->what_));
  s->listen_fd_ = fd;
  s->port_ = tls::BoundPort(fd);
  s->wake_fd_ = ::eventfd(0, EFD_CLOEXEC);
  if (s->wake_fd_ < 0) return absl::InternalError("cannot create an eventfd");
  s->acceptor_ = std::thread([p = s.get()] { p->AcceptLoop(); });
  return s;
}

HttpServer::~HttpServer() {
  if (acceptor_.joinable()) {
    const uint64_t one = 1;
    ssize_t ignored = ::write(wake_fd_, &one, sizeof(one));
    (void)ignored;
    acceptor_.join();
  }
  absl::MutexLock l(&conns_->mu);
  conns_->stopping = true;
  // Wakes every connection thread out of its reads and writes.
  for (int fd : conns_->fds) ::shutdown(fd, SHUT_RDWR);
  conns_->mu.Await(absl::Condition(
      +[](int* threads) { return *threads == 0; }, &conns_->threads));
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void HttpServer::AcceptLoop() {
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const int64_t idle_s = std::max<int64_t>(1, absl::ToInt64Seconds(limits_.idle_timeout));
    const timeval limit{idle_s, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
    absl::MutexLock l(&conns_->mu);
    if (conns_->threads >= limits_.max_connections) {
      static constexpr char kBusy[] =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      ::send(fd, kBusy, sizeof(kBusy) - 1, MSG_NOSIGNAL);
      ::close(fd);
      continue;
    }
    ++conns_->threads;
    conns_->fds.insert(fd);
    std::thread([this, fd, conns = conns_] {
      Serve(fd);
      {
        // Out of the set before the number can be reused by another open.
        absl::MutexLock l(&conns->mu);
        conns->fds.erase(fd);
      }
      ::close(fd);
      absl::MutexLock l(&conns->mu);
      --conns->threads;
    }).detach();
  }
}

void HttpServer::Serve(int fd) {
  // A client hanging up mid-answer must not kill the process (TLS writes
  // with write(2)): SIGPIPE is blocked on this thread; the write fails.
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
  SSL* ssl = nullptr;
  bool ready = true;
  if (tls_ != nullptr) {
    ssl = SSL_new(tls_->Current().get());
    if (ssl == nullptr || SSL_set_fd(ssl, fd) != 1 || SSL_accept(ssl) != 1) {
      ready = false;  // Plaintext or an unverified client: nothing to answer.
      ERR_clear_error();
    }
  }
  {
    Connection conn(fd, ready ? ssl : nullptr);
    if (ready) Converse(conn);
  }
  if (!ready && ssl != nullptr) SSL_free(ssl);
}

void HttpServer::Converse(Connection& conn) {
  std::string buffer;
  char chunk[8192];
  while (conn.keep_alive) {
    size_t end;
    while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
      if (buffer.size() > kMaxHead) return Refuse(conn, 431, "request head over 16 KiB");
      const int n = conn.Read(chunk, sizeof(chunk));
      if (n <= 0) return;  // Closed, idle too long, or broken.
      buffer.append(chunk, static_cast<size_t>(n));
    }
    if (end > kMaxHead) return Refuse(conn, 431, "request head over 16 KiB");
    HttpRequest req;
    bool http10 = false;
    if (!ParseHead(std::string_view(buffer).substr(0, end), &req, &http10)) {
      return Refuse(conn, 400, "malformed request");
    }
    buffer.erase(0, end + 4);
    if (!req.Header("transfer-encoding").empty())
      return Refuse(conn, 501, "chunked bodies are not accepted");
    size_t length = 0;
    const std::string cl = req.Header("content-length");
    if (!cl.empty() && !absl::SimpleAtoi(cl, &length))
      return Refuse(conn, 400, "bad Content-Length");
    if (length > limits_.max_body_bytes) return Refuse(conn, 413, "body too large");
    while (buffer.size() < length) {
      const int n = conn.Read(chunk, sizeof(chunk));
      if (n <= 0) return;
      buffer.append(chunk, static_cast<size_t>(n));
    }
    req.body = buffer.substr(0, length);
    buffer.erase(0, length);
    conn.keep_alive = !http10 && absl::AsciiStrToLower(req.Header("connection")) != "close";
    {
      absl::MutexLock l(&conns_->mu);
      if (conns_->stopping) conn.keep_alive = false;
    }
    HttpResponse resp(&conn);
    handler_(req, resp);
    if (!resp.sent()) {
      resp.Send(500, "application/json", R"({"code":"INTERNAL","message":"no answer"})");
    }
  }
}

}  // namespace gnomon::http

#include "services/common/http/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
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
  // Up to n bytes, waiting until `deadline` at most; 0 at the end of the
  // stream, < 0 on error or timeout.
  int Read(char* buf, int n, absl::Time deadline) {
    const absl::Duration left = std::max(deadline - absl::Now(), absl::Milliseconds(1));
    const timeval limit = absl::ToTimeval(left);
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
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

// RFC 9110's token characters (method and header names).
bool IsToken(absl::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (absl::ascii_isalnum(c)) continue;
    if (std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) == std::string_view::npos)
      return false;
  }
  return true;
}

// Headers that must not repeat: two framings (or hosts, or credentials) are
// how a request is smuggled past a proxy that reads the other one.
bool Unique(absl::string_view lower_name) {
  return lower_name == "content-length" || lower_name == "transfer-encoding" ||
         lower_name == "host" || lower_name == "authorization";
}

// Parses the request line and headers of `head` (without the blank line);
// what is wrong with them, or "".
std::string ParseHead(std::string_view head, HttpRequest* req, bool* http10) {
  if (head.find('\0') != std::string_view::npos) return "NUL in the request head";
  std::vector<absl::string_view> lines = absl::StrSplit(A(head), "\r\n");
  std::vector<absl::string_view> first = absl::StrSplit(lines[0], ' ');
  if (first.size() != 3 || !IsToken(first[0]) ||
      (first[2] != "HTTP/1.1" && first[2] != "HTTP/1.0") || first[1].empty() ||
      first[1][0] != '/') {
    return "malformed request line";
  }
  *http10 = first[2] == "HTTP/1.0";
  req->method = std::string(first[0]);
  const size_t q = first[1].find('?');
  req->path = std::string(first[1].substr(0, q));
  req->query = q == absl::string_view::npos ? "" : std::string(first[1].substr(q + 1));
  for (size_t i = 1; i < lines.size(); ++i) {
    const absl::string_view line = lines[i];
    if (line.find_first_of("\r\n") != absl::string_view::npos) return "bare CR or LF in a header";
    if (line.empty() || line[0] == ' ' || line[0] == '\t') return "folded header line";
    const size_t colon = line.find(':');
    // No whitespace before the colon: the name must be a token.
    if (colon == absl::string_view::npos || !IsToken(line.substr(0, colon))) {
      return "malformed header name";
    }
    std::string name = absl::AsciiStrToLower(line.substr(0, colon));
    std::string value(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    auto [it, added] = req->headers.try_emplace(name, value);
    if (!added) {
      if (Unique(name)) return absl::StrCat("repeated ", name, " header");
      it->second = std::move(value);  // The last value of others.
    }
  }
  return "";
}

// The client's address without its port ("" if unknown): connections are
// counted per address.
std::string ClientAddress(const sockaddr_storage& peer) {
  char text[INET6_ADDRSTRLEN] = "";
  if (peer.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(peer).sin_addr, text, sizeof(text));
  } else if (peer.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6&>(peer).sin6_addr, text,
                sizeof(text));
  }
  return text;
}

// Answers an error the connection cannot recover from, and closes it.
void Refuse(Connection& conn, int status, std::string_view why) {
  conn.keep_alive = false;
  HttpResponse resp(&conn);
  const char* code = status == 501   ? "UNIMPLEMENTED"
                     : status == 400 ? "INVALID_ARGUMENT"
                     : status == 408 ? "DEADLINE_EXCEEDED"
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
    case 408:
      return "Request Timeout";
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
                                                              std::string what, HttpLimits limits,
                                                              HeadCheck check) {
  std::unique_ptr<HttpServer> s(
      new HttpServer(std::move(handler), std::move(check), std::move(what), limits));
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
    sockaddr_storage peer{};
    socklen_t peer_len = sizeof(peer);
    const int fd =
        ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &peer_len, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const int64_t idle_s = std::max<int64_t>(1, absl::ToInt64Seconds(limits_.idle_timeout));
    const timeval limit{idle_s, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit));
    std::string client = ClientAddress(peer);
    if (!Admit(client)) {
      static constexpr char kBusy[] =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      ::send(fd, kBusy, sizeof(kBusy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      ::close(fd);
      continue;
    }
    {
      absl::MutexLock l(&conns_->mu);
      conns_->fds.insert(fd);
    }
    std::thread([this, fd, conns = conns_, client = std::move(client)] {
      Serve(fd, client);
      {
        // Out of the set before the number can be reused by another open.
        absl::MutexLock l(&conns->mu);
        conns->fds.erase(fd);
      }
      ::close(fd);
      absl::MutexLock l(&conns->mu);
      if (auto it = conns->per_client.find(client);
          it != conns->per_client.end() && --it->second == 0) {
        conns->per_client.erase(it);
      }
      --conns->threads;
    }).detach();
  }
}

bool HttpServer::Admit(const std::string& client) {
  absl::MutexLock l(&conns_->mu);
  if (conns_->threads >= limits_.max_connections) return false;
  int& mine = conns_->per_client[client];
  if (mine >= limits_.max_connections_per_client) {
    if (mine == 0) conns_->per_client.erase(client);
    return false;
  }
  ++mine;
  ++conns_->threads;
  return true;
}

void HttpServer::Serve(int fd, const std::string& client) {
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
    if (ready) Converse(conn, client);
  }
  if (!ready && ssl != nullptr) SSL_free(ssl);
}

void HttpServer::Converse(Connection& conn, const std::string& client) {
  std::string buffer;
  char chunk[8192];
  while (conn.keep_alive) {
    // Idle until the request's first byte, then its head has head_timeout.
    bool started = !buffer.empty();
    absl::Time deadline = absl::Now() + (started ? limits_.head_timeout : limits_.idle_timeout);
    size_t end;
    while ((end = buffer.find("\r\n\r\n")) == std::string::npos) {
      if (buffer.size() > kMaxHead) return Refuse(conn, 431, "request head over 16 KiB");
      const int n = conn.Read(chunk, sizeof(chunk), deadline);
      if (n <= 0) {
        if (started && absl::Now() >= deadline) {
          return Refuse(conn, 408, "request head not received in time");
        }
        return;  // Closed, idle too long, or broken.
      }
      buffer.append(chunk, static_cast<size_t>(n));
      if (!started) {
        started = true;
        deadline = absl::Now() + limits_.head_timeout;
      }
    }
    if (end > kMaxHead) return Refuse(conn, 431, "request head over 16 KiB");
    HttpRequest req;
    req.client = client;
    bool http10 = false;
    if (const std::string bad = ParseHead(std::string_view(buffer).substr(0, end), &req, &http10);
        !bad.empty()) {
      return Refuse(conn, 400, bad);
    }
    buffer.erase(0, end + 4);
    if (!req.Header("transfer-encoding").empty())
      return Refuse(conn, 501, "chunked bodies are not accepted");
    size_t length = 0;
    const std::string cl = req.Header("content-length");
    if (!cl.empty() && (cl.size() > 18 || !std::all_of(cl.begin(), cl.end(), absl::ascii_isdigit) ||
                        !absl::SimpleAtoi(cl, &length))) {
      return Refuse(conn, 400, "bad Content-Length");
    }
    size_t max_body = limits_.max_body_bytes;
    if (check_) {
      HeadVerdict verdict = check_(req);
      if (verdict.refuse_status != 0) {
        conn.keep_alive = false;  // Its body, if any, is never read.
        HttpResponse resp(&conn);
        resp.Send(verdict.refuse_status, "application/json", verdict.refusal);
        return;
      }
      max_body = std::min(max_body, verdict.max_body_bytes);
    }
    if (length > max_body) return Refuse(conn, 413, "body too large");
    deadline = absl::Now() + limits_.body_timeout;
    while (buffer.size() < length) {
      const int n = conn.Read(chunk, sizeof(chunk), deadline);
      if (n <= 0) {
        if (absl::Now() >= deadline) return Refuse(conn, 408, "request body not received in time");
        return;
      }
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

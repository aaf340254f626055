#include "services/scheduler/alarm/testing/test_servers.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace gnomon::scheduler::alarm::loopback {
namespace {

int BindLoopback(int* port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) std::abort();
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) std::abort();
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  *port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

int UnusedPort() {
  int port = 0;
  int fd = BindLoopback(&port);
  ::close(fd);  // Never listened on: connections are refused.
  return port;
}

LoopbackServer::LoopbackServer() {
  listen_fd_ = BindLoopback(&port_);
  if (::listen(listen_fd_, 16) != 0) std::abort();
}

LoopbackServer::~LoopbackServer() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void LoopbackServer::StartServing() {
  thread_ = std::thread([this] {
    while (true) {
      int fd = ::accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) {
        if (errno == EINTR) continue;
        return;  // StopServing shut the socket down.
      }
      // A client that stalls cannot wedge the test forever.
      timeval tv{10, 0};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
      Serve(fd);
      ::close(fd);
    }
  });
}

void LoopbackServer::StopServing() {
  ::shutdown(listen_fd_, SHUT_RDWR);  // Wakes accept().
  if (thread_.joinable()) thread_.join();
}

bool LoopbackServer::ReadLine(int fd, std::string* buffer, std::string* line) {
  while (true) {
    size_t end = buffer->find("\r\n");
    if (end != std::string::npos) {
      *line = buffer->substr(0, end);
      buffer->erase(0, end + 2);
      return true;
    }
    char chunk[4096];
    ssize_t n = ::recv(fd, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffer->append(chunk, static_cast<size_t>(n));
  }
}

bool LoopbackServer::ReadExactly(int fd, std::string* buffer, size_t n, std::string* out) {
  while (buffer->size() < n) {
    char chunk[4096];
    ssize_t got = ::recv(fd, chunk, sizeof(chunk), 0);
    if (got <= 0) return false;
    buffer->append(chunk, static_cast<size_t>(got));
  }
  *out = buffer->substr(0, n);
  buffer->erase(0, n);
  return true;
}

bool LoopbackServer::WriteAll(int fd, const std::string& data) {
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
    if (n <= 0) return false;
    off += static_cast<size_t>(n);
  }
  return true;
}

HttpServer::HttpServer() { StartServing(); }
HttpServer::~HttpServer() { StopServing(); }

std::string HttpServer::Url(const std::string& path) const {
  return absl::StrCat("http://127.0.0.1:", port(), path);
}

void HttpServer::SetStatuses(std::deque<int> first, int then) {
  std::deque<Answer> answers;
  for (int status : first) answers.push_back({status, "ok"});
  SetAnswers(std::move(answers), {then, "ok"});
}

void HttpServer::SetAnswers(std::deque<Answer> first, Answer then) {
  absl::MutexLock l(&mu_);
  answers_ = std::move(first);
  then_ = std::move(then);
}

void HttpServer::SetResponseHeaders(std::vector<std::string> lines) {
  absl::MutexLock l(&mu_);
  response_headers_ = std::move(lines);
}

std::vector<HttpServer::Request> HttpServer::requests() const {
  absl::MutexLock l(&mu_);
  return requests_;
}

void HttpServer::Serve(int fd) {
  std::string buffer, line;
  Request req;
  if (!ReadLine(fd, &buffer, &line)) return;
  std::vector<std::string> parts = absl::StrSplit(line, ' ');
  if (parts.size() != 3) return;
  req.method = parts[0];
  req.target = parts[1];
  while (ReadLine(fd, &buffer, &line) && !line.empty()) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) return;
    req.headers[absl::AsciiStrToLower(line.substr(0, colon))] =
        std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  }
  size_t length = 0;
  auto it = req.headers.find("content-length");
  if (it != req.headers.end() && !absl::SimpleAtoi(it->second, &length)) return;
  if (!ReadExactly(fd, &buffer, length, &req.body)) return;
  Answer answer;
  std::string extra_headers;
  {
    absl::MutexLock l(&mu_);
    for (const std::string& h : response_headers_) absl::StrAppend(&extra_headers, h, "\r\n");
    requests_.push_back(req);
    if (answers_.empty()) {
      answer = then_;
    } else {
      answer = std::move(answers_.front());
      answers_.pop_front();
    }
  }
  WriteAll(fd,
           absl::StrCat("HTTP/1.1 ", answer.status, " Test\r\nContent-Length: ", answer.body.size(),
                        "\r\n", extra_headers, "Connection: close\r\n\r\n", answer.body));
}

SmtpSink::SmtpSink(bool offer_auth, bool reject_rcpt)
    : offer_auth_(offer_auth), reject_rcpt_(reject_rcpt) {
  StartServing();
}
SmtpSink::~SmtpSink() { StopServing(); }

std::vector<SmtpSink::Mail> SmtpSink::mails() const {
  absl::MutexLock l(&mu_);
  return mails_;
}

void SmtpSink::Serve(int fd) {
  std::string buffer, line;
  Mail mail;
  if (!WriteAll(fd, "220 sink.test ESMTP ready\r\n")) return;
  while (ReadLine(fd, &buffer, &line)) {
    std::string upper = absl::AsciiStrToUpper(line);
    std::string reply;
    if (absl::StartsWith(upper, "EHLO ")) {
      mail.helo = line.substr(5);
      reply = absl::StrCat("250-sink.test\r\n", offer_auth_ ? "250-AUTH PLAIN\r\n" : "",
                           "250 8BITMIME\r\n");
    } else if (absl::StartsWith(upper, "HELO ")) {
      mail.helo = line.substr(5);
      reply = "250 sink.test\r\n";
    } else if (offer_auth_ && absl::StartsWith(upper, "AUTH PLAIN")) {
      std::string encoded = absl::StartsWith(upper, "AUTH PLAIN ") ? line.substr(11) : "";
      if (encoded.empty()) {
        if (!WriteAll(fd, "334 \r\n") || !ReadLine(fd, &buffer, &encoded)) return;
      }
      absl::Base64Unescape(encoded, &mail.auth_plain);
      reply = "235 2.7.0 authenticated\r\n";
    } else if (absl::StartsWith(upper, "MAIL FROM:")) {
      mail.mail_from = line.substr(10);
      reply = "250 2.1.0 ok\r\n";
    } else if (absl::StartsWith(upper, "RCPT TO:")) {
      mail.rcpt_to.push_back(line.substr(8));
      reply = reject_rcpt_ ? "550 5.1.1 no such user\r\n" : "250 2.1.5 ok\r\n";
    } else if (upper == "DATA") {
      if (!WriteAll(fd, "354 end with <CRLF>.<CRLF>\r\n")) return;
      std::string data;
      while (true) {
        if (!ReadLine(fd, &buffer, &line)) return;
        if (line == ".") break;
        if (absl::StartsWith(line, ".")) line.erase(0, 1);  // Dot-unstuffing.
        absl::StrAppend(&data, line, "\r\n");
      }
      mail.data = std::move(data);
      {
        absl::MutexLock l(&mu_);
        mails_.push_back(mail);
      }
      reply = "250 2.0.0 queued\r\n";
    } else if (upper == "RSET" || upper == "NOOP") {
      reply = "250 ok\r\n";
    } else if (upper == "QUIT") {
      WriteAll(fd, "221 bye\r\n");
      return;
    } else {
      reply = "502 5.5.2 not implemented\r\n";
    }
    if (!WriteAll(fd, reply)) return;
  }
}

}  // namespace gnomon::scheduler::alarm::loopback

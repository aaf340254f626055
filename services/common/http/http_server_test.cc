#include "services/common/http/http_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace gnomon::http {
namespace {

// A raw client connection, to send exactly the bytes a test wants.
class RawClient {
 public:
  explicit RawClient(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    const timeval limit{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  }
  ~RawClient() { ::close(fd_); }
  bool Send(const std::string& bytes) {
    return ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) >= 0;
  }
  // Reads until `needle` has arrived (or the connection ends); all read so far.
  std::string ReadUntil(const std::string& needle) {
    char buf[4096];
    while (got_.find(needle) == std::string::npos) {
      const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
      if (n <= 0) break;
      got_.append(buf, static_cast<size_t>(n));
    }
    return got_;
  }
  // Reads until the server closes the connection.
  std::string ReadAll() { return ReadUntil(std::string(1, '\0') + "never"); }
  bool connected() const { return connected_; }

 private:
  const int fd_;
  bool connected_ = false;
  std::string got_;
};

std::unique_ptr<HttpServer> Serve(HttpServer::Handler h, HttpLimits limits = {}) {
  absl::StatusOr<std::unique_ptr<HttpServer>> s =
      HttpServer::Start("127.0.0.1:0", std::move(h), {}, "test", limits);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *std::move(s) : nullptr;
}

HttpServer::Handler Echo() {
  return [](const HttpRequest& req, HttpResponse& resp) {
    resp.Send(200, "text/plain",
              absl::StrCat(req.method, " ", req.path, " ", req.query, " [", req.body, "] ",
                           req.Header("x-thing")));
  };
}

TEST(HttpServer, AnswersSeveralRequestsOnOneConnection) {
  auto server = Serve(Echo());
  RawClient c(server->port());
  ASSERT_TRUE(c.connected());
  c.Send("POST /a?x=1 HTTP/1.1\r\nHost: h\r\nX-Thing: one\r\nContent-Length: 5\r\n\r\nhello");
  EXPECT_NE(c.ReadUntil("one").find("POST /a x=1 [hello] one"), std::string::npos);
  c.Send("GET /b HTTP/1.1\r\nConnection: close\r\n\r\n");
  const std::string all = c.ReadAll();
  EXPECT_NE(all.find("GET /b  [] "), std::string::npos) << all;
  EXPECT_NE(all.find("Connection: close"), std::string::npos) << all;
}

TEST(HttpServer, RefusesWhatItCannotReadAndClosesTheConnection) {
  HttpLimits limits;
  limits.max_body_bytes = 10;
  auto server = Serve(Echo(), limits);
  struct Case {
    std::string request;
    std::string status;
  };
  for (const Case& c : std::vector<Case>{
           {"GARBAGE\r\n\r\n", "400 Bad Request"},
           {"POST / HTTP/1.1\r\nContent-Length: 11\r\n\r\n", "413 Payload Too Large"},
           {"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n", "400 Bad Request"},
           {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", "501 Not Implemented"},
           {"GET / HTTP/1.1\r\nX-Big: " + std::string(20000, 'a') + "\r\n\r\n", "431 "},
       }) {
    RawClient client(server->port());
    client.Send(c.request);
    const std::string answer = client.ReadAll();
    EXPECT_EQ(answer.rfind("HTTP/1.1 " + c.status, 0), 0u)
        << c.request.substr(0, 40) << " -> " << answer;
  }
}

TEST(HttpServer, StreamsEventsUntilTheHandlerReturns) {
  auto server = Serve([](const HttpRequest&, HttpResponse& resp) {
    resp.StartEvents();
    resp.Event("", R"({"n":1})");
    resp.Event("end", "{}");
  });
  RawClient c(server->port());
  c.Send("POST /s HTTP/1.1\r\n\r\n");
  const std::string all = c.ReadAll();
  EXPECT_NE(all.find("Content-Type: text/event-stream"), std::string::npos) << all;
  EXPECT_NE(all.find("data: {\"n\":1}\n\nevent: end\ndata: {}\n\n"), std::string::npos) << all;
}

// Stopping the server ends open streams: their handlers see the client gone.
TEST(HttpServer, StoppingEndsOpenStreams) {
  absl::Notification streaming;
  auto server = Serve([&](const HttpRequest&, HttpResponse& resp) {
    resp.StartEvents();
    streaming.Notify();
    while (!resp.ClientGone() && resp.KeepAlive()) {
      absl::SleepFor(absl::Milliseconds(10));  // A handler polling its source, as the gateway does.
    }
  });
  RawClient c(server->port());
  c.Send("POST /s HTTP/1.1\r\n\r\n");
  streaming.WaitForNotification();
  server.reset();  // Returns only once the handler has.
  SUCCEED();
}

TEST(HttpServer, BeyondMaxConnectionsAnswers503) {
  absl::Notification release;
  HttpLimits limits;
  limits.max_connections = 1;
  auto server = Serve(
      [&](const HttpRequest&, HttpResponse& resp) {
        release.WaitForNotification();
        resp.Send(200, "text/plain", "ok");
      },
      limits);
  RawClient first(server->port());
  first.Send("GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
  RawClient second(server->port());
  EXPECT_EQ(second.ReadAll().rfind("HTTP/1.1 503", 0), 0u);
  release.Notify();
  EXPECT_NE(first.ReadAll().find("200 OK"), std::string::npos);
}

}  // namespace
}  // namespace gnomon::http

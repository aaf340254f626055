#include "services/common/http/http_server.h"

#include <atomic>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "tests/support/raw_http_client.h"

namespace gnomon::http {
namespace {

using RawClient = testing::RawHttpClient;

std::unique_ptr<HttpServer> Serve(HttpServer::Handler h, HttpLimits limits = {},
                                  HttpServer::HeadCheck check = nullptr) {
  absl::StatusOr<std::unique_ptr<HttpServer>> s =
      HttpServer::Start("127.0.0.1:0", std::move(h), {}, "test", limits, std::move(check));
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

// Answers "ok" once `release` is notified: holds its connection until then.
HttpServer::Handler AfterRelease(absl::Notification* release) {
  return [release](const HttpRequest&, HttpResponse& resp) {
    release->WaitForNotification();
    resp.Send(200, "text/plain", "ok");
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
           // Shapes that smuggle a request past a proxy reading them otherwise.
           {"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
            "400 Bad Request"},
           {"POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 0\r\n\r\nabc",
            "400 Bad Request"},
           {"POST / HTTP/1.1\r\nTransfer-Encoding : chunked\r\n\r\n", "400 Bad Request"},
           {"POST / HTTP/1.1\r\nX-A: 1\r\n folded\r\n\r\n", "400 Bad Request"},
           {"POST / HTTP/1.1\r\nContent-Length: +3\r\n\r\nabc", "400 Bad Request"},
           {"POST / HTTP/1.1\r\nContent-Length: 3 \r\nX: \n\r\n\r\nabc", "400 Bad Request"},
           {"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "400 Bad Request"},
           {"GET / HTTP/1.2\r\n\r\n", "400 Bad Request"},
           {"G(T / HTTP/1.1\r\n\r\n", "400 Bad Request"},
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
  auto server = Serve(AfterRelease(&release), limits);
  RawClient first(server->port());
  first.Send("GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
  RawClient second(server->port());
  EXPECT_EQ(second.ReadAll().rfind("HTTP/1.1 503", 0), 0u);
  release.Notify();
  EXPECT_NE(first.ReadAll().find("200 OK"), std::string::npos);
}

TEST(HttpServer, AHeadOrBodyThatDoesNotArriveInTimeGets408) {
  HttpLimits limits;
  limits.head_timeout = absl::Milliseconds(300);
  limits.body_timeout = absl::Milliseconds(300);
  auto server = Serve(Echo(), limits);
  RawClient slow_head(server->port());
  slow_head.Send("GET / HTTP/1.1\r\nX-Thing: one");  // ... and nothing more
  EXPECT_EQ(slow_head.ReadAll().rfind("HTTP/1.1 408 Request Timeout", 0), 0u);
  RawClient slow_body(server->port());
  slow_body.Send("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc");
  EXPECT_EQ(slow_body.ReadAll().rfind("HTTP/1.1 408 Request Timeout", 0), 0u);
  // A request that arrives whole is served as ever.
  RawClient prompt(server->port());
  prompt.Send("GET /a HTTP/1.1\r\n\r\n");
  EXPECT_NE(prompt.ReadUntil("[] ").find("200 OK"), std::string::npos);
}

TEST(HttpServer, OneClientAddressCannotTakeEveryConnection) {
  absl::Notification release;
  HttpLimits limits;
  limits.max_connections_per_client = 2;
  auto server = Serve(AfterRelease(&release), limits);
  RawClient a1(server->port(), "127.0.0.2"), a2(server->port(), "127.0.0.2");
  a1.Send("GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
  a2.Send("GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
  RawClient a3(server->port(), "127.0.0.2");
  EXPECT_EQ(a3.ReadAll().rfind("HTTP/1.1 503", 0), 0u);
  RawClient other(server->port(), "127.0.0.3");  // Another client is served.
  other.Send("GET / HTTP/1.1\r\nConnection: close\r\n\r\n");
  release.Notify();
  EXPECT_NE(other.ReadAll().find("200 OK"), std::string::npos);
  EXPECT_NE(a1.ReadAll().find("200 OK"), std::string::npos);
}

TEST(HttpServer, AHeadCheckRefusesBeforeTheBodyIsRead) {
  std::atomic<int> handled{0};
  auto server = Serve(
      [&](const HttpRequest&, HttpResponse& resp) {
        ++handled;
        resp.Send(200, "text/plain", "ok");
      },
      {},
      [](const HttpRequest& req) {
        HeadVerdict v;
        if (req.Header("authorization").empty()) {
          v.refuse_status = 401;
          v.refusal = R"({"code":"UNAUTHENTICATED"})";
        }
        v.max_body_bytes = 16;
        return v;
      });
  // 8 MiB announced and never sent: answered at once, from the head.
  RawClient anonymous(server->port());
  anonymous.Send("POST / HTTP/1.1\r\nContent-Length: 8388608\r\n\r\n");
  const std::string refused = anonymous.ReadAll();
  EXPECT_EQ(refused.rfind("HTTP/1.1 401 Unauthorized", 0), 0u) << refused;
  EXPECT_NE(refused.find("Connection: close"), std::string::npos) << refused;
  // The check's own body limit.
  RawClient big(server->port());
  big.Send("POST / HTTP/1.1\r\nAuthorization: x\r\nContent-Length: 17\r\n\r\n");
  EXPECT_EQ(big.ReadAll().rfind("HTTP/1.1 413", 0), 0u);
  EXPECT_EQ(handled.load(), 0);
}

}  // namespace
}  // namespace gnomon::http

// HttpServer: a small HTTP/1.1 server, plain or TLS (OpenSSL), for gnomond's
// HTTP/JSON API and console: a thread per connection (at most
// `max_connections`; beyond, 503), keep-alive, bodies with Content-Length (no
// chunked uploads), and long-lived Server-Sent Event streams.
//
//   HttpServer::Handler h = [](const HttpRequest& req, HttpResponse& resp) {
//     resp.Send(200, "application/json", "{}");
//   };
//   absl::StatusOr<std::unique_ptr<HttpServer>> s =
//       HttpServer::Start("127.0.0.1:0", h, tls_options);
//   (*s)->port();
//
// Requests are parsed strictly (RFC 9112): a malformed request line or
// header, a header name with whitespace before its colon, a folded header
// line, a repeated Content-Length, Transfer-Encoding, Host or Authorization,
// or a Content-Length that is not plain digits gets 400 and the connection
// closed — no guessing that a proxy in front might guess differently. A head
// over 16 KiB gets 431, a body over the limit 413, a chunked body 501.
//
// No client holds the server by being slow: at most
// `max_connections_per_client` connections per client address (beyond, 503);
// a request's head must arrive within `head_timeout` of its first byte and
// its body within `body_timeout` (408 otherwise); a connection idle for
// `idle_timeout` is closed. An optional HeadCheck decides from the head —
// before the body is read — whether the request may go on, and how large a
// body it may send: a caller without a valid credential is refused without
// gnomond reading (or holding) its body. TLS certificates are re-read as
// ServerTlsContext says.
//
// Thread safety: Start/the destructor from one thread; the handler is called
// on connection threads, concurrently.
#ifndef GNOMON_SERVICES_COMMON_HTTP_HTTP_SERVER_H_
#define GNOMON_SERVICES_COMMON_HTTP_HTTP_SERVER_H_

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/tls/server_context.h"
#include "services/common/tls/tls_credentials.h"

namespace gnomon::http {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // Without the query: "/v1/JobAdmin/GetJob".
  std::string query;   // After '?', undecoded; "" if none.
  // Header names in lower case; the last value of a repeated header.
  std::map<std::string, std::string> headers;
  std::string body;
  // The client's address (without the port).
  std::string client;

  // The header's value, or "".
  std::string Header(const std::string& lower_name) const;
};

class Connection;

// The answer to one request: either Send once, or StartEvents then Event
// as often as needed (the stream ends when the handler returns).
class HttpResponse {
 public:
  explicit HttpResponse(Connection* conn) : conn_(conn) {}
  // A whole response; `headers` are extra "Name: value" lines' pairs
  // (Cache-Control is no-store unless they set it).
  bool Send(int status, std::string_view content_type, std::string_view body,
            const std::map<std::string, std::string>& headers = {});
  // Starts a text/event-stream response (the connection closes after it).
  bool StartEvents();
  // One event ("" for a plain data event); false once the client has gone.
  bool Event(std::string_view event, std::string_view data);
  // A comment line that keeps the stream alive through proxies; false once
  // the client has gone.
  bool KeepAlive();
  // Whether the client hung up (checked without blocking).
  bool ClientGone();
  bool sent() const { return sent_; }

 private:
  friend class HttpServer;
  Connection* const conn_;
  bool sent_ = false;
  bool streaming_ = false;
};

struct HttpLimits {
  int max_connections = 256;
  int max_connections_per_client = 32;
  size_t max_body_bytes = 8 << 20;
  absl::Duration idle_timeout = absl::Seconds(60);
  absl::Duration head_timeout = absl::Seconds(10);
  absl::Duration body_timeout = absl::Seconds(30);
};

// What a request may do, decided from its head alone.
struct HeadVerdict {
  // Non-zero: the request is answered with this status and `refusal` (JSON)
  // and the connection closed, its body unread.
  int refuse_status = 0;
  std::string refusal;
  // The largest body this request may send (below HttpLimits' own).
  size_t max_body_bytes = std::numeric_limits<size_t>::max();
};

class HttpServer {
 public:
  using Handler = std::function<void(const HttpRequest&, HttpResponse&)>;
  // Called with the request's head (body empty), from connection threads.
  using HeadCheck = std::function<HeadVerdict(const HttpRequest&)>;

  // Serves on `address`; TLS when `tls.enabled`. `what` names it in logs.
  // `check` (may be null: every request goes on) sees each head first.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      const std::string& address, Handler handler, const tls::TlsOptions& tls,
      std::string what = "http", HttpLimits limits = {}, HeadCheck check = nullptr);
  // Stops accepting, closes every connection and waits for their threads.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }

 private:
  HttpServer(Handler handler, HeadCheck check, std::string what, HttpLimits limits)
      : handler_(std::move(handler)),
        check_(std::move(check)),
        what_(std::move(what)),
        limits_(limits) {}
  void AcceptLoop();
  // Whether a connection from `client` may be served now (counted in if so).
  bool Admit(const std::string& client);
  void Serve(int fd, const std::string& client);
  // Requests on one connection until it closes, errs or idles out.
  void Converse(Connection& conn, const std::string& client);

  const Handler handler_;
  const HeadCheck check_;
  const std::string what_;
  const HttpLimits limits_;
  std::unique_ptr<tls::ServerTlsContext> tls_;  // Null: plaintext.
  int listen_fd_ = -1;
  int wake_fd_ = -1;
  int port_ = 0;
  std::thread acceptor_;
  // The connection threads' bookkeeping, shared with them: a thread's last
  // act (after which the server may be gone) is to count itself out here.
  struct Connections {
    absl::Mutex mu;
    absl::flat_hash_set<int> fds ABSL_GUARDED_BY(mu);
    int threads ABSL_GUARDED_BY(mu) = 0;
    absl::flat_hash_map<std::string, int> per_client ABSL_GUARDED_BY(mu);  // By address.
    bool stopping ABSL_GUARDED_BY(mu) = false;
  };
  const std::shared_ptr<Connections> conns_ = std::make_shared<Connections>();
};

// "Not Found" for 404 and so on ("" for unknown codes).
std::string_view StatusText(int status);

}  // namespace gnomon::http

#endif  // GNOMON_SERVICES_COMMON_HTTP_HTTP_SERVER_H_

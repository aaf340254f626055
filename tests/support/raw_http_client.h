// RawHttpClient: one TCP connection to a loopback port that sends exactly the
// bytes a test wants (malformed, slow or partial requests) and reads what
// comes back. Header-only: used by unit and integration tests alike.
//
//   RawHttpClient c(port, "127.0.0.2");   // from another loopback address
//   c.Send("GET / HTTP/1.1\r\n\r\n");
//   std::string answer = c.ReadAll();
//
// Thread safety: one thread per client.
#ifndef GNOMON_TESTS_SUPPORT_RAW_HTTP_CLIENT_H_
#define GNOMON_TESTS_SUPPORT_RAW_HTTP_CLIENT_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

namespace gnomon::testing {

class RawHttpClient {
 public:
  // From `source` (every 127.x.y.z is this host); reads wait 10 s at most.
  explicit RawHttpClient(int port, const char* source = "127.0.0.1")
      : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &from.sin_addr);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof(from));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    const timeval limit{10, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof(limit));
  }
  ~RawHttpClient() { ::close(fd_); }
  RawHttpClient(const RawHttpClient&) = delete;
  RawHttpClient& operator=(const RawHttpClient&) = delete;

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
  // Reads until the server closes the connection (or 10 s pass quietly).
  std::string ReadAll() { return ReadUntil(std::string(1, '\0') + "never"); }
  bool connected() const { return connected_; }

 private:
  const int fd_;
  bool connected_ = false;
  std::string got_;
};

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_RAW_HTTP_CLIENT_H_

// Loopback servers for the alarm tests: a minimal HTTP/1.1 server and a
// minimal SMTP sink, each on 127.0.0.1:0 with one thread serving connections
// one at a time, capturing what they received.
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_ALARM_TESTING_TEST_SERVERS_H_
#define GNOMON_SERVICES_SCHEDULER_ALARM_TESTING_TEST_SERVERS_H_

#include <deque>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace gnomon::scheduler::alarm::loopback {

// Accept loop on 127.0.0.1:0; subclasses serve one connection in Serve().
class LoopbackServer {
 public:
  LoopbackServer();
  virtual ~LoopbackServer();
  int port() const { return port_; }

 protected:
  // Call at the end of the subclass constructor / start of its destructor.
  void StartServing();
  void StopServing();
  virtual void Serve(int fd) = 0;

  // Helpers for Serve: false on EOF/error/timeout.
  static bool ReadLine(int fd, std::string* buffer, std::string* line);
  static bool ReadExactly(int fd, std::string* buffer, size_t n, std::string* out);
  static bool WriteAll(int fd, const std::string& data);

 private:
  int listen_fd_ = -1;
  int port_ = 0;
  std::thread thread_;
};

// A port on 127.0.0.1 that nothing listens on (bound, then closed).
int UnusedPort();

class HttpServer final : public LoopbackServer {
 public:
  struct Request {
    std::string method;
    std::string target;                          // "/path?query", as sent.
    std::map<std::string, std::string> headers;  // Lower-case names.
    std::string body;
    std::string path() const { return target.substr(0, target.find('?')); }
    // After the '?' ("" without one).
    std::string query() const {
      size_t q = target.find('?');
      return q == std::string::npos ? "" : target.substr(q + 1);
    }
  };
  // What the server answers.
  struct Answer {
    int status = 200;
    std::string body = "ok";
  };

  HttpServer();
  ~HttpServer() override;

  std::string Url(const std::string& path) const;
  // Answers the next requests with `first` in order, then always `then`
  // (body "ok").
  void SetStatuses(std::deque<int> first, int then) ABSL_LOCKS_EXCLUDED(mu_);
  // The same with a body of the test's choosing.
  void SetAnswers(std::deque<Answer> first, Answer then) ABSL_LOCKS_EXCLUDED(mu_);
  // Adds "Name: value" header lines to every answer (e.g. a Location).
  void SetResponseHeaders(std::vector<std::string> lines) ABSL_LOCKS_EXCLUDED(mu_);
  std::vector<Request> requests() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Serve(int fd) override;

  mutable absl::Mutex mu_;
  std::deque<Answer> answers_ ABSL_GUARDED_BY(mu_);
  Answer then_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> response_headers_ ABSL_GUARDED_BY(mu_);
  std::vector<Request> requests_ ABSL_GUARDED_BY(mu_);
};

class SmtpSink final : public LoopbackServer {
 public:
  struct Mail {
    std::string helo;
    std::string mail_from;
    std::vector<std::string> rcpt_to;
    std::string data;        // The message, dot-unstuffed, CRLF line ends.
    std::string auth_plain;  // Decoded AUTH PLAIN response, if any.
  };

  // `offer_auth`: advertise AUTH PLAIN. `reject_rcpt`: answer RCPT TO with 550.
  explicit SmtpSink(bool offer_auth = false, bool reject_rcpt = false);
  ~SmtpSink() override;

  std::vector<Mail> mails() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Serve(int fd) override;

  const bool offer_auth_;
  const bool reject_rcpt_;
  mutable absl::Mutex mu_;
  std::vector<Mail> mails_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gnomon::scheduler::alarm::loopback

#endif  // GNOMON_SERVICES_SCHEDULER_ALARM_TESTING_TEST_SERVERS_H_

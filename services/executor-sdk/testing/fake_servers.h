// In-process fakes of gnomond for the executor SDK's tests: the registry, the
// log service and the Dispatch service (the scheduler's end of the stream an
// executor opens), and a client that drives runs and calls over that stream.
// Servers listen on port 0 (or a given port, to come back after an outage on
// the same address).
//
//   FakeRegistry registry("token");
//   FakeLogService logs("token", "app");
//   FakeDispatch dispatch("token", "app");
//   TestServer server({&registry, &logs, &dispatch});
//   ... executor with registry_endpoints = {server.address()} ...
//   ASSERT_TRUE(registry.WaitForRegistrations(1, absl::Seconds(10)));
//   DispatchClient scheduler(dispatch);  // waits for the executor's stream
//   std::optional<v1::RunAnswer> r = scheduler.Send(run);
//   std::optional<v1::RunResult> result = logs.WaitForResult(run.run_id(), absl::Seconds(10));
//
// Thread safety: all methods are thread-safe.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_TESTING_FAKE_SERVERS_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_TESTING_FAKE_SERVERS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gnomon/executor/options.h"
#include "gnomon/v1/executor.grpc.pb.h"
#include "gnomon/v1/log.grpc.pb.h"
#include "gnomon/v1/registry.grpc.pb.h"
#include "grpcpp/grpcpp.h"

namespace gnomon::executor::testing {

class FakeRegistry final : public v1::Registry::Service {
 public:
  explicit FakeRegistry(std::string token, absl::Duration beat_interval = absl::Seconds(1))
      : token_(std::move(token)), beat_interval_(beat_interval) {}

  grpc::Status Session(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::SessionResponse, v1::SessionRequest>* stream) override;

  bool WaitForRegistrations(int n, absl::Duration timeout) const;
  bool WaitForBeats(int n, absl::Duration timeout) const;
  bool WaitForDeregistrations(int n, absl::Duration timeout) const;
  // Waits for a beat whose state satisfies `pred`.
  bool WaitForBeat(const std::function<bool(const v1::Beat&)>& pred, absl::Duration timeout) const;
  bool WaitForRefusals(int n, absl::Duration timeout) const;
  std::vector<v1::Register> registrations() const;
  int active_sessions() const;
  // From now on a beat ends its session with `status`, as the registry does
  // with a beat it refuses (counted as a refusal); OK accepts beats again.
  void RefuseBeats(grpc::Status status);

 private:
  const std::string token_;
  const absl::Duration beat_interval_;
  mutable absl::Mutex mu_;
  std::vector<v1::Register> registrations_ ABSL_GUARDED_BY(mu_);
  std::vector<v1::Beat> beats_ ABSL_GUARDED_BY(mu_);
  int deregistrations_ ABSL_GUARDED_BY(mu_) = 0;
  int refusals_ ABSL_GUARDED_BY(mu_) = 0;
  int active_ ABSL_GUARDED_BY(mu_) = 0;
  grpc::Status beat_refusal_ ABSL_GUARDED_BY(mu_);
};

class FakeLogService final : public v1::LogService::Service {
 public:
  FakeLogService(std::string token, std::string app)
      : token_(std::move(token)), app_(std::move(app)) {}

  grpc::Status ReportResults(grpc::ServerContext* context,
                             grpc::ServerReaderWriter<v1::ReportResultsResponse,
                                                      v1::ReportResultsRequest>* stream) override;

  std::optional<v1::RunResult> WaitForResult(int64_t run_id, absl::Duration timeout) const;
  bool WaitForStarted(int64_t run_id, absl::Duration timeout) const;
  bool WaitForLines(int64_t run_id, size_t n, absl::Duration timeout) const;
  std::vector<v1::LogLine> lines(int64_t run_id) const;
  // Every result item received, duplicates included.
  int result_items() const;
  int log_items(int64_t run_id) const;
  int refusals() const;
  bool WaitForRefusals(int n, absl::Duration timeout) const;

 private:
  const std::string token_;
  const std::string app_;
  mutable absl::Mutex mu_;
  std::map<int64_t, v1::RunResult> results_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, std::vector<v1::LogLine>> lines_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, int> log_items_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, bool> started_ ABSL_GUARDED_BY(mu_);
  int result_items_ ABSL_GUARDED_BY(mu_) = 0;
  int refusals_ ABSL_GUARDED_BY(mu_) = 0;
};

// The gnomond end of Dispatch.Connect: checks the executor's metadata
// (x-gnomon-access-token, x-gnomon-app), writes Welcome{replica_id}, reads
// Hello, then keeps the stream open for the test to drive (Exchange, or a
// DispatchClient); the latest stream past Hello is the one driven.
class FakeDispatch final : public v1::Dispatch::Service {
 public:
  FakeDispatch(std::string token, std::string app, std::string replica_id = "fake")
      : token_(std::move(token)), app_(std::move(app)), replica_id_(std::move(replica_id)) {}

  grpc::Status Connect(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::ConnectResponse, v1::ConnectRequest>* stream) override;

  // Waits until a stream past Hello is open.
  bool WaitForConnected(absl::Duration timeout) const;
  // Waits until exactly `n` streams past Hello are open.
  bool WaitForOpenStreams(int n, absl::Duration timeout) const;
  // Waits until `n` Hellos have arrived since construction.
  bool WaitForHellos(int n, absl::Duration timeout) const;
  // Waits until `n` streams were ended by the executor after Welcome, without Hello.
  bool WaitForStreamsWithoutHello(int n, absl::Duration timeout) const;
  bool WaitForRefusals(int n, absl::Duration timeout) const;
  std::vector<v1::Hello> hellos() const;
  int open_streams() const;
  int streams_without_hello() const;
  int refusals() const;
  // From now on Connect ends with `status` before Welcome (counted as a
  // refusal), as gnomond does with refused credentials; OK accepts again.
  void Refuse(grpc::Status status);
  // Cancels every open stream: the executor sees it break and reconnects.
  void Break();
  // Writes `message` (runs or a call) on the latest open stream and returns
  // the executor's answer to it (answers, or the reply with the call's id);
  // nullopt if no stream opens within `timeout`, it breaks, or no answer comes.
  std::optional<v1::ConnectRequest> Exchange(const v1::ConnectResponse& message,
                                             absl::Duration timeout);
  // A fresh call id.
  uint64_t NextCallId();

 private:
  struct Stream;
  const std::string token_;
  const std::string app_;
  const std::string replica_id_;
  mutable absl::Mutex mu_;
  std::vector<std::shared_ptr<Stream>> streams_ ABSL_GUARDED_BY(mu_);  // Open, past Hello.
  std::vector<v1::Hello> hellos_ ABSL_GUARDED_BY(mu_);
  int without_hello_ ABSL_GUARDED_BY(mu_) = 0;
  int refusals_ ABSL_GUARDED_BY(mu_) = 0;
  grpc::Status refusal_ ABSL_GUARDED_BY(mu_);
  uint64_t next_call_id_ ABSL_GUARDED_BY(mu_) = 1;
};

// What a component or executor logs (options.logger), to wait for a line.
class LogLines {
 public:
  std::function<void(LogSeverity, std::string_view)> sink() {
    return [this](LogSeverity severity, std::string_view line) {
      absl::MutexLock lock(&mu_);
      lines_.push_back({severity, std::string(line)});
    };
  }
  // The first line at `severity` containing `text`, once logged ("" after `timeout`).
  std::string WaitFor(LogSeverity severity, std::string_view text, absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    std::string found;
    auto logged = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const auto& [s, line] : lines_) {
        if (s == severity && line.find(text) != std::string::npos) {
          found = line;
          return true;
        }
      }
      return false;
    };
    mu_.AwaitWithTimeout(absl::Condition(&logged), timeout);
    return found;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::pair<LogSeverity, std::string>> lines_ ABSL_GUARDED_BY(mu_);
};

// A gRPC server on 127.0.0.1 with the given services.
class TestServer {
 public:
  explicit TestServer(std::vector<grpc::Service*> services, int port = 0);
  ~TestServer();
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  void Stop();

 private:
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

// The scheduler's side of the executor's Dispatch.Connect stream to a
// FakeDispatch: one runs message answered per Send/SendBatch, one call per
// Beat/IdleBeat/Kill. Every method returns nullopt if the stream broke (or
// none opened within the timeout).
class DispatchClient {
 public:
  // Waits up to `timeout` for the executor's stream (see connected()).
  explicit DispatchClient(FakeDispatch& dispatch, absl::Duration timeout = absl::Seconds(30));
  // Whether a stream was open when constructed.
  bool connected() const { return connected_; }
  // Sends the run and waits for its answer.
  std::optional<v1::RunAnswer> Send(const v1::RunRequest& run);
  // All runs in one DispatchRequest; the one DispatchResponse that answers it.
  std::optional<v1::DispatchResponse> SendBatch(const std::vector<v1::RunRequest>& runs);
  std::optional<v1::BeatResponse> Beat();
  std::optional<v1::IdleBeatResponse> IdleBeat(int64_t job_id);
  std::optional<v1::KillResponse> Kill(int64_t run_id, const std::string& reason = "killed");
  // Breaks the stream (the executor reconnects).
  void Break() { dispatch_.Break(); }

 private:
  std::optional<v1::CallReply> Call(v1::Call call);
  FakeDispatch& dispatch_;
  const absl::Duration timeout_;
  bool connected_ = false;
};

// A bean run request for tests.
v1::RunRequest BeanRun(int64_t run_id, int64_t job_id, const std::string& handler,
                       const std::string& params = "",
                       v1::BlockStrategy strategy = v1::BLOCK_STRATEGY_SERIAL_EXECUTION,
                       absl::Duration timeout = absl::ZeroDuration());

}  // namespace gnomon::executor::testing

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_TESTING_FAKE_SERVERS_H_

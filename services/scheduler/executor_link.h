// ExecutorLink: one long-lived Executor.Dispatch stream to one executor.
//
// Run requests are queued and written by the link's writer thread, all that
// are queued in one DispatchRequest; answers (accepted/rejected per run) are
// matched by run id on its reader thread and handed to the caller's callback.
// A run that was sent but not answered (the stream broke, the link closed,
// no answer within the timeout) fails with kUnknown: the executor may have
// accepted it — except when the executor ended the stream refusing the
// scheduler's credentials: then it took nothing, and the runs fail with
// Unauthenticated saying so (a manual group's executor left on a rotated-out
// token). A run that was never sent fails with Unavailable (link
// closed) or ResourceExhausted (held back a whole timeout). The next Send
// after a broken stream opens a new one.
//
//   ExecutorLinks links(&RealClock());
//   links.Send("10.0.0.7:9999", group_token, run,
//              [](absl::StatusOr<v1::RunAnswer> r) { ... });
//
// Thread safety: thread-safe. Callbacks run on link threads; they must not block long.
#ifndef GNOMON_SERVICES_SCHEDULER_EXECUTOR_LINK_H_
#define GNOMON_SERVICES_SCHEDULER_EXECUTOR_LINK_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "gnomon/v1/executor.grpc.pb.h"
#include "services/common/client/clock.h"
#include "services/common/tls/tls_credentials.h"

namespace gnomon::scheduler {

using DispatchCallback = std::function<void(absl::StatusOr<v1::RunAnswer>)>;

class ExecutorLink {
 public:
  // `dial` makes the channel (TLS or not).
  ExecutorLink(std::string address, std::string token, Clock* clock, absl::Duration answer_timeout,
               const tls::Dialer& dial);
  ~ExecutorLink();
  ExecutorLink(const ExecutorLink&) = delete;
  ExecutorLink& operator=(const ExecutorLink&) = delete;

  void Send(v1::RunRequest run, DispatchCallback cb) ABSL_LOCKS_EXCLUDED(mu_);
  // Waits until every run sent so far is answered (or failed) or the link is
  // closed; false if some run is still queued or unanswered at `deadline`.
  bool AwaitAnswered(absl::Time deadline) ABSL_LOCKS_EXCLUDED(mu_);
  // Fails everything queued or unanswered and stops the threads.
  void Close() ABSL_LOCKS_EXCLUDED(mu_);
  // Unary calls on the same channel, carrying the group token.
  // Executor.Beat answered OK within `timeout`.
  bool Beat(absl::Duration timeout);
  // Executor.IdleBeat says `job_id` is idle there.
  bool Idle(int64_t job_id, absl::Duration timeout);
  absl::StatusOr<v1::KillResponse> Kill(const v1::KillRequest& request, absl::Duration timeout);
  const std::string& token() const { return token_; }

  // Runs per DispatchRequest, and runs sent but unanswered, at most. Past
  // the in-flight limit runs wait in the queue (back-pressure); a run that
  // waits there a whole answer timeout fails with RESOURCE_EXHAUSTED.
  static constexpr int kMaxBatch = 512;
  static constexpr size_t kMaxInFlight = 8192;

 private:
  // A context with the token and a deadline `timeout` from now.
  std::unique_ptr<grpc::ClientContext> CallContext(absl::Duration timeout) const;

  using Stream = grpc::ClientReaderWriter<v1::DispatchRequest, v1::DispatchResponse>;
  static constexpr size_t kMaxBatchBytes = 1 << 20;  // Under every receive limit.
  static constexpr absl::Duration kMinWriteInterval = absl::Microseconds(500);
  struct Pending {
    DispatchCallback cb;
    int64_t sent_ms = 0;
  };
  struct Queued {
    v1::RunRequest run;
    DispatchCallback cb;
    int64_t queued_ms = 0;
  };

  void WriterLoop() ABSL_LOCKS_EXCLUDED(mu_);
  void ReaderLoop(Stream* stream, uint64_t generation) ABSL_LOCKS_EXCLUDED(mu_);
  // Fails unanswered runs past the answer timeout and runs queued as long.
  void FailExpired(int64_t now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Opens a new stream if none is healthy; returns it (null when closed).
  Stream* EnsureStream() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Finishes the stream (cancelled first unless its reader saw it end) after
  // its reader has stopped: its status.
  grpc::Status TearDownStream() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // After the reader saw the stream end: tears it down and fails every run
  // sent on it, with the reason its status gives.
  void FailBrokenStream() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FailAll(absl::flat_hash_map<int64_t, Pending> pending, const absl::Status& why);

  const std::string address_;
  const std::string token_;
  Clock* const clock_;
  const absl::Duration answer_timeout_;
  std::unique_ptr<v1::Executor::Stub> stub_;

  absl::Mutex mu_;
  std::deque<Queued> queue_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int64_t, Pending> pending_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<grpc::ClientContext> ctx_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<Stream> stream_ ABSL_GUARDED_BY(mu_);
  std::thread reader_ ABSL_GUARDED_BY(mu_);
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  bool broken_ ABSL_GUARDED_BY(mu_) = false;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::thread writer_;
};

// What the Dispatcher asks of executors, by address and group token:
// ExecutorLinks in production, a fake in tests.
class ExecutorClient {
 public:
  virtual ~ExecutorClient() = default;
  // Sends a run over the executor's Dispatch stream; `cb` gets its answer.
  virtual void Send(const std::string& address, const std::string& token, v1::RunRequest run,
                    DispatchCallback cb) = 0;
  // Executor.Beat answered OK within `timeout`.
  virtual bool Beat(const std::string& address, const std::string& token,
                    absl::Duration timeout) = 0;
  // Executor.IdleBeat says `job_id` is idle there.
  virtual bool Idle(const std::string& address, const std::string& token, int64_t job_id,
                    absl::Duration timeout) = 0;
};

// The set of links, one per (address, token); created on first use.
class ExecutorLinks final : public ExecutorClient {
 public:
  // `dial` (null: plaintext) makes the channels to executors.
  explicit ExecutorLinks(Clock* clock, absl::Duration answer_timeout = absl::Seconds(10),
                         tls::Dialer dial = nullptr);
  ~ExecutorLinks() override { CloseAll(); }

  std::shared_ptr<ExecutorLink> Get(const std::string& address, const std::string& token)
      ABSL_LOCKS_EXCLUDED(mu_);
  void Send(const std::string& address, const std::string& token, v1::RunRequest run,
            DispatchCallback cb) override {
    Get(address, token)->Send(std::move(run), std::move(cb));
  }
  bool Beat(const std::string& address, const std::string& token, absl::Duration timeout) override {
    return Get(address, token)->Beat(timeout);
  }
  bool Idle(const std::string& address, const std::string& token, int64_t job_id,
            absl::Duration timeout) override {
    return Get(address, token)->Idle(job_id, timeout);
  }
  // Closes the links to `address` (the executor left).
  void Drop(const std::string& address) ABSL_LOCKS_EXCLUDED(mu_);
  // Waits up to `limit` until every link's runs are answered (a graceful
  // stop lets the executors answer before CloseAll fails what is left).
  bool AwaitAnswered(absl::Duration limit) ABSL_LOCKS_EXCLUDED(mu_);
  void CloseAll() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  Clock* const clock_;
  const absl::Duration answer_timeout_;
  const tls::Dialer dial_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<ExecutorLink>> links_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_EXECUTOR_LINK_H_

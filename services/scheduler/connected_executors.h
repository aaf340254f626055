// ConnectedExecutors: the Dispatch.Connect streams executors open to this
// replica, and the ExecutorClient that sends runs and calls over them.
//
// Each executor opens one stream to every replica (it needs no listening
// port; gnomond dials nothing an executor supplies). A stream is
// authenticated by its group's credentials when it opens and again every
// kGroupRecheck; this side writes Welcome, reads Hello (app and the
// executor's registered name), and from then on the stream is where runs
// routed to that executor go. Runs are queued per executor and written, all
// that are queued in one message, whenever no write is in flight; answers
// come back in order and are matched by run id. A reconnecting executor's
// new stream replaces its old one.
//
// Outcomes of a run sent (DispatchCallback): the executor's answer; kUnknown
// when it was written but the stream broke or no answer came within
// answer_timeout (the executor may hold it); Unavailable when it was never
// written because the executor is not connected here for connect_wait
// (registered through another replica, or reconnecting); ResourceExhausted
// when it waited a whole answer_timeout behind the in-flight limit.
//
// The streams use gRPC's callback API: a connected executor holds no thread
// here. One sweeper thread expires what waited too long and re-checks
// credentials.
//
//   ConnectedExecutors executors(&auth, {.replica_id = "gnomond-0:7070"});
//   server.AddService(executors.service(), v1::Dispatch::service_full_name());
//   executors.Start();
//   executors.Send("billing-7f9c:1", "billing", run, [](absl::StatusOr<v1::RunAnswer> r) {...});
//   executors.CloseAll();  // ends every stream (gnomond stopping)
//
// Thread safety: thread-safe; callbacks run on gRPC or sweeper threads,
// never under a lock, and must not block long.
#ifndef GNOMON_SERVICES_SCHEDULER_CONNECTED_EXECUTORS_H_
#define GNOMON_SERVICES_SCHEDULER_CONNECTED_EXECUTORS_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gnomon/v1/executor.grpc.pb.h"
#include "gnomon/v1/registry.pb.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/server/authenticator.h"
#include "services/scheduler/executor_client.h"

namespace gnomon::scheduler {

struct ConnectedExecutorsOptions {
  // Sent in Welcome: executors keep one stream per replica.
  std::string replica_id;
  // A run written and not answered this long fails kUnknown.
  absl::Duration answer_timeout = absl::Seconds(10);
  // A run (or call) for an executor not connected here waits this long for
  // its stream before it fails Unavailable: long enough for an executor that
  // registered through another replica, or is reconnecting, to connect.
  absl::Duration connect_wait = absl::Seconds(3);
};

class ConnectedExecutors final : public ExecutorClient {
 public:
  // `auth` checks each stream's group credentials.
  ConnectedExecutors(Authenticator* auth, ConnectedExecutorsOptions options,
                     Clock* clock = &RealClock());
  ~ConnectedExecutors() override;  // CloseAll()
  ConnectedExecutors(const ConnectedExecutors&) = delete;
  ConnectedExecutors& operator=(const ConnectedExecutors&) = delete;

  // The gnomon.v1.Dispatch service to add to the server.
  grpc::Service* service();
  // Starts the sweeper.
  void Start();

  void Send(const std::string& address, const std::string& app, v1::RunRequest run,
            DispatchCallback cb) override ABSL_LOCKS_EXCLUDED(mu_);
  bool Beat(const std::string& address, const std::string& app, absl::Duration timeout) override
      ABSL_LOCKS_EXCLUDED(mu_);
  bool Idle(const std::string& address, const std::string& app, int64_t job_id,
            absl::Duration timeout) override ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<v1::KillResponse> Kill(const std::string& address, const std::string& app,
                                        const v1::KillRequest& request,
                                        absl::Duration timeout) override ABSL_LOCKS_EXCLUDED(mu_);

  // Executors with a stream here now.
  size_t connected() const ABSL_LOCKS_EXCLUDED(mu_);
  // Whether executor `address` of `app` has a stream here now.
  bool Connected(const std::string& address, const std::string& app) const ABSL_LOCKS_EXCLUDED(mu_);
  // Waits (real time) until each of `executors` (app and address) has a
  // stream here, or `deadline`; returns the addresses still without one.
  std::vector<std::string> AwaitConnected(const std::vector<v1::ExecutorInfo>& executors,
                                          absl::Time deadline) const ABSL_LOCKS_EXCLUDED(mu_);
  // The executor left the registry: what is queued for it fails Unavailable
  // and what it was sent fails kUnknown, at once. Its stream stays (it may
  // register again).
  void Drop(const std::string& address) ABSL_LOCKS_EXCLUDED(mu_);
  // Waits up to `limit` until every run queued or sent is answered (or
  // failed); false if some is not.
  bool AwaitAnswered(absl::Duration limit) ABSL_LOCKS_EXCLUDED(mu_);
  // Ends every stream (UNAVAILABLE: this replica stops), fails what is queued
  // or unanswered, refuses new streams, and waits for the streams to end.
  void CloseAll() ABSL_LOCKS_EXCLUDED(mu_);

  // Runs per message written, and runs written but unanswered per stream, at
  // most. Past the in-flight limit runs wait in the queue (back-pressure).
  static constexpr int kMaxBatch = 512;
  static constexpr size_t kMaxInFlight = 8192;

 private:
  class Service;
  class Stream;
  struct Queued {
    v1::RunRequest run;
    DispatchCallback cb;
    int64_t queued_ms = 0;
  };
  // A call waiting for its reply (guarded by mu_).
  struct CallSlot {
    bool done = false;
    std::optional<v1::CallReply> reply;
  };
  // Everything about one executor (app + name), across its streams.
  struct Link {
    Stream* stream = nullptr;  // The attached stream; null while not connected.
    int64_t unconnected_since_ms = 0;
    std::deque<Queued> queue;
    std::deque<v1::Call> calls;  // Not yet written.
    absl::flat_hash_map<uint64_t, std::shared_ptr<CallSlot>> waiting;
  };
  // A failure to report once the lock is released.
  struct Failure {
    DispatchCallback cb;
    absl::Status why;
  };
  using Failures = std::vector<Failure>;

  static std::string Key(const std::string& app, const std::string& address);
  // Writes the next message on `link`'s stream if it is idle.
  void Pump(Link& link) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sends `call` and waits for its reply until `timeout`.
  std::optional<v1::CallReply> Ask(const std::string& address, const std::string& app,
                                   v1::Call call, absl::Duration timeout) ABSL_LOCKS_EXCLUDED(mu_);
  // A new stream: authenticated, or refused.
  grpc::ServerBidiReactor<v1::ConnectRequest, v1::ConnectResponse>* Open(
      grpc::CallbackServerContext* context) ABSL_LOCKS_EXCLUDED(mu_);
  // Stream events (from Stream's reactions).
  void ReadNext(Stream* s) ABSL_LOCKS_EXCLUDED(mu_);
  // Ends `s` with `status` (unless it is ending already).
  void Close(Stream* s, grpc::Status status) ABSL_LOCKS_EXCLUDED(mu_);
  // A stream said Hello: it becomes `key`'s stream (ending an older one).
  void Attach(Stream* s, const std::string& key) ABSL_LOCKS_EXCLUDED(mu_);
  void Answered(Stream* s, const v1::DispatchResponse& answers) ABSL_LOCKS_EXCLUDED(mu_);
  void Replied(Stream* s, const v1::CallReply& reply) ABSL_LOCKS_EXCLUDED(mu_);
  void WriteDone(Stream* s, bool ok) ABSL_LOCKS_EXCLUDED(mu_);
  // Marks `s` finishing (no more writes or reads start on it), detaches it,
  // and collects its unanswered runs as kUnknown failures; true if the
  // caller must call s->Finish (once, after releasing the lock).
  bool BeginFinish(Stream* s, Failures& failures) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Ended(Stream* s) ABSL_LOCKS_EXCLUDED(mu_);
  // Fails what waited too long; re-checks credentials.
  void Sweep() ABSL_LOCKS_EXCLUDED(mu_);
  static void Report(Failures failures);

  Authenticator* const auth_;
  const ConnectedExecutorsOptions options_;
  Clock* const clock_;
  std::unique_ptr<Service> service_;

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Link> links_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<uint64_t, Stream*> streams_ ABSL_GUARDED_BY(mu_);  // Open, by id.
  uint64_t next_stream_id_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_call_id_ ABSL_GUARDED_BY(mu_) = 0;
  int reactors_ ABSL_GUARDED_BY(mu_) = 0;  // Streams not yet done (OnDone).
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  PeriodicWorker sweeper_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_CONNECTED_EXECUTORS_H_

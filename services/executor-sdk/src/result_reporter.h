// ResultReporter: delivers RunStarted, log-line batches and RunResults to
// LogService.ReportResults, through a RunSpool so nothing is lost.
//
// Items enter the spool first; a sender thread keeps one stream open to one of
// the log endpoints (failing over between them with jittered backoff),
// numbers items per stream, sends all that are waiting in one message, and
// removes each from the spool when its acknowledgement arrives (APPLIED,
// DUPLICATE or UNKNOWN_RUN). After a broken stream, unacknowledged items are
// sent again on the next one. Log lines are
// batched per run: a batch is spooled at `log_flush_lines` lines or every
// `log_flush_interval`, and always before that run's result.
//
//   ResultReporter reporter(options, std::move(spool), &logger);
//   reporter.Start();
//   reporter.AddStarted(run_id, now, "10.0.0.5:9999");
//   reporter.AddLine(run_id, line);
//   reporter.AddResult(result);
//   reporter.Drain(absl::Now() + absl::Seconds(5));
//   reporter.Stop();
//
// Thread safety: all methods are thread-safe.
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_RESULT_REPORTER_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_RESULT_REPORTER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gnomon/executor/options.h"
#include "gnomon/v1/log.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "services/common/client/periodic_worker.h"
#include "services/executor-sdk/src/channels.h"
#include "services/executor-sdk/src/logger.h"
#include "services/executor-sdk/src/reconnecting_stream.h"
#include "services/executor-sdk/src/run_spool.h"

namespace gnomon::executor::internal {

struct ReporterOptions {
  // App name, log service endpoints (LogEndpoints), token and reconnect backoff.
  ConnectionOptions connection;
  // How lines are batched.
  ReportingOptions reporting;
  Dialer dial;  // Makes the channel to an endpoint (TLS or not).
  // Items sent but not yet acknowledged on one stream.
  int max_in_flight = 4096;
  // Messages on the stream are at least this far apart unless a full one is
  // waiting: under load each carries many items (one write and one store
  // transaction for many runs); a lone item still goes at once.
  absl::Duration min_send_interval = absl::Milliseconds(2);
};

class ResultReporter {
 public:
  ResultReporter(ReporterOptions options, std::unique_ptr<RunSpool> spool, const Logger* logger);
  ~ResultReporter();  // Stop()
  ResultReporter(const ResultReporter&) = delete;
  ResultReporter& operator=(const ResultReporter&) = delete;

  void Start();
  // `receipt`: the run's RunRequest.receipt, echoed.
  void AddStarted(int64_t run_id, absl::Time start, const std::string& executor_address,
                  const std::string& receipt = "");
  void AddLine(int64_t run_id, const v1::LogLine& line);
  // Spools the run's pending lines, then the result (the sender syncs the
  // spool once per message before sending it).
  void AddResult(const v1::RunResult& result);
  // Waits until every item is acknowledged or `deadline`; true if drained.
  bool Drain(absl::Time deadline);
  // Stops the threads; unacknowledged items stay in the spool.
  void Stop();

  // Items waiting for acknowledgement (including unflushed log batches).
  size_t pending() const;
  // Acknowledgements received since Start.
  uint64_t acked() const;
  // When the oldest unacknowledged result's run ended (nullopt: none waits).
  std::optional<absl::Time> oldest_unacked_result_end() const { return spool_->OldestResultEnd(); }

 private:
  // Appends to the spool (written, not synced).
  void SpoolLocked(const v1::ReportItem& item) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FlushLinesLocked(int64_t run_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void FlushAllLinesLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // After a stream ended (not stopping): logs why, once per new error.
  void LogEnded(size_t index, const grpc::Status& status, absl::Duration delay)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // One stream to `endpoint`; returns its final status and whether any item
  // was acknowledged on it.
  grpc::Status RunStream(size_t endpoint_index, bool* acked_any);

  const ReporterOptions options_;
  const std::vector<std::string> endpoints_;  // LogEndpoints(options_.connection)
  const Logger* const logger_;
  std::vector<std::shared_ptr<grpc::Channel>> channels_;  // One per endpoint.
  std::vector<std::unique_ptr<v1::LogService::Stub>> stubs_;

  mutable absl::Mutex mu_;
  // Thread-safe itself; mu_ orders appends with the per-stream state below.
  const std::unique_ptr<RunSpool> spool_;
  absl::flat_hash_map<int64_t, std::vector<v1::LogLine>> pending_lines_ ABSL_GUARDED_BY(mu_);
  size_t pending_line_count_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  // Per-stream state.
  grpc::ClientContext* active_context_ ABSL_GUARDED_BY(mu_) = nullptr;
  bool stream_broken_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t cursor_ ABSL_GUARDED_BY(mu_) = 0;  // highest spool id sent on this stream
  uint64_t next_sequence_ ABSL_GUARDED_BY(mu_) = 1;
  std::map<uint64_t, uint64_t> in_flight_ ABSL_GUARDED_BY(mu_);  // sequence -> spool id
  uint64_t acked_ ABSL_GUARDED_BY(mu_) = 0;
  std::string last_error_ ABSL_GUARDED_BY(mu_);

  // Sends: one stream at a time, failing over between the endpoints.
  ReconnectingStream reconnect_;
  // Spools every run's pending lines each log_flush_interval.
  PeriodicWorker flusher_;
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_RESULT_REPORTER_H_

// LogServiceImpl: the gRPC adapter of gnomon.v1.LogService.
//
// ReportResults hands each message's items to the ReportWriter and writes
// their acks, in one message, when the writer reports them durable; queries
// go to the store through run_queries.h; StreamRunLog follows a run through
// the LogTailHub.
//
// ReportResults (one stream per connected executor, open for its life) uses
// gRPC's callback API: a connected executor holds no server thread between
// its messages, nor while its stream waits for room in the writer's queue.
// The other methods are synchronous.
//
//   LogServiceImpl service(store, store, store, &auth, &writer, &hub);
//   builder.RegisterService(&service);  // Outlives the server's Shutdown,
//   ...                                 // and `writer` outlives both.
//
// Thread safety: gRPC calls it from many threads; state lives in its parts,
// and each ReportResults stream's under its own mutex.
#ifndef GNOMON_SERVICES_LOG_LOG_SERVICE_H_
#define GNOMON_SERVICES_LOG_LOG_SERVICE_H_

#include "gnomon/v1/log.grpc.pb.h"
#include "services/common/server/authenticator.h"
#include "services/common/server/concurrency_cap.h"
#include "services/common/server/rate_limiter.h"
#include "services/common/store/job_store.h"
#include "services/common/store/run_store.h"
#include "services/common/store/stats_store.h"
#include "services/log/log_tail_hub.h"
#include "services/log/report_writer.h"

namespace gnomon::logsvc {

// Limits of the queries (GetRun, ListRuns, GetStats, StreamRunLog) per
// credential, so one viewer cannot starve the others; ReportResults, the
// executors' stream, has flow control of its own instead.
struct QueryLimits {
  // Calls per second per credential, as JobAdmin's (--admin-rate-limit).
  RateLimit rate;
  // Log follows (StreamRunLog, each holding a server thread while open)
  // open at once per credential, and in all.
  int follows_per_credential = 8;
  int follows = 256;
};

class LogServiceImpl final
    : public v1::LogService::WithCallbackMethod_ReportResults<v1::LogService::Service> {
 public:
  // `jobs` is read for access checks only.
  LogServiceImpl(store::JobStore* jobs, store::RunStore* runs, store::StatsStore* stats,
                 Authenticator* auth, ReportWriter* writer, LogTailHub* hub,
                 QueryLimits limits = {}, Clock* clock = &RealClock())
      : jobs_(jobs),
        runs_(runs),
        stats_(stats),
        auth_(auth),
        writer_(writer),
        hub_(hub),
        limiter_(limits.rate, clock),
        follows_(limits.follows_per_credential, limits.follows) {}

  grpc::ServerBidiReactor<v1::ReportResultsRequest, v1::ReportResultsResponse>* ReportResults(
      grpc::CallbackServerContext* context) override;
  grpc::Status StreamRunLog(grpc::ServerContext* context, const v1::StreamRunLogRequest* request,
                            grpc::ServerWriter<v1::LogLine>* writer) override;
  grpc::Status GetRun(grpc::ServerContext* context, const v1::GetRunRequest* request,
                      v1::Run* response) override;
  grpc::Status ListRuns(grpc::ServerContext* context, const v1::ListRunsRequest* request,
                        v1::ListRunsResponse* response) override;
  grpc::Status GetStats(grpc::ServerContext* context, const v1::GetStatsRequest* request,
                        v1::GetStatsResponse* response) override;

 private:
  // The caller, authorized for `method` and within its rate limit.
  absl::StatusOr<Caller> Admit(const grpc::ServerContext& context, std::string_view method);

  store::JobStore* const jobs_;
  store::RunStore* const runs_;
  store::StatsStore* const stats_;
  Authenticator* const auth_;
  ReportWriter* const writer_;
  LogTailHub* const hub_;
  RateLimiter limiter_;
  ConcurrencyCap follows_;
};

// Wires the writer's batches into the hub (wakes tails of changed runs).
void ConnectTailHub(ReportWriter* writer, LogTailHub* hub);

// Follows a run's stored log from `from_line`, calling `emit` for each line,
// until it ends (or at once without follow), or `emit` returns false (the
// client stopped reading). `go_on` is asked before each read, at least once a
// second: OK to go on, or the status the follow ends with (the client gone,
// its credential refused since the stream opened).
absl::Status FollowRunLog(store::RunStore* runs, LogTailHub* hub,
                          const v1::StreamRunLogRequest& req,
                          const std::function<absl::Status()>& go_on,
                          const std::function<bool(const v1::LogLine&)>& emit);

}  // namespace gnomon::logsvc

#endif  // GNOMON_SERVICES_LOG_LOG_SERVICE_H_

// ExecutorService: the gnomon.v1.Executor gRPC adapter over RunManager and
// RunLogFiles. Every call must carry the group's access token.
//
//   ExecutorService service(&manager, &log_files, token);  // (..., &metrics): answers counted
//   builder.RegisterService(&service);
//
// Thread safety: thread-safe (gRPC calls it from many threads).
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_EXECUTOR_SERVICE_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_EXECUTOR_SERVICE_H_

#include <atomic>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "gnomon/v1/executor.grpc.pb.h"
#include "services/executor-sdk/src/executor_metrics.h"
#include "services/executor-sdk/src/run_log_files.h"
#include "services/executor-sdk/src/run_manager.h"

namespace gnomon::executor::internal {

class ExecutorService final : public v1::Executor::Service {
 public:
  // `metrics` may be null.
  ExecutorService(RunManager* manager, const RunLogFiles* log_files, std::string access_token,
                  ExecutorMetrics* metrics = nullptr)
      : manager_(manager),
        log_files_(log_files),
        access_token_(std::move(access_token)),
        metrics_(metrics) {}

  grpc::Status Dispatch(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::DispatchResponse, v1::DispatchRequest>* stream) override;
  grpc::Status Beat(grpc::ServerContext* context, const v1::BeatRequest* request,
                    v1::BeatResponse* response) override;
  grpc::Status IdleBeat(grpc::ServerContext* context, const v1::IdleBeatRequest* request,
                        v1::IdleBeatResponse* response) override;
  grpc::Status Kill(grpc::ServerContext* context, const v1::KillRequest* request,
                    v1::KillResponse* response) override;
  grpc::Status ReadLog(grpc::ServerContext* context, const v1::ReadLogRequest* request,
                       grpc::ServerWriter<v1::LogLine>* writer) override;

 private:
  grpc::Status CheckToken(const grpc::ServerContext& context) const;

  RunManager* const manager_;
  const RunLogFiles* const log_files_;
  const std::string access_token_;
  ExecutorMetrics* const metrics_;
  // Notes `epoch` for `partition`; false (with the highest seen) if it is
  // smaller than one seen before.
  bool AdmitEpoch(int32_t partition, int64_t epoch, int64_t* seen) ABSL_LOCKS_EXCLUDED(epochs_mu_);

  // Highest scheduler fencing epoch seen per partition; dispatches with a
  // smaller (stale) one are refused, so a deposed holder cannot start runs.
  // Held while one run is admitted (epoch check, recall, submit).
  absl::Mutex admit_mu_;
  absl::Mutex epochs_mu_;
  absl::flat_hash_map<int32_t, int64_t> max_epochs_ ABSL_GUARDED_BY(epochs_mu_);
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_EXECUTOR_SERVICE_H_

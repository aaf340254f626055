// ExecutorService: the gnomon.v1.Executor gRPC adapter over RunManager and
// RunLogFiles. Every call must carry the group's access token.
//
//   ExecutorService service(&manager, &log_files, token);
//   builder.RegisterService(&service);
//
// Thread safety: thread-safe (gRPC calls it from many threads).
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_EXECUTOR_SERVICE_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_EXECUTOR_SERVICE_H_

#include <atomic>
#include <string>

#include "gnomon/v1/executor.grpc.pb.h"
#include "services/executor-sdk/src/run_log_files.h"
#include "services/executor-sdk/src/run_manager.h"

namespace gnomon::executor::internal {

class ExecutorService final : public v1::Executor::Service {
 public:
  ExecutorService(RunManager* manager, const RunLogFiles* log_files, std::string access_token)
      : manager_(manager), log_files_(log_files), access_token_(std::move(access_token)) {}

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
  // Highest scheduler fencing epoch seen; dispatches from a smaller (stale)
  // epoch are refused, so a deposed scheduler cannot start runs.
  std::atomic<int64_t> max_epoch_{0};
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_EXECUTOR_SERVICE_H_

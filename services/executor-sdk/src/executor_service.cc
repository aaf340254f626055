#include "services/executor-sdk/src/executor_service.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "services/executor-sdk/src/channels.h"

namespace gnomon::executor::internal {

grpc::Status ExecutorService::CheckToken(const grpc::ServerContext& context) const {
  if (TokenMatches(context, access_token_)) return grpc::Status::OK;
  if (metrics_ != nullptr) metrics_->AuthFailed();
  return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                      "missing or wrong x-gnomon-access-token for this executor's group");
}

bool ExecutorService::AdmitEpoch(int32_t partition, int64_t epoch, int64_t* seen) {
  absl::MutexLock l(&epochs_mu_);
  int64_t& max = max_epochs_[partition];
  *seen = max;
  if (epoch < max) return false;
  max = epoch;
  return true;
}

grpc::Status ExecutorService::Dispatch(
    grpc::ServerContext* context,
    grpc::ServerReaderWriter<v1::DispatchResponse, v1::DispatchRequest>* stream) {
  if (grpc::Status s = CheckToken(*context); !s.ok()) return s;
  v1::DispatchRequest request;
  while (stream->Read(&request)) {
    // One answer per run, all in one message: a batch of runs costs one
    // write back, not one per run.
    v1::DispatchResponse response;
    for (const v1::RunRequest& run : request.runs()) {
      v1::RunAnswer* answer = response.add_answers();
      answer->set_run_id(run.run_id());
      DispatchOutcome outcome;
      int64_t seen = 0;
      // The epoch's check and the run's admission are one step: a probe with
      // a newer epoch (on another stream) either finds the run accepted or
      // fences this dispatch off, never neither.
      absl::MutexLock admitting(&admit_mu_);
      // A newer epoch is noted even on a run accepted before...
      const bool current = AdmitEpoch(run.fence_partition(), run.fence_epoch(), &seen);
      if (std::optional<DispatchOutcome> known = manager_->Recall(run.run_id())) {
        // ...which is answered "already accepted" whatever the epoch: that
        // starts nothing, and a refusal would have its sender record it failed.
        outcome = *known;
      } else if (run.probe()) {
        // Only a question (after a takeover): not held here, nothing started.
        outcome.code = v1::HANDLE_CODE_REJECTED;
        outcome.kind = v1::REJECT_KIND_NOT_HELD;
        outcome.reason = "not held by this executor";
      } else if (!current) {
        outcome.code = v1::HANDLE_CODE_REJECTED;
        outcome.kind = v1::REJECT_KIND_STALE_EPOCH;
        outcome.reason = absl::StrCat("stale scheduler: fencing epoch ", run.fence_epoch(), " < ",
                                      seen, " of partition ", run.fence_partition());
      } else {
        outcome = manager_->Submit(run);
      }
      if (metrics_ != nullptr && !run.probe()) metrics_->Answered(outcome);
      if (outcome.accepted) {
        answer->mutable_accepted()->set_queue_position(outcome.queue_position);
        answer->mutable_accepted()->set_already_accepted(outcome.already_accepted);
      } else {
        answer->mutable_rejected()->set_code(outcome.code);
        answer->mutable_rejected()->set_reason(outcome.reason);
        answer->mutable_rejected()->set_kind(outcome.kind);
      }
    }
    if (!stream->Write(response)) break;
  }
  return grpc::Status::OK;
}

grpc::Status ExecutorService::Beat(grpc::ServerContext* context, const v1::BeatRequest* request,
                                   v1::BeatResponse* response) {
  if (grpc::Status s = CheckToken(*context); !s.ok()) return s;
  response->set_running_runs(manager_->running_runs());
  response->set_capacity(static_cast<uint32_t>(manager_->capacity()));
  return grpc::Status::OK;
}

grpc::Status ExecutorService::IdleBeat(grpc::ServerContext* context,
                                       const v1::IdleBeatRequest* request,
                                       v1::IdleBeatResponse* response) {
  if (grpc::Status s = CheckToken(*context); !s.ok()) return s;
  JobLoad load = manager_->Load(request->job_id());
  response->set_running(load.running);
  response->set_queued(load.queued);
  response->set_idle(load.running == 0 && load.queued == 0);
  return grpc::Status::OK;
}

grpc::Status ExecutorService::Kill(grpc::ServerContext* context, const v1::KillRequest* request,
                                   v1::KillResponse* response) {
  if (grpc::Status s = CheckToken(*context); !s.ok()) return s;
  response->set_found(manager_->Kill(request->run_id(), request->reason()));
  return grpc::Status::OK;
}

grpc::Status ExecutorService::ReadLog(grpc::ServerContext* context,
                                      const v1::ReadLogRequest* request,
                                      grpc::ServerWriter<v1::LogLine>* writer) {
  if (grpc::Status s = CheckToken(*context); !s.ok()) return s;
  int64_t from = request->from_line() <= 0 ? 1 : request->from_line();
  absl::Status status = log_files_->Read(request->run_id(), from, [&](const v1::LogLine& line) {
    return !context->IsCancelled() && writer->Write(line);
  });
  if (absl::IsNotFound(status)) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, std::string(status.message()));
  }
  if (!status.ok()) return grpc::Status(grpc::StatusCode::INTERNAL, std::string(status.message()));
  return grpc::Status::OK;
}

}  // namespace gnomon::executor::internal

#include "services/executor-sdk/src/executor_service.h"

#include <optional>

#include "absl/strings/str_cat.h"

namespace gnomon::executor::internal {

bool ExecutorService::AdmitEpoch(int32_t partition, int64_t epoch, int64_t* seen) {
  absl::MutexLock l(&epochs_mu_);
  int64_t& max = max_epochs_[partition];
  *seen = max;
  if (epoch < max) return false;
  max = epoch;
  return true;
}

v1::DispatchResponse ExecutorService::Answer(const v1::DispatchRequest& request) {
  // One answer per run, all in one message: a batch of runs costs one write
  // back, not one per run.
  v1::DispatchResponse response;
  for (const v1::RunRequest& run : request.runs()) *response.add_answers() = AnswerOne(run);
  return response;
}

v1::RunAnswer ExecutorService::AnswerOne(const v1::RunRequest& run) {
  v1::RunAnswer answer;
  answer.set_run_id(run.run_id());
  DispatchOutcome outcome;
  int64_t seen = 0;
  {
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
  }
  if (metrics_ != nullptr && !run.probe()) metrics_->Answered(outcome);
  if (outcome.accepted) {
    answer.mutable_accepted()->set_queue_position(outcome.queue_position);
    answer.mutable_accepted()->set_already_accepted(outcome.already_accepted);
  } else {
    answer.mutable_rejected()->set_code(outcome.code);
    answer.mutable_rejected()->set_reason(outcome.reason);
    answer.mutable_rejected()->set_kind(outcome.kind);
  }
  return answer;
}

v1::CallReply ExecutorService::Reply(const v1::Call& call) {
  v1::CallReply reply;
  reply.set_id(call.id());
  switch (call.kind_case()) {
    case v1::Call::kBeat:
      reply.mutable_beat()->set_running_runs(manager_->running_runs());
      reply.mutable_beat()->set_capacity(static_cast<uint32_t>(manager_->capacity()));
      break;
    case v1::Call::kIdleBeat: {
      JobLoad load = manager_->Load(call.idle_beat().job_id());
      reply.mutable_idle_beat()->set_running(load.running);
      reply.mutable_idle_beat()->set_queued(load.queued);
      reply.mutable_idle_beat()->set_idle(load.running == 0 && load.queued == 0);
      break;
    }
    case v1::Call::kKill:
      reply.mutable_kill()->set_found(manager_->Kill(call.kill().run_id(), call.kill().reason()));
      break;
    case v1::Call::KIND_NOT_SET:
      break;  // A newer gnomond's call: the reply without a kind says "not understood".
  }
  return reply;
}

}  // namespace gnomon::executor::internal

// ExecutorService: what an executor answers to gnomond over its scheduler
// streams (Dispatch.Connect), over RunManager: runs to start (or probes about
// runs) and calls (Beat, IdleBeat, Kill). It knows no transport and checks no
// credentials: the executor opens the streams itself, and gnomond
// authenticates it on them.
//
//   ExecutorService service(&manager);  // (&manager, &metrics): answers counted
//   v1::DispatchResponse answers = service.Answer(request.runs());
//   v1::CallReply reply = service.Reply(request.call());
//
// Thread safety: thread-safe (every scheduler stream calls it from its own
// thread).
#ifndef GNOMON_SERVICES_EXECUTOR_SDK_SRC_EXECUTOR_SERVICE_H_
#define GNOMON_SERVICES_EXECUTOR_SDK_SRC_EXECUTOR_SERVICE_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "gnomon/v1/executor.pb.h"
#include "services/executor-sdk/src/executor_metrics.h"
#include "services/executor-sdk/src/run_manager.h"

namespace gnomon::executor::internal {

class ExecutorService {
 public:
  // `metrics` may be null.
  explicit ExecutorService(RunManager* manager, ExecutorMetrics* metrics = nullptr)
      : manager_(manager), metrics_(metrics) {}

  // One answer per run of `request`, in its order (fencing epochs, runs
  // accepted before, probes, then RunManager::Submit).
  v1::DispatchResponse Answer(const v1::DispatchRequest& request) ABSL_LOCKS_EXCLUDED(admit_mu_);
  // The reply to a Beat, IdleBeat or Kill call, with its id (no kind for a
  // call of a kind this executor does not know).
  v1::CallReply Reply(const v1::Call& call);

 private:
  // Notes `epoch` for `partition`; false (with the highest seen) if it is
  // smaller than one seen before.
  bool AdmitEpoch(int32_t partition, int64_t epoch, int64_t* seen) ABSL_LOCKS_EXCLUDED(epochs_mu_);
  v1::RunAnswer AnswerOne(const v1::RunRequest& run) ABSL_LOCKS_EXCLUDED(admit_mu_);

  RunManager* const manager_;
  ExecutorMetrics* const metrics_;
  // Held while one run is admitted (epoch check, recall, submit).
  absl::Mutex admit_mu_;
  absl::Mutex epochs_mu_;
  // Highest scheduler fencing epoch seen per partition; dispatches with a
  // smaller (stale) one are refused, so a deposed holder cannot start runs.
  absl::flat_hash_map<int32_t, int64_t> max_epochs_ ABSL_GUARDED_BY(epochs_mu_);
};

}  // namespace gnomon::executor::internal

#endif  // GNOMON_SERVICES_EXECUTOR_SDK_SRC_EXECUTOR_SERVICE_H_

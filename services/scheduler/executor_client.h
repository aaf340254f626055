// ExecutorClient: what the scheduler asks of executors — send a run, beat,
// idle beat, kill — by the executor's registered name and its group's app.
// Executors connect out to gnomond (ConnectedExecutors in production), so
// nothing here dials an address an executor supplied, and no secret is
// presented to an executor: the app only picks the stream, which the
// executor opened with its group's credentials.
//
// Thread safety: implementations are thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_EXECUTOR_CLIENT_H_
#define GNOMON_SERVICES_SCHEDULER_EXECUTOR_CLIENT_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gnomon/v1/executor.pb.h"

namespace gnomon::scheduler {

// The answer to one run sent: accepted or rejected by the executor; or
// kUnknown (sent, no answer: the executor may hold it), Unavailable (never
// sent: the executor is not connected here), ResourceExhausted (never sent:
// held back a whole answer timeout).
using DispatchCallback = std::function<void(absl::StatusOr<v1::RunAnswer>)>;

class ExecutorClient {
 public:
  virtual ~ExecutorClient() = default;
  // Sends `run` to executor `address` (its registered name) of `app`; `cb`
  // gets the answer, on another thread.
  virtual void Send(const std::string& address, const std::string& app, v1::RunRequest run,
                    DispatchCallback cb) = 0;
  // The executor answered a beat within `timeout`.
  virtual bool Beat(const std::string& address, const std::string& app, absl::Duration timeout) = 0;
  // The executor says `job_id` is idle there (answered within `timeout`).
  virtual bool Idle(const std::string& address, const std::string& app, int64_t job_id,
                    absl::Duration timeout) = 0;
  // Stops one run there.
  virtual absl::StatusOr<v1::KillResponse> Kill(const std::string& address, const std::string& app,
                                                const v1::KillRequest& request,
                                                absl::Duration timeout) = 0;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_EXECUTOR_CLIENT_H_

#include "gnomon/executor/job_context.h"

#include "services/executor-sdk/src/run_state.h"

namespace gnomon::executor {

bool CancellationToken::IsCancelled() const { return state_->cancelled(); }

bool CancellationToken::WaitForCancellation(absl::Duration timeout) const {
  return state_->WaitFor(timeout);
}

std::string CancellationToken::reason() const { return state_->reason(); }

JobContext::JobContext(std::shared_ptr<internal::RunState> state)
    : state_(std::move(state)), token_(state_->cancel) {}

int64_t JobContext::run_id() const { return state_->request.run_id(); }
int64_t JobContext::job_id() const { return state_->request.job_id(); }
const std::string& JobContext::params() const { return state_->request.params(); }
uint32_t JobContext::shard_index() const { return state_->request.shard_index(); }
uint32_t JobContext::shard_total() const {
  return state_->request.shard_total() == 0 ? 1 : state_->request.shard_total();
}
uint32_t JobContext::attempt() const { return state_->request.attempt(); }
TriggerType JobContext::trigger_type() const {
  return static_cast<TriggerType>(state_->request.trigger_type());
}
absl::Time JobContext::deadline() const {
  absl::MutexLock lock(&state_->mu);
  return state_->deadline;
}
void JobContext::Log(std::string_view text) { state_->Log(text); }
void JobContext::SetResult(int code, std::string_view message) { state_->SetResult(code, message); }

}  // namespace gnomon::executor

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
int64_t JobContext::workflow_run_id() const { return state_->request.workflow_run_id(); }
const std::vector<WorkflowInput>& JobContext::inputs() const { return state_->inputs; }
std::optional<std::string> JobContext::Input(std::string_view node) const {
  for (const WorkflowInput& in : state_->inputs) {
    if (in.node == node) return in.output;
  }
  return std::nullopt;
}
void JobContext::Log(std::string_view text) { state_->Log(text); }
void JobContext::SetResult(int code, std::string_view message) { state_->SetResult(code, message); }
absl::Status JobContext::SetOutput(std::string value) {
  return state_->SetOutput(std::move(value));
}

}  // namespace gnomon::executor

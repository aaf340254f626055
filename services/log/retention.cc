#include "services/log/retention.h"

#include <functional>

#include "services/common/client/log.h"

namespace gnomon::logsvc {

int64_t Retention::InBatches(const char* what,
                             const std::function<absl::StatusOr<int64_t>()>& batch) const {
  int64_t total = 0;
  while (true) {
    absl::StatusOr<int64_t> n = batch();
    if (!n.ok()) {
      GNOMON_LOG(WARNING) << "log service: " << what << " failed: " << n.status();
      break;
    }
    total += *n;
    if (*n < options_.batch) break;
  }
  return total;
}

int64_t Retention::Sweep() {
  int64_t total = 0;
  const int b = options_.batch;
  if (options_.days > 0) {
    const int64_t before = clock_->NowMillis() - int64_t{options_.days} * 86'400'000;
    total += InBatches("retention by age", [&] { return runs_->DeleteRunsEndedBefore(before, b); });
    // The audit log is kept as long as runs.
    InBatches("retention of the audit log", [&] { return audit_->DeleteAuditBefore(before, b); });
  }
  if (options_.max_runs_per_job > 0) {
    total += InBatches("retention per job",
                       [&] { return runs_->TrimRunsPerJob(options_.max_runs_per_job, b); });
  }
  if (sessions_ != nullptr) {
    // Ended sessions are no use once a day has passed (Login is audited).
    const int64_t before = clock_->NowMillis() - 86'400'000;
    InBatches("pruning ended sessions", [&] { return sessions_->DeleteEndedSessions(before, b); });
  }
  if (total > 0) GNOMON_LOG(INFO) << "log service: retention deleted " << total << " runs";
  return total;
}

}  // namespace gnomon::logsvc

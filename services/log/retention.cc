#include "services/log/retention.h"

#include "services/common/client/log.h"

namespace gnomon::logsvc {

int64_t Retention::Sweep() {
  int64_t total = 0;
  if (options_.days > 0) {
    const int64_t before = clock_->NowMillis() - int64_t{options_.days} * 86'400'000;
    while (true) {
      absl::StatusOr<int64_t> n = runs_->DeleteRunsEndedBefore(before, options_.batch);
      if (!n.ok()) {
        GNOMON_LOG(WARNING) << "log service: retention by age failed: " << n.status();
        break;
      }
      total += *n;
      if (*n < options_.batch) break;
    }
    // The audit log is kept as long as runs.
    while (true) {
      absl::StatusOr<int64_t> n = audit_->DeleteAuditBefore(before, options_.batch);
      if (!n.ok()) {
        GNOMON_LOG(WARNING) << "log service: retention of the audit log failed: " << n.status();
        break;
      }
      if (*n < options_.batch) break;
    }
  }
  if (options_.max_runs_per_job > 0) {
    while (true) {
      absl::StatusOr<int64_t> n = runs_->TrimRunsPerJob(options_.max_runs_per_job, options_.batch);
      if (!n.ok()) {
        GNOMON_LOG(WARNING) << "log service: retention per job failed: " << n.status();
        break;
      }
      total += *n;
      if (*n < options_.batch) break;
    }
  }
  if (sessions_ != nullptr) {
    // Ended sessions are no use once a day has passed (Login is audited).
    const int64_t before = clock_->NowMillis() - 86'400'000;
    while (true) {
      absl::StatusOr<int64_t> n = sessions_->DeleteEndedSessions(before, options_.batch);
      if (!n.ok()) {
        GNOMON_LOG(WARNING) << "log service: pruning ended sessions failed: " << n.status();
        break;
      }
      if (*n < options_.batch) break;
    }
  }
  if (total > 0) GNOMON_LOG(INFO) << "log service: retention deleted " << total << " runs";
  return total;
}

}  // namespace gnomon::logsvc

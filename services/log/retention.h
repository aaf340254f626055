// Retention: deletes runs (and their log lines) and audit entries older than
// `days`, the oldest runs beyond `max_runs_per_job` per job, and login
// sessions that ended (expired or revoked) more than a day ago, in small
// batches so no transaction holds locks for long.
//
//   Retention r(store, store, &RealClock(), {.days = 30});
//   r.Start();   // a sweep now, then every interval, on its own thread
//   r.Stop();
//
// Thread safety: Sweep from any thread; Start and Stop from one.
#ifndef GNOMON_SERVICES_LOG_RETENTION_H_
#define GNOMON_SERVICES_LOG_RETENTION_H_

#include <algorithm>
#include <cstdint>
#include <functional>

#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/store/audit_store.h"
#include "services/common/store/credential_store.h"
#include "services/common/store/run_store.h"

namespace gnomon::logsvc {

struct RetentionOptions {
  int days = 30;                 // 0 keeps runs forever.
  int64_t max_runs_per_job = 0;  // 0 = no per-job limit.
  int batch = 500;               // Rows per transaction; below 1 counts as 1.
  absl::Duration interval = absl::Minutes(1);
};

class Retention {
 public:
  // `sessions` (may be null: kept) holds the login sessions.
  Retention(store::RunStore* runs, store::AuditStore* audit, Clock* clock, RetentionOptions options,
            store::CredentialStore* sessions = nullptr)
      : runs_(runs),
        audit_(audit),
        sessions_(sessions),
        clock_(clock),
        options_(Checked(options)),
        worker_(clock) {}

  // One full pass; returns how many runs were deleted.
  int64_t Sweep();
  void Start() {
    worker_.Start(options_.interval, [this] { Sweep(); });
  }
  void Stop() { worker_.Stop(); }

 private:
  // A batch of at least one row: a sweep that deletes nothing per batch
  // would never end.
  // Calls `batch` until it deletes fewer than a batch (or fails: logged,
  // naming `what`); how many it deleted.
  int64_t InBatches(const char* what, const std::function<absl::StatusOr<int64_t>()>& batch) const;
  static RetentionOptions Checked(RetentionOptions o) {
    o.batch = std::max(o.batch, 1);
    return o;
  }

  store::RunStore* const runs_;
  store::AuditStore* const audit_;
  store::CredentialStore* const sessions_;
  Clock* const clock_;
  const RetentionOptions options_;
  PeriodicWorker worker_;
};

}  // namespace gnomon::logsvc

#endif  // GNOMON_SERVICES_LOG_RETENTION_H_

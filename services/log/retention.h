// Retention: deletes runs (and their log lines) and audit entries older than
// `days`, and the oldest runs beyond `max_runs_per_job` per job, in small
// batches so no transaction holds locks for long.
//
//   Retention r(store, store, &RealClock(), {.days = 30});
//   std::thread t([&] { r.Run(); });
//   r.Stop(); t.join();
//
// Thread safety: thread-safe; Run on one thread.
#ifndef GNOMON_SERVICES_LOG_RETENTION_H_
#define GNOMON_SERVICES_LOG_RETENTION_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/store/audit_store.h"
#include "services/common/store/run_store.h"

namespace gnomon::logsvc {

struct RetentionOptions {
  int days = 30;                 // 0 keeps runs forever.
  int64_t max_runs_per_job = 0;  // 0 = no per-job limit.
  int batch = 500;
  absl::Duration interval = absl::Minutes(1);
};

class Retention {
 public:
  Retention(store::RunStore* runs, store::AuditStore* audit, Clock* clock, RetentionOptions options)
      : runs_(runs), audit_(audit), clock_(clock), options_(options) {}

  // One full pass; returns how many runs were deleted.
  int64_t Sweep();
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  store::RunStore* const runs_;
  store::AuditStore* const audit_;
  Clock* const clock_;
  const RetentionOptions options_;
  absl::Mutex mu_;
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace gnomon::logsvc

#endif  // GNOMON_SERVICES_LOG_RETENTION_H_

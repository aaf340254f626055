// RunReaper: ends runs that can no longer end by themselves, so their
// follow-ups (retries, alarms) happen instead of the runs staying "running"
// (XXL-JOB leaves them for 10 minutes).
//
// * Runs on an executor that left membership and did not come back within
//   `lost_grace` are failed with 504 "executor lost" — also when another
//   instance (a restarted process) is live at its address by then: that one
//   does not hold them.
// * Runs RUNNING on an executor that has not been live for `lost_grace`
//   are failed the same way, also when no scheduler saw it leave (it died
//   while the whole cluster was down): the periodic scan finds them.
// * PENDING runs whose dispatch was never confirmed for `pending_timeout`
//   (their scheduler died between recording and dispatching) are failed —
//   not those this replica is still sending or whose outcome waits to be
//   written (InFlightRuns: a backlog is no reason to fail a run), and only
//   provisionally (504, like a lost executor's runs): if an executor did run
//   it after all, its result replaces the verdict.
//
// Each replica reaps the runs of the jobs in the partitions it holds (none
// before it holds any; all without a SetOwnership call: one replica, tests).
//
//   RunReaper reaper(store, &membership, &RealClock(), {});
//   membership.OnLeft([&](const v1::ExecutorInfo& e) { reaper.ExecutorLeft(e); });
//   lease listener: reaper.SetOwnership(o);
//   reaper.Start();   // passes on its own thread
//   reaper.Stop();
//
// Thread safety: thread-safe; Start and Stop from one thread.
#ifndef GNOMON_SERVICES_SCHEDULER_RUN_REAPER_H_
#define GNOMON_SERVICES_SCHEDULER_RUN_REAPER_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/store/run_store.h"
#include "services/scheduler/in_flight_runs.h"
#include "services/scheduler/membership.h"
#include "services/scheduler/partition_lease.h"
#include "services/scheduler/scheduler_metrics.h"

namespace gnomon::scheduler {

struct RunReaperOptions {
  absl::Duration lost_grace = absl::Seconds(2);
  absl::Duration pending_timeout = absl::Seconds(30);
  absl::Duration scan_interval = absl::Seconds(5);
  // For this long after Start no executor counts as absent: after the
  // scheduler's own restart its executors are still reconnecting, and their
  // runs are not lost (SchedulerOptions::executor_return_grace).
  absl::Duration returning_grace = absl::ZeroDuration();
};

class RunReaper {
 public:
  // `metrics` (may be null) counts the runs it fails.
  // `in_flight` (may be null) holds the runs this replica is still sending.
  RunReaper(store::RunStore* store, Membership* membership, Clock* clock, RunReaperOptions options,
            SchedulerMetrics* metrics = nullptr, InFlightRuns* in_flight = nullptr)
      : store_(store),
        membership_(membership),
        clock_(clock),
        options_(options),
        metrics_(metrics),
        in_flight_(in_flight),
        worker_(clock) {}

  void ExecutorLeft(const v1::ExecutorInfo& executor) ABSL_LOCKS_EXCLUDED(mu_);
  void SetOwnership(std::shared_ptr<const Ownership> ownership) ABSL_LOCKS_EXCLUDED(mu_);
  void Start() {
    started_ms_ = clock_->NowMillis();
    worker_.Start([this] { return Pass(); });
  }
  void Stop() { worker_.Stop(); }

 private:
  struct Left {
    v1::ExecutorInfo executor;
    int64_t left_ms;
    int64_t check_at_ms;
  };
  // Fails the runs of executors whose grace ended and, every scan_interval,
  // scans; returns when the next check or scan is due.
  absl::Time Pass() ABSL_LOCKS_EXCLUDED(mu_);
  // What this replica holds now (null: every partition).
  std::shared_ptr<const Ownership> Held() ABSL_LOCKS_EXCLUDED(mu_);
  void FailLost(const Left& left, const Ownership* held);
  // A lost executor's runs could not be read or failed (the store is
  // down): checked again a lost_grace from now. Nothing else would find
  // them if a new process is live at the address (the scan passes its
  // address over), and they would stay RUNNING for ever.
  void TryAgainLater(const Left& left) ABSL_LOCKS_EXCLUDED(mu_);
  void FailStalePending(int64_t now_ms, const std::vector<int>& partitions);
  // Fails RUNNING runs on executors absent from membership for lost_grace.
  void FailOrphaned(int64_t now_ms, const std::vector<int>& partitions);
  // store_->FailRuns, counting the runs it ended.
  absl::StatusOr<int64_t> FailRuns(const std::vector<int64_t>& run_ids, v1::HandleCode code,
                                   std::string_view message, int64_t now_ms);

  store::RunStore* const store_;
  Membership* const membership_;
  Clock* const clock_;
  const RunReaperOptions options_;
  SchedulerMetrics* const metrics_;
  InFlightRuns* const in_flight_;
  absl::Mutex mu_;
  std::deque<Left> left_ ABSL_GUARDED_BY(mu_);
  // Addresses of RUNNING runs not live at a scan -> since when (the worker's thread only).
  absl::flat_hash_map<std::string, int64_t> absent_since_;
  int64_t next_scan_ms_ = 0;  // The worker's thread only.
  int64_t started_ms_ = 0;    // Set by Start before the worker runs.
  // Null: every partition's runs.
  std::shared_ptr<const Ownership> ownership_ ABSL_GUARDED_BY(mu_);
  PeriodicWorker worker_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_RUN_REAPER_H_

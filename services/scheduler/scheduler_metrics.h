// SchedulerMetrics: the scheduler role's Prometheus metrics. Every handle is
// looked up once, at construction; the components that count (Trigger,
// Deliveries, RunReaper, SchedulerRole's lease listener) hold a pointer to it
// — null when metrics are off — and on the hot path only add and observe.
// Values kept elsewhere (pool queues, alarm deliveries, jobs by state) are
// set by SchedulerRole's scrape hook.
//
//   SchedulerMetrics m(*registry, {/*per-job label ids*/}, {"webhook"});
//   m.Fired(v1::TRIGGER_TYPE_CRON, FireResult::kNoExecutor);
//   m.Accepted(run, clock->NowMillis());
//
// The schedule loop feeds its own figures (LoopPass, misfires skipped).
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_SCHEDULER_METRICS_H_
#define GNOMON_SERVICES_SCHEDULER_SCHEDULER_METRICS_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "services/common/metrics/enum_metrics.h"
#include "services/common/metrics/metrics_registry.h"
#include "services/common/metrics/run_metrics.h"
#include "services/common/metrics/scrape_values.h"
#include "services/common/store/store.h"
#include "services/scheduler/alarm/alarm_sender.h"
#include "services/scheduler/partition_lease.h"
#include "services/scheduler/trigger_pools.h"

namespace gnomon::scheduler {

// How a fire ended, per run it made (a broadcast counts each shard).
enum class FireResult {
  kDispatched,      // An executor accepted the run.
  kNoExecutor,      // No live executor (or none the router could pick).
  kBlockDiscarded,  // The job's block strategy refused it (DISCARD_LATER).
  kRejected,        // Every executor tried refused it otherwise.
  kFailed,          // The dispatch failed (unreachable executor, job deleted).
  kFenced,          // A newer holder of its partition exists; left to it.
  kSlotTaken,       // The slot was recorded before: nothing dispatched (once per fire).
  kMisfireSkipped,  // A misfired slot skipped by its job's misfire policy.
  kCount
};

class SchedulerMetrics {
 public:
  // `labelled_jobs` get a lateness histogram of their own (--metrics-jobs);
  // `alarm_channels` are the channels' names.
  SchedulerMetrics(metrics::MetricsRegistry& metrics, const std::vector<int64_t>& labelled_jobs,
                   const std::vector<std::string>& alarm_channels);

  void Fired(v1::TriggerType type, FireResult result) {
    fires_[static_cast<size_t>(result)][type].Increment();
  }
  // Slots a misfire policy passed over (never run): each one, not per fire.
  void SlotsSkipped(int64_t n) { slots_skipped_.Increment(static_cast<double>(n)); }
  // A job was paused by its pause_after_failures.
  void JobPaused() { jobs_paused_.Increment(); }
  // A fire's work was not done by its job's deadline.
  void DeadlineMissed() { deadlines_missed_.Increment(); }
  // A run queued for a pool's slot got one `waited_ms` after it was queued.
  void PoolRunLetGo(int64_t waited_ms) {
    pool_runs_let_go_.Increment();
    pool_wait_.Observe(static_cast<double>(waited_ms) / 1000.0);
  }
  // A workflow run ended (counted once, by the replica that stored its end).
  void WorkflowRunEnded(v1::WorkflowRunStatus status, absl::Duration took);
  // An executor accepted `run` (first time) at now_ms: a fire dispatched,
  // and its lateness.
  void Accepted(const v1::Run& run, int64_t now_ms);
  // A dispatch to an executor was answered, either way, `took` after it was sent.
  void DispatchAnswered(v1::RouteStrategy route, absl::Duration took) {
    // A job without a strategy is routed FIRST, and counted so.
    dispatch_latency_[route == v1::ROUTE_STRATEGY_UNSPECIFIED ? v1::ROUTE_STRATEGY_FIRST : route]
        .Observe(absl::ToDoubleSeconds(took));
  }
  // Runs the scheduler ended itself (no executor, refused, executor lost).
  void RunsEnded(int32_t handle_code, int64_t runs) { runs_ended_.Ended(handle_code, runs); }
  // One pass of the schedule loop: how long it took, the slots due and not
  // yet fired after it, and how long the oldest of them has waited (0: none).
  void LoopPass(absl::Duration took, size_t due_slots, absl::Duration oldest_due) {
    loop_pass_.Observe(absl::ToDoubleSeconds(took));
    due_slots_.Set(static_cast<double>(due_slots));
    oldest_due_.Set(absl::ToDoubleSeconds(oldest_due));
  }
  // What this replica holds after a lease renewal.
  void Owned(const Ownership& ownership) ABSL_LOCKS_EXCLUDED(mu_);

  // Scrape-time values.
  void SetPools(const TriggerPools::Stats& stats);
  void SetAlarms(const alarm::AlarmCounters& counters);
  void SetJobs(const std::vector<store::JobCount>& counts);
  // Each pool's slots, runs holding one and runs queued.
  void SetPoolRuns(const std::vector<v1::Pool>& pools);
  // Executors' Dispatch.Connect streams open on this replica.
  void SetExecutorStreams(size_t n) { executor_streams_.Set(static_cast<double>(n)); }
  // Jobs this replica does not fire because the calendar they name is not found.
  void SetJobsAwaitingCalendar(size_t n) { jobs_awaiting_calendar_.Set(static_cast<double>(n)); }

 private:
  std::vector<metrics::PerEnum<v1::TriggerType, prometheus::Counter>> fires_;  // Index: FireResult.
  metrics::PerEnum<v1::TriggerType, prometheus::Histogram> lateness_;
  absl::flat_hash_map<int64_t, prometheus::Histogram*>
      job_lateness_;  // Immutable after construction.
  metrics::PerEnum<v1::RouteStrategy, prometheus::Histogram> dispatch_latency_;
  metrics::RunEndCounters runs_ended_;

  prometheus::Histogram& loop_pass_;
  prometheus::Gauge& due_slots_;
  prometheus::Gauge& oldest_due_;
  prometheus::Gauge& partitions_;
  prometheus::Gauge& partitions_held_;
  prometheus::Gauge& live_replicas_;
  prometheus::Gauge& executor_streams_;
  prometheus::Gauge& jobs_awaiting_calendar_;
  prometheus::Counter& partitions_gained_;
  prometheus::Counter& partitions_lost_;
  prometheus::Family<prometheus::Gauge>& epochs_;

  prometheus::Gauge& fast_queued_;
  prometheus::Gauge& slow_queued_;
  prometheus::Counter& backpressure_waits_;
  prometheus::Counter& to_slow_pool_;
  prometheus::Counter& slots_skipped_;
  prometheus::Counter& jobs_paused_;
  prometheus::Counter& deadlines_missed_;
  prometheus::Counter& pool_runs_let_go_;
  prometheus::Histogram& pool_wait_;
  // Workflow runs ended: succeeded, failed, cancelled.
  prometheus::Counter& workflow_runs_succeeded_;
  prometheus::Counter& workflow_runs_failed_;
  prometheus::Counter& workflow_runs_cancelled_;
  prometheus::Histogram& workflow_run_duration_;

  std::map<std::string, prometheus::Counter*> alarms_sent_;    // By channel.
  std::map<std::string, prometheus::Counter*> alarms_failed_;  // By channel.
  prometheus::Counter& alarms_aggregated_;

  metrics::GaugeSnapshot jobs_;
  metrics::GaugeSnapshot pools_;
  metrics::GaugeSnapshot pool_slots_;

  absl::Mutex mu_;
  std::vector<int> held_ ABSL_GUARDED_BY(mu_);  // As of the last Owned().
  // epochs_'s series of each partition held here since the start.
  absl::flat_hash_map<int, prometheus::Gauge*> epoch_of_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_SCHEDULER_METRICS_H_

#include "services/scheduler/scheduler_metrics.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/metrics/buckets.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

constexpr const char* kFireResults[] = {"dispatched", "no_executor",    "block_discarded",
                                        "rejected",   "failed",         "fenced",
                                        "slot_taken", "misfire_skipped"};
static_assert(std::size(kFireResults) == static_cast<size_t>(FireResult::kCount));

constexpr char kLatenessHelp[] =
    "From when a run was due (its slot for scheduled fires, else when it was triggered) to when an "
    "executor "
    "accepted it, by trigger type.";
constexpr char kTransitions[] = "gnomon_scheduler_partition_transitions_total";
constexpr char kTransitionsHelp[] = "Partitions this replica took (gained) or gave up (lost).";
constexpr char kPoolQueued[] = "gnomon_scheduler_trigger_pool_queued";
constexpr char kPoolQueuedHelp[] = "Dispatches waiting in a trigger pool (fast or slow).";
constexpr char kAlarms[] = "gnomon_scheduler_alarms_total";
constexpr char kWorkflowRuns[] = "gnomon_workflow_runs_total";
constexpr char kWorkflowRunsHelp[] = "Workflow runs that ended, by outcome.";
constexpr char kAlarmsHelp[] =
    "Alarm deliveries by channel and result (sent, or failed after its retries).";

}  // namespace

SchedulerMetrics::SchedulerMetrics(metrics::MetricsRegistry& m,
                                   const std::vector<int64_t>& labelled_jobs,
                                   const std::vector<std::string>& alarm_channels)
    : lateness_(m.HistogramFamily("gnomon_scheduler_trigger_lateness_seconds", kLatenessHelp),
                "trigger_type", prometheus::Labels{}, metrics::LatenessBuckets()),
      dispatch_latency_(
          m.HistogramFamily("gnomon_scheduler_dispatch_latency_seconds",
                            "From sending a run to an executor to its answer (accepted or not), by "
                            "the job's route strategy; excludes time queued in the trigger pools."),
          "route", prometheus::Labels{}, metrics::LatencyBuckets()),
      runs_ended_(metrics::ServerRunEnds(m)),
      loop_pass_(
          m.Histogram("gnomon_scheduler_loop_pass_duration_seconds",
                      "One pass of the schedule loop: pre-read or re-read, fire, cursor flush.",
                      metrics::LatencyBuckets())),
      due_slots_(m.Gauge(
          "gnomon_scheduler_due_slots",
          "Slots due and not yet fired in this replica's schedule loop, after its last pass.")),
      oldest_due_(m.Gauge("gnomon_scheduler_oldest_due_slot_age_seconds",
                          "How long the oldest due slot not yet fired has waited (0: none).")),
      partitions_(m.Gauge("gnomon_scheduler_partitions",
                          "The installation's scheduler partition count (gnomond --partitions).")),
      partitions_held_(
          m.Gauge("gnomon_scheduler_partitions_held",
                  "Scheduler partitions (of gnomon_scheduler_partitions) this replica holds and "
                  "fires.")),
      live_replicas_(
          m.Gauge("gnomon_scheduler_live_replicas",
                  "Scheduler replicas with a live presence lease, as this replica last read.")),
      executor_streams_(m.Gauge("gnomon_scheduler_executor_streams",
                                "Executors connected to this replica (their Dispatch.Connect "
                                "streams, after Hello).")),
      jobs_awaiting_calendar_(
          m.Gauge("gnomon_scheduler_jobs_awaiting_calendar",
                  "Jobs due soon that this replica does not fire because the calendar "
                  "their schedule names is not found (as of its last pre-read).")),
      partitions_gained_(m.Counter(kTransitions, kTransitionsHelp, {{"change", "gained"}})),
      partitions_lost_(m.Counter(kTransitions, kTransitionsHelp, {{"change", "lost"}})),
      epochs_(m.GaugeFamily(
          "gnomon_scheduler_partition_epoch",
          "Fencing epoch of each partition this replica holds (0: held here before, not now).")),
      fast_queued_(m.Gauge(kPoolQueued, kPoolQueuedHelp, {{"pool", "fast"}})),
      slow_queued_(m.Gauge(kPoolQueued, kPoolQueuedHelp, {{"pool", "slow"}})),
      backpressure_waits_(m.Counter("gnomon_scheduler_trigger_pool_backpressure_waits_total",
                                    "Dispatches that waited for room in a full trigger pool.")),
      to_slow_pool_(
          m.Counter("gnomon_scheduler_trigger_pool_slow_submits_total",
                    "Dispatches sent through the slow pool (their job was slow this minute).")),
      slots_skipped_(m.Counter("gnomon_scheduler_slots_skipped_total",
                               "Schedule slots their job's misfire policy passed over: later than "
                               "the misfire threshold and never run (each slot counted).")),
      jobs_paused_(m.Counter("gnomon_scheduler_jobs_paused_total",
                             "Jobs paused by their pause_after_failures: that many of their runs "
                             "in a row failed for good.")),
      deadlines_missed_(m.Counter("gnomon_scheduler_deadlines_missed_total",
                                  "Fires whose work was not done by their job's deadline (each "
                                  "raised an alarm; nothing was killed).")),
      pool_runs_let_go_(m.Counter("gnomon_scheduler_pool_runs_let_go_total",
                                  "Runs queued for a slot of their job's pool that got one and "
                                  "were let go to an executor (by this replica).")),
      pool_wait_(m.Histogram("gnomon_scheduler_pool_wait_seconds",
                             "How long runs waited in their pool's queue for a slot.",
                             metrics::RunDurationBuckets())),
      workflow_runs_succeeded_(
          m.Counter(kWorkflowRuns, kWorkflowRunsHelp, {{"status", "succeeded"}})),
      workflow_runs_failed_(m.Counter(kWorkflowRuns, kWorkflowRunsHelp, {{"status", "failed"}})),
      workflow_runs_cancelled_(
          m.Counter(kWorkflowRuns, kWorkflowRunsHelp, {{"status", "cancelled"}})),
      workflow_run_duration_(m.Histogram("gnomon_workflow_run_duration_seconds",
                                         "Workflow runs that ended: from their start to their end.",
                                         metrics::RunDurationBuckets())),
      alarms_aggregated_(m.Counter(
          "gnomon_scheduler_alarms_aggregated_total",
          "Alarms folded into their job's summary (sent as one alarm with the count) "
          "because an alarm of the job was still being delivered or the queue was full.")),
      jobs_(m.GaugeFamily("gnomon_jobs",
                          "Jobs by group (app name) and state, read from the store at scrape.")),
      pools_(m.GaugeFamily("gnomon_pool_runs",
                           "Runs of each pool (Job.pool) holding a slot (state running) or "
                           "waiting for one (state queued), read from the store at scrape.")),
      pool_slots_(m.GaugeFamily("gnomon_pool_slots",
                                "The slots of each pool, read from the store at scrape.")) {
  auto& fires = m.CounterFamily(
      "gnomon_scheduler_fires_total",
      "Fires by trigger type and outcome: once per run a fire made (a broadcast counts "
      "each shard), once per fire whose slot was already recorded.");
  for (const char* result : kFireResults) {
    fires_.emplace_back(fires, "trigger_type", prometheus::Labels{{"outcome", result}});
  }
  for (int64_t id : labelled_jobs) {
    job_lateness_[id] = &m.Histogram(
        "gnomon_scheduler_job_trigger_lateness_seconds",
        "gnomon_scheduler_trigger_lateness_seconds of the jobs listed in --metrics-jobs.",
        metrics::LatenessBuckets(), {{"job_id", absl::StrCat(id)}});
  }
  for (const std::string& channel : alarm_channels) {
    alarms_sent_[channel] =
        &m.Counter(kAlarms, kAlarmsHelp, {{"channel", channel}, {"result", "sent"}});
    alarms_failed_[channel] =
        &m.Counter(kAlarms, kAlarmsHelp, {{"channel", channel}, {"result", "failed"}});
  }
}

void SchedulerMetrics::Accepted(const v1::Run& run, int64_t now_ms) {
  Fired(run.trigger_type(), FireResult::kDispatched);
  const int64_t scheduled =
      run.has_scheduled_time() ? TimeUtil::TimestampToMilliseconds(run.scheduled_time()) : 0;
  const int64_t due = metrics::DueMillis(run.trigger_type(), scheduled,
                                         TimeUtil::TimestampToMilliseconds(run.trigger_time()));
  const double late_s = std::max<int64_t>(0, now_ms - due) / 1000.0;
  lateness_[run.trigger_type()].Observe(late_s);
  if (job_lateness_.empty()) return;
  if (auto it = job_lateness_.find(run.job_id()); it != job_lateness_.end())
    it->second->Observe(late_s);
}

void SchedulerMetrics::Owned(const Ownership& o) {
  if (o.partition_count() > 0) partitions_.Set(o.partition_count());
  partitions_held_.Set(static_cast<double>(o.partitions.size()));
  live_replicas_.Set(o.live_replicas);
  absl::MutexLock l(&mu_);
  std::vector<int> gained, lost;
  std::set_difference(o.partitions.begin(), o.partitions.end(), held_.begin(), held_.end(),
                      std::back_inserter(gained));
  std::set_difference(held_.begin(), held_.end(), o.partitions.begin(), o.partitions.end(),
                      std::back_inserter(lost));
  // A series per partition ever held here (of up to kMaxPartitions), not
  // one per partition of the installation on every replica.
  for (int p : lost) epoch_of_[p]->Set(0);
  for (int p : o.partitions) {
    prometheus::Gauge*& g = epoch_of_[p];
    if (g == nullptr) g = &epochs_.Add({{"partition", absl::StrCat(p)}});
    g->Set(static_cast<double>(o.epochs[p]));
  }
  partitions_gained_.Increment(static_cast<double>(gained.size()));
  partitions_lost_.Increment(static_cast<double>(lost.size()));
  held_ = o.partitions;
}

void SchedulerMetrics::SetPools(const TriggerPools::Stats& s) {
  fast_queued_.Set(static_cast<double>(s.fast_queued));
  slow_queued_.Set(static_cast<double>(s.slow_queued));
  metrics::MirrorCount(backpressure_waits_, s.backpressure_waits);
  metrics::MirrorCount(to_slow_pool_, s.to_slow_pool);
}

void SchedulerMetrics::SetAlarms(const alarm::AlarmCounters& c) {
  for (const auto& [channel, n] : c.sent_by_channel) {
    if (auto it = alarms_sent_.find(channel); it != alarms_sent_.end())
      metrics::MirrorCount(*it->second, n);
  }
  for (const auto& [channel, n] : c.failed_by_channel) {
    if (auto it = alarms_failed_.find(channel); it != alarms_failed_.end())
      metrics::MirrorCount(*it->second, n);
  }
  metrics::MirrorCount(alarms_aggregated_, c.aggregated);
}

void SchedulerMetrics::SetJobs(const std::vector<store::JobCount>& counts) {
  std::vector<std::pair<prometheus::Labels, double>> values;
  for (const store::JobCount& c : counts) {
    values.push_back({{{"app", c.app_name}, {"state", metrics::EnumLabel(c.state)}},
                      static_cast<double>(c.jobs)});
  }
  jobs_.Set(values);
}

void SchedulerMetrics::SetPoolRuns(const std::vector<v1::Pool>& pools) {
  std::vector<std::pair<prometheus::Labels, double>> runs;
  std::vector<std::pair<prometheus::Labels, double>> slots;
  for (const v1::Pool& p : pools) {
    runs.push_back({{{"pool", p.name()}, {"state", "running"}}, static_cast<double>(p.running())});
    runs.push_back({{{"pool", p.name()}, {"state", "queued"}}, static_cast<double>(p.queued())});
    slots.push_back({{{"pool", p.name()}}, static_cast<double>(p.slots())});
  }
  pools_.Set(runs);
  pool_slots_.Set(slots);
}

void SchedulerMetrics::WorkflowRunEnded(v1::WorkflowRunStatus status, absl::Duration took) {
  (status == v1::WORKFLOW_RUN_STATUS_SUCCEEDED   ? workflow_runs_succeeded_
   : status == v1::WORKFLOW_RUN_STATUS_CANCELLED ? workflow_runs_cancelled_
                                                 : workflow_runs_failed_)
      .Increment();
  workflow_run_duration_.Observe(absl::ToDoubleSeconds(took));
}

}  // namespace gnomon::scheduler

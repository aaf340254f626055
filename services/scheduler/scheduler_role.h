// SchedulerRole: assembles the scheduler — membership watch, the executors'
// streams, run recorder, group targets and deliveries (composed by Trigger),
// schedule loop and the JobAdmin service — and runs its threads.
//
//   SchedulerRole role(store, &auth, options);  // or (..., options, &metrics) to measure it
//   server.AddService(role.service());
//   server.AddService(role.executors_service());  // gnomon.v1.Dispatch
//   role.Start("127.0.0.1:7070");  // after the server listens (the registry may be in it)
//   ...
//   role.Stop();
//
// Thread safety: Start/Stop from one thread.
#ifndef GNOMON_SERVICES_SCHEDULER_SCHEDULER_ROLE_H_
#define GNOMON_SERVICES_SCHEDULER_SCHEDULER_ROLE_H_

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "services/common/metrics/metrics_registry.h"
#include "services/common/server/authenticator.h"
#include "services/common/server/rate_limiter.h"
#include "services/scheduler/admin_core.h"
#include "services/scheduler/admin_service.h"
#include "services/scheduler/alarm/email_channel.h"
#include "services/scheduler/alarm/webhook_channel.h"
#include "services/scheduler/alarm_channel_admin.h"
#include "services/scheduler/calendar_admin.h"
#include "services/scheduler/connected_executors.h"
#include "services/scheduler/deadline_watch.h"
#include "services/scheduler/deliveries.h"
#include "services/scheduler/followups.h"
#include "services/scheduler/group_targets.h"
#include "services/scheduler/in_flight_runs.h"
#include "services/scheduler/partition_lease.h"
#include "services/scheduler/pool_admin.h"
#include "services/scheduler/pool_granter.h"
#include "services/scheduler/redispatcher.h"
#include "services/scheduler/resender.h"
#include "services/scheduler/run_reaper.h"
#include "services/scheduler/scheduler_metrics.h"
#include "services/scheduler/trigger.h"
#include "services/scheduler/workflow_scheduler.h"

namespace gnomon::scheduler {

struct SchedulerOptions {
  // Identifies this replica in the partition leases; stable across restarts
  // of the same replica (gnomond: host:port), so a restarted process takes
  // over its predecessor's partitions at once. Default: host:pid.
  std::string replica_id;
  PartitionLeaseOptions lease;
  ScheduleLoopOptions loop;
  TriggerPoolOptions pools;
  FollowupOptions followups;
  RunReaperOptions reaper;
  RedispatcherOptions redispatch;
  // Alarm channels: webhooks always; email when smtp_url is set.
  alarm::WebhookOptions webhook;
  alarm::EmailOptions email;
  alarm::AlarmSenderOptions alarms;
  JobLimits limits;
  // After a start, how long executors known before it (rows in the store,
  // not yet pruned) get to reconnect: partitions are taken once every such
  // app has a live executor again or this passes, and no executor's runs
  // count as lost meanwhile. Slots due while it waits are fired late by
  // their jobs' misfire policies, not failed "no live executor".
  absl::Duration executor_return_grace = absl::Seconds(10);
  // How long an accepted run's outcome waits before it is written, for the
  // run's start to record it first (DispatchRecorder::Defer).
  absl::Duration dispatch_record_delay = absl::Seconds(1);
  // How long a rotated group token stays accepted unless the rotation says.
  absl::Duration token_grace = absl::Hours(1);
  // Calls per admin credential on JobAdmin (--admin-rate-limit, --admin-rate-burst).
  RateLimit admin_rate;
  // Jobs whose lateness gets a series of its own (--metrics-jobs).
  std::vector<int64_t> metrics_jobs;
  // Makes the channel to the registry (null: plaintext).
  tls::Dialer registry_dial;
};

class SchedulerRole {
 public:
  // `registry` (may be null: not measured) must outlive the role.
  SchedulerRole(store::Store* store, Authenticator* auth, SchedulerOptions options,
                metrics::MetricsRegistry* registry = nullptr, Clock* clock = &RealClock());
  ~SchedulerRole();

  grpc::Service* service() { return &service_; }
  // gnomon.v1.Dispatch: where executors connect.
  grpc::Service* executors_service() { return executors_.service(); }
  // Starts watching the registry at `registry_endpoint` (host:port) and scheduling.
  void Start(const std::string& registry_endpoint);
  void Stop();
  // Results were stored in this process: follow-ups are read at once.
  void ResultsStored() {
    followups_.Wake();
    pool_granter_.ResultsStored();
  }
  // Why it cannot schedule its share now (partition leases not renewed, or
  // others keeping partitions it should hold); OK when it can.
  absl::Status Health() const { return lease_.Health(); }
  // How far behind the work offered it is (gnomond's OverloadMonitor).
  absl::Duration loop_behind() const { return loop_.Behind(); }
  size_t dispatch_outcomes_queued() const { return dispatch_recorder_.queued(); }
  int64_t misfires_skipped() const { return loop_.misfires_skipped(); }
  int64_t misfires_fired() const { return loop_.misfires_fired(); }

 private:
  // Waits up to executor_return_grace for the apps of the executors known
  // before this start to have a live executor again.
  void AwaitReturningExecutors();

  const SchedulerOptions options_;
  const std::unique_ptr<SchedulerMetrics> metrics_;  // Null: not measured.
  store::MembershipStore* const executor_rows_;
  Clock* const clock_;
  Membership membership_;
  ConnectedExecutors executors_;
  InFlightRuns in_flight_;  // Before everything that records or sends runs.
  DispatchRecorder dispatch_recorder_;
  TriggerPools pools_;
  ManualProber prober_;
  RunRecorder run_recorder_;
  GroupTargets targets_;
  Deliveries deliveries_;
  Resender resender_;
  Trigger trigger_;
  ScheduleLoop loop_;
  WorkflowDriver workflows_;
  WorkflowScheduler workflow_scheduler_;
  AlarmChannelBook alarm_book_;  // Before what sends alarms through it.
  alarm::AlarmSender alarms_;
  Followups followups_;
  DeadlineWatch deadlines_;
  RunReaper reaper_;
  Redispatcher redispatcher_;
  PoolGranter pool_granter_;
  PartitionLease lease_;
  AdminCore core_;
  WorkflowAdmin workflow_admin_;
  CalendarAdmin calendar_admin_;
  alarm::ChatChannel alarm_chat_;  // TestAlarmChannel's.
  AlarmChannelAdmin alarm_channel_admin_;
  PoolAdmin pool_admin_;
  RateLimiter admin_limiter_;
  AuditLog audit_;
  AdminService service_;
  // Joined first on Stop: once they are, nothing more is handed to the pools.
  std::thread loop_thread_;
  std::vector<std::thread> threads_;
  metrics::ScrapeHook scrape_hook_;  // Last: unregistered before what it reads goes.
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_SCHEDULER_ROLE_H_

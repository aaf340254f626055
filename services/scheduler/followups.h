// Followups: what happens after a run ends — fail retry with backoff, child
// jobs, the next fire of a FIX_DELAY job, and a workflow node's end (its
// workflow run moves on: WorkflowDriver::NodeEnded). Ended runs are durable
// follow-ups in the store (written in the same transaction that ended them),
// so a scheduler that dies mid-way redoes them on restart; the store's unique
// keys (first_run_id, attempt) and (parent_run_id, job_id, shard) make a
// redone follow-up insert nothing twice.
//
//   Followups f(store, &trigger, &loop, &RealClock(), {});
//   f.Start();   // ticks on its own thread, each at the time the last one asked for
//   f.Stop();
//
// Thread safety: thread-safe; Start and Stop from one thread.
#ifndef GNOMON_SERVICES_SCHEDULER_FOLLOWUPS_H_
#define GNOMON_SERVICES_SCHEDULER_FOLLOWUPS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/store/followup_store.h"
#include "services/common/store/job_store.h"
#include "services/common/store/run_store.h"
#include "services/scheduler/alarm/alarm_sender.h"
#include "services/scheduler/fire_sink.h"
#include "services/scheduler/partition_lease.h"
#include "services/scheduler/schedule_loop.h"
#include "services/scheduler/scheduler_metrics.h"
#include "services/scheduler/workflow_driver.h"

namespace gnomon::scheduler {

struct FollowupOptions {
  absl::Duration poll_interval = absl::Milliseconds(100);
  // While any workflow run is running (asked every poll_interval, then
  // every workflow_check_interval), the follow-ups look this often: a
  // node's result may be stored by another replica's log role, which cannot
  // wake this one, and each node's end waits for that look before its
  // children fire.
  absl::Duration workflow_poll_interval = absl::Milliseconds(20);
  absl::Duration workflow_check_interval = absl::Seconds(1);
  int batch = 500;
  // Alarm on every failed attempt instead of only when retries are exhausted.
  bool alarm_every_attempt = false;
  // A run failed 504 "executor lost" is retried no sooner than this after
  // the verdict: the verdict is provisional (the executor may still hold the
  // run, and its result replaces the verdict), so the executor must have
  // stayed gone this long before a retry can be a first execution.
  absl::Duration lost_retry_wait = absl::Seconds(30);
};

// Delay before retry number `attempt` (1-based) of a job.
absl::Duration RetryDelay(const v1::RetryPolicy& policy, uint32_t attempt);

// Whether a success of `job`'s runs has anything to follow it (child jobs, a
// FIX_DELAY reschedule): Handle's success path. Decided when a run is
// recorded (Run.success_has_followups); a run whose success has nothing to
// follow never enters the outbox when it succeeds.
bool SuccessHasFollowups(const v1::Job& job);
// Whether the job's alarm.on raises an alarm for a run that ended so.
bool AlarmsOn(const v1::Job& job, bool success);

class Followups {
 public:
  // `alarms` may be null (no alarms), `workflows` too (workflow node runs
  // then only retry), and `metrics` (jobs paused).
  // Reads ended runs from `outbox`, the runs of a job from `runs` and jobs
  // (with their cursors) from `jobs`.
  Followups(store::FollowupStore* outbox, store::RunStore* runs, store::JobStore* jobs,
            FireSink* sink, ScheduleLoop* loop, Clock* clock, FollowupOptions options,
            alarm::AlarmSender* alarms = nullptr, WorkflowDriver* workflows = nullptr,
            SchedulerMetrics* metrics = nullptr)
      : outbox_(outbox),
        runs_(runs),
        jobs_(jobs),
        sink_(sink),
        loop_(loop),
        clock_(clock),
        options_(options),
        alarms_(alarms),
        workflows_(workflows),
        metrics_(metrics),
        worker_(clock) {}

  void Start() {
    worker_.Start([this] { return Tick(); });
  }
  // New follow-ups were written (the log role in the same process stored
  // results): look at once instead of at the next poll.
  void Wake() { worker_.Wake(); }
  void Stop() { worker_.Stop(); }
  // Handles only the follow-ups of jobs in the partitions held (none held:
  // nothing). Without a call: every job's (a single replica, tests).
  void SetOwnership(std::shared_ptr<const Ownership> ownership) { held_.Set(std::move(ownership)); }
  // One pass at the clock's time: reads pending follow-ups, handles those
  // that are due, and returns when the next delayed retry is due.
  absl::Time Tick();

 private:
  // Handles one ended run of `job` (NotFound: the job was deleted); false if
  // it must be retried later (store error or
  // a retry not yet due, whose due time goes to `next_due_ms`). A FIX_DELAY
  // job's next fire goes to `reschedule`: the run is done once it is written.
  bool Handle(const v1::Run& run, const absl::StatusOr<v1::Job>& job, int64_t now_ms,
              int64_t* next_due_ms, std::optional<store::JobAdvance>* reschedule);
  bool FireChildren(const v1::Run& run, const v1::Job& job);
  bool AllShardsSucceeded(const v1::Run& run, int64_t* anchor_run_id);
  // A workflow node's run ended for good (after its retries): its workflow
  // run moves on. False if that must be retried later.
  bool EndNode(const v1::Run& run);
  // A run of a job with pause_after_failures ended for good: counted, and
  // the job paused once that many failed in a row (then `paused`, if
  // given, says so for the alarm). False if that must be retried later.
  bool CountEnd(const v1::Run& run, const v1::Job& job, bool failed, std::string* paused);
  // How long until the next look: workflow_poll_interval while any
  // workflow run is running, else poll_interval.
  absl::Duration PollInterval(int64_t now_ms);

  store::FollowupStore* const outbox_;
  store::RunStore* const runs_;
  store::JobStore* const jobs_;
  FireSink* const sink_;
  ScheduleLoop* const loop_;
  Clock* const clock_;
  const FollowupOptions options_;
  alarm::AlarmSender* const alarms_;
  WorkflowDriver* const workflows_;
  SchedulerMetrics* const metrics_;
  HeldPartitions held_;
  // The worker thread's: whether a workflow run was running when last asked.
  bool workflows_running_ = false;
  int64_t workflows_checked_ms_ = 0;
  PeriodicWorker worker_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_FOLLOWUPS_H_

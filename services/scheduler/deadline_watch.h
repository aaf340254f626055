// DeadlineWatch: Job.deadline — "not done by 06:00" — raises an alarm, and
// kills nothing, when a fire's work is not done by its deadline (its slot,
// else its trigger time, + the job's deadline; Run.deadline_time).
//
// Each pass (every `poll_interval`) reads the first attempts whose deadline
// passed and that were not yet judged, with their retries
// (FollowupStore::ListDueDeadlines), for the jobs of the partitions held. A
// fire is done by its deadline if one of its attempts ended by then and
// succeeded, or failed for good (killed, or its job's retries spent);
// otherwise its alarm is raised, once: each fire is judged once
// (CompleteDeadlines, written before the alarm is raised), whether the
// verdict was an alarm or not.
//
//   DeadlineWatch w(store, store, &RealClock(), {}, &alarms, &metrics);
//   w.SetOwnership(ownership);   // from PartitionLease
//   w.Start(); ... w.Stop();
//
// Thread safety: thread-safe; Start and Stop from one thread.
#ifndef GNOMON_SERVICES_SCHEDULER_DEADLINE_WATCH_H_
#define GNOMON_SERVICES_SCHEDULER_DEADLINE_WATCH_H_

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/store/followup_store.h"
#include "services/common/store/job_store.h"
#include "services/scheduler/alarm/alarm_sender.h"
#include "services/scheduler/partition_lease.h"
#include "services/scheduler/scheduler_metrics.h"

namespace gnomon::scheduler {

struct DeadlineWatchOptions {
  absl::Duration poll_interval = absl::Seconds(1);
  int batch = 500;
};

class DeadlineWatch {
 public:
  // `alarms` and `metrics` may be null (nothing raised or counted).
  DeadlineWatch(store::FollowupStore* runs, store::JobStore* jobs, Clock* clock,
                DeadlineWatchOptions options, alarm::AlarmSender* alarms, SchedulerMetrics* metrics)
      : runs_(runs),
        jobs_(jobs),
        clock_(clock),
        options_(options),
        alarms_(alarms),
        metrics_(metrics),
        worker_(clock) {}

  void Start() {
    worker_.Start([this] { return Tick(); });
  }
  void Stop() { worker_.Stop(); }
  // Judges only the deadlines of jobs in the partitions held (none held:
  // nothing). Without a call: every job's (a single replica, tests).
  void SetOwnership(std::shared_ptr<const Ownership> ownership) { held_.Set(std::move(ownership)); }
  // One pass at the clock's time; returns when the next is due.
  absl::Time Tick();

 private:
  store::FollowupStore* const runs_;
  store::JobStore* const jobs_;
  Clock* const clock_;
  const DeadlineWatchOptions options_;
  alarm::AlarmSender* const alarms_;
  SchedulerMetrics* const metrics_;
  HeldPartitions held_;
  PeriodicWorker worker_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_DEADLINE_WATCH_H_

// WorkflowScheduler: fires workflows by their schedules and resumes the
// runs a replica that died left undone, for the workflows of the partitions
// this replica holds (workflow id % partition count, as jobs).
//
// Each pass (every `poll_interval`):
//  * a workflow whose slot is due starts one run for that slot (the store
//    starts one per slot: a second replica's start is AlreadyExists), and
//    its next slot is moved on from the one read (a replica that lost that
//    race reads again). A slot missed by more than `misfire_threshold` (no
//    replica held the partition) follows the workflow's misfire policy:
//    DO_NOTHING (and unspecified) skips to the next slot from now,
//    FIRE_ONCE_NOW fires the latest missed slot once, CATCH_UP fires each.
//  * after the partitions held change (a replica joined, left or died), and
//    every `resume_interval`, every running run is resumed
//    (WorkflowDriver::Resume): started if it never was, and its running
//    nodes whose runs were never recorded fired.
//
//   WorkflowScheduler s(store, &driver, &RealClock(), {});
//   s.SetOwnership(ownership);   // from PartitionLease
//   s.Start(); ... s.Stop();
//
// Thread safety: thread-safe; Start and Stop from one thread.
#ifndef GNOMON_SERVICES_SCHEDULER_WORKFLOW_SCHEDULER_H_
#define GNOMON_SERVICES_SCHEDULER_WORKFLOW_SCHEDULER_H_

#include <memory>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/store/calendar_store.h"
#include "services/common/store/workflow_store.h"
#include "services/scheduler/calendar_book.h"
#include "services/scheduler/partition_lease.h"
#include "services/scheduler/workflow_driver.h"

namespace gnomon::scheduler {

struct WorkflowSchedulerOptions {
  absl::Duration poll_interval = absl::Milliseconds(200);
  absl::Duration resume_interval = absl::Seconds(10);
  absl::Duration misfire_threshold = absl::Seconds(5);
  int batch = 200;
};

class WorkflowScheduler {
 public:
  // `calendars` may be null: a workflow naming a calendar then never fires.
  WorkflowScheduler(store::WorkflowStore* workflows, WorkflowDriver* driver, Clock* clock,
                    WorkflowSchedulerOptions options, store::CalendarStore* calendars = nullptr)
      : workflows_(workflows),
        driver_(driver),
        clock_(clock),
        options_(options),
        calendars_(calendars, clock),
        worker_(clock) {}

  void Start() {
    worker_.Start([this] { return Tick(); });
  }
  void Stop() { worker_.Stop(); }
  // Fires and resumes only the workflows of the partitions held (none held:
  // nothing). Without a call: every workflow's (a single replica, tests).
  void SetOwnership(std::shared_ptr<const Ownership> ownership) ABSL_LOCKS_EXCLUDED(mu_);
  // One pass at the clock's time; returns when the next is due.
  absl::Time Tick() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // Fires the due slots; false if the store could not be read.
  bool FireDue(int64_t now_ms, const std::vector<int>& partitions);
  void ResumeRunning(const std::vector<int>& partitions);

  store::WorkflowStore* const workflows_;
  WorkflowDriver* const driver_;
  Clock* const clock_;
  const WorkflowSchedulerOptions options_;
  absl::Mutex mu_;
  std::shared_ptr<const Ownership> ownership_ ABSL_GUARDED_BY(mu_);
  bool resume_due_ ABSL_GUARDED_BY(mu_) = true;  // Set when the partitions held change.
  int64_t last_resume_ms_ = 0;                   // The worker thread's.
  CalendarBook calendars_;                       // The worker thread's.
  PeriodicWorker worker_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_WORKFLOW_SCHEDULER_H_

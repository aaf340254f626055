#include "services/scheduler/workflow_scheduler.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "services/common/client/log.h"
#include "services/common/store/job_store.h"
#include "services/scheduler/next_fire.h"

namespace gnomon::scheduler {
namespace {

v1::TriggerType TypeOf(const v1::Workflow& w) {
  return w.schedule().has_cron() ? v1::TRIGGER_TYPE_CRON : v1::TRIGGER_TYPE_FIX_RATE;
}

}  // namespace

void WorkflowScheduler::SetOwnership(std::shared_ptr<const Ownership> ownership) {
  absl::MutexLock l(&mu_);
  if (ownership_ == nullptr || ownership == nullptr ||
      ownership_->partitions != ownership->partitions) {
    resume_due_ = true;
  }
  ownership_ = std::move(ownership);
}

absl::Time WorkflowScheduler::Tick() {
  const int64_t now = clock_->NowMillis();
  const absl::Time next = absl::FromUnixMillis(now) + options_.poll_interval;
  std::vector<int> partitions;  // Empty: all.
  bool resume = false;
  {
    absl::MutexLock l(&mu_);
    if (ownership_) {
      if (ownership_->partitions.empty() || now >= ownership_->valid_until_ms) return next;
      partitions = ownership_->partitions;
    }
    resume =
        resume_due_ || now - last_resume_ms_ >= absl::ToInt64Milliseconds(options_.resume_interval);
    resume_due_ = false;
  }
  const bool more = FireDue(now, partitions);
  if (resume) {
    last_resume_ms_ = now;
    ResumeRunning(partitions);
  }
  return more ? clock_->Now() : next;
}

bool WorkflowScheduler::FireDue(int64_t now_ms, const std::vector<int>& partitions) {
  absl::StatusOr<std::vector<store::DueWorkflow>> due =
      workflows_->ListDueWorkflows(now_ms, options_.batch, partitions);
  if (!due.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: reading due workflows failed: " << due.status();
    return false;
  }
  const int64_t threshold = absl::ToInt64Milliseconds(options_.misfire_threshold);
  bool refreshed = false;
  for (const store::DueWorkflow& d : *due) {
    const v1::Workflow& w = d.workflow;
    const v1::Job shape = WorkflowSlots(w);
    const int64_t slot = d.next_fire_ms;
    std::shared_ptr<const schedule::Calendar> calendar;
    if (const std::string& name = w.schedule().calendar(); !name.empty()) {
      if (!std::exchange(refreshed, true)) calendars_.Refresh();
      calendar = calendars_.Find(name);
      if (calendar == nullptr) continue;  // Its slot stays until the calendar is found.
    }
    const SlotRules rules{nullptr, calendar.get()};
    int64_t next = SlotAfter(shape, slot, rules);
    bool fire = true;
    if (calendar != nullptr) {
      // A slot written before its calendar changed: moved, not fired.
      if (const int64_t allowed = AllowedSlot(shape, slot, rules); allowed != slot) {
        fire = false;
        next = allowed;
      }
    }
    if (fire && now_ms - slot > threshold) {  // Missed while no replica held its partition.
      switch (w.misfire_policy()) {
        case v1::MISFIRE_POLICY_CATCH_UP:
          break;  // Each missed slot in turn.
        case v1::MISFIRE_POLICY_FIRE_ONCE_NOW:
          next = FirstSlotAfterNow(shape, slot, now_ms, rules);
          break;
        default:  // DO_NOTHING.
          fire = false;
          next = FirstSlotAfterNow(shape, slot, now_ms, rules);
          break;
      }
    }
    if (fire) {
      absl::StatusOr<v1::WorkflowRun> run = driver_->Start(w.id(), TypeOf(w), slot, std::nullopt);
      // AlreadyExists: this slot's run was started (by a replica before this one).
      if (!run.ok() && !absl::IsAlreadyExists(run.status())) {
        GNOMON_LOG(WARNING) << "scheduler: workflow " << w.id() << " slot " << slot << ": "
                            << run.status();
        continue;  // Its slot stays: the next pass tries again.
      }
    }
    if (absl::StatusOr<bool> moved = workflows_->AdvanceWorkflow(w.id(), slot, next); !moved.ok()) {
      GNOMON_LOG(WARNING) << "scheduler: moving workflow " << w.id() << " on from slot " << slot
                          << ": " << moved.status();
    }
  }
  return static_cast<int>(due->size()) == options_.batch;
}

void WorkflowScheduler::ResumeRunning(const std::vector<int>& partitions) {
  absl::StatusOr<std::vector<v1::WorkflowRun>> running =
      workflows_->ListRunningWorkflowRuns(10000, partitions);
  if (!running.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: reading running workflow runs failed: " << running.status();
    absl::MutexLock l(&mu_);
    resume_due_ = true;  // Again next pass.
    return;
  }
  for (const v1::WorkflowRun& run : *running) {
    if (absl::StatusOr<std::vector<std::string>> fired = driver_->Resume(run.id()); !fired.ok()) {
      GNOMON_LOG(WARNING) << "scheduler: resuming workflow run " << run.id() << ": "
                          << fired.status();
    }
  }
}

}  // namespace gnomon::scheduler

#include "services/scheduler/schedule_loop.h"

#include <algorithm>
#include <vector>

#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"
#include "services/scheduler/next_fire.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

constexpr int64_t kDefaultMisfireThresholdMs = 5'000;
constexpr uint32_t kDefaultMaxCatchUp = 10;

v1::TriggerType ScheduledType(const v1::Job& job) {
  switch (job.schedule().kind_case()) {
    case v1::Schedule::kCron: return v1::TRIGGER_TYPE_CRON;
    case v1::Schedule::kFixDelay: return v1::TRIGGER_TYPE_FIX_DELAY;
    default: return v1::TRIGGER_TYPE_FIX_RATE;
  }
}

}  // namespace

void ScheduleLoop::Stop() {
  absl::MutexLock l(&mu_);
  stopped_ = true;
}

void ScheduleLoop::Invalidate(int64_t job_id) {
  absl::MutexLock l(&mu_);
  Disarm(job_id);
  invalidated_.insert(job_id);
  dirty_ = true;
}

void ScheduleLoop::Arm(const v1::Job& job, int64_t cursor) {
  Disarm(job.id());
  if (cursor == store::kNever) return;
  armed_[job.id()] = Armed{job, cursor, 0};
  timer_.emplace(cursor, job.id());
}

void ScheduleLoop::Disarm(int64_t job_id) {
  auto it = armed_.find(job_id);
  if (it == armed_.end()) return;
  timer_.erase({it->second.cursor, job_id});
  armed_.erase(it);
}

void ScheduleLoop::Preread(int64_t now_ms) {
  const int64_t until = now_ms + absl::ToInt64Milliseconds(options_.preread_window);
  mu_.Unlock();
  absl::StatusOr<std::vector<store::DueJob>> due = store_->ListDueJobs(until, options_.preread_limit);
  mu_.Lock();
  if (!due.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: pre-read failed, will retry: " << due.status();
    return;
  }
  for (const store::DueJob& d : *due) {
    if (!armed_.contains(d.job.id())) Arm(d.job, d.next_fire_ms);
  }
}

ScheduleLoop::Planned ScheduleLoop::Plan(Armed& armed, int64_t now_ms) {
  const v1::Job& job = armed.job;
  Planned p;
  p.fire.job = job;
  p.fire.type = ScheduledType(job);
  p.fire.scheduled_ms = armed.cursor;
  p.advance.job_id = job.id();
  p.advance.expected_next_fire_ms = armed.cursor;
  p.advance.last_fire_ms = armed.cursor;

  const int64_t threshold = job.misfire().has_threshold()
                                ? TimeUtil::DurationToMilliseconds(job.misfire().threshold())
                                : kDefaultMisfireThresholdMs;
  const bool late = now_ms - armed.cursor > threshold;
  if (!late) {
    armed.caught_up = 0;
    p.advance.next_fire_ms = SlotAfter(job, armed.cursor);
    return p;
  }
  // A misfire: the slot was not fired in time (scheduler down, store slow).
  p.fire.type = v1::TRIGGER_TYPE_MISFIRE;
  switch (job.misfire().policy()) {
    case v1::MISFIRE_POLICY_DO_NOTHING:
      p.fires = false;
      p.advance.next_fire_ms = FirstSlotAfterNow(job, armed.cursor, now_ms);
      break;
    case v1::MISFIRE_POLICY_CATCH_UP: {
      const uint32_t max = job.misfire().max_catch_up() == 0 ? kDefaultMaxCatchUp
                                                             : job.misfire().max_catch_up();
      if (armed.caught_up >= max) {
        p.fires = false;
        p.advance.next_fire_ms = FirstSlotAfterNow(job, armed.cursor, now_ms);
        armed.caught_up = 0;
      } else {
        ++armed.caught_up;
        p.advance.next_fire_ms = SlotAfter(job, armed.cursor);
      }
      break;
    }
    default:  // FIRE_ONCE_NOW
      p.advance.next_fire_ms = FirstSlotAfterNow(job, armed.cursor, now_ms);
      break;
  }
  if (!p.fires) {
    GNOMON_LOG(INFO) << "scheduler: job " << job.id() << " misfired slot " << armed.cursor
                     << "; skipped by policy";
  }
  return p;
}

void ScheduleLoop::FireDue(int64_t now_ms) {
  std::vector<Planned> plans;
  std::vector<uint32_t> caught_up;
  while (!timer_.empty() && timer_.begin()->first <= now_ms) {
    const int64_t job_id = timer_.begin()->second;
    timer_.erase(timer_.begin());
    Armed& armed = armed_[job_id];
    plans.push_back(Plan(armed, now_ms));
    caught_up.push_back(armed.caught_up);
    armed_.erase(job_id);
  }
  if (plans.empty()) return;
  invalidated_.clear();
  mu_.Unlock();

  std::vector<FireSpec> fires;
  std::vector<store::JobAdvance> advances;
  for (const Planned& p : plans) {
    if (p.fires) fires.push_back(p.fire);
    advances.push_back(p.advance);
  }
  // Record (and dispatch) first, then advance: a crash in between leaves the
  // cursor on a slot whose key is taken, so nothing fires twice or is lost.
  bool recorded = true;
  if (!fires.empty()) {
    absl::StatusOr<std::vector<FireOutcome>> out = trigger_->Fire(std::move(fires));
    if (!out.ok()) {
      recorded = false;
      GNOMON_LOG(WARNING) << "scheduler: recording " << plans.size()
                          << " fires failed, will retry: " << out.status();
    }
  }
  absl::StatusOr<std::vector<bool>> applied =
      recorded ? store_->AdvanceJobs(advances) : absl::UnavailableError("not recorded");
  if (recorded && !applied.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: advancing cursors failed, will re-read: " << applied.status();
  }

  mu_.Lock();
  for (size_t i = 0; i < plans.size(); ++i) {
    const Planned& p = plans[i];
    const int64_t id = p.advance.job_id;
    if (!applied.ok()) {
      dirty_ = true;  // Re-read from the store; taken slots will not fire again.
      continue;
    }
    if (!(*applied)[i] || invalidated_.contains(id)) continue;  // Changed meanwhile.
    if (armed_.contains(id)) continue;
    Arm(p.fire.job, p.advance.next_fire_ms);
    if (auto it = armed_.find(id); it != armed_.end()) it->second.caught_up = caught_up[i];
  }
  if (!applied.ok()) {
    // Forget everything so the next pre-read starts from the store's cursors.
    armed_.clear();
    timer_.clear();
  }
}

void ScheduleLoop::SetActive(bool active) {
  absl::MutexLock l(&mu_);
  active_ = active;
  armed_.clear();
  timer_.clear();
  dirty_ = true;
}

int64_t ScheduleLoop::TickLocked() {
  const int64_t now = clock_->NowMillis();
  if (!active_) {
    dirty_ = false;
    return now + absl::ToInt64Milliseconds(options_.preread_interval);
  }
  if (dirty_ || now >= next_preread_ms_) {
    dirty_ = false;
    next_preread_ms_ = now + absl::ToInt64Milliseconds(options_.preread_interval);
    Preread(now);
  }
  FireDue(clock_->NowMillis());
  int64_t wake = next_preread_ms_;
  if (!timer_.empty()) wake = std::min(wake, timer_.begin()->first);
  return wake;
}

absl::Time ScheduleLoop::Tick() {
  absl::MutexLock l(&mu_);
  return absl::FromUnixMillis(TickLocked());
}

void ScheduleLoop::Run() {
  absl::MutexLock l(&mu_);
  while (!stopped_) {
    const int64_t wake = TickLocked();
    if (stopped_) break;
    auto interrupted = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopped_ || dirty_; };
    clock_->AwaitWithDeadline(&mu_, absl::Condition(&interrupted), absl::FromUnixMillis(wake));
  }
}

}  // namespace gnomon::scheduler

#include "services/scheduler/schedule_loop.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "google/protobuf/util/time_util.h"
#include "services/common/client/log.h"
#include "services/scheduler/next_fire.h"

namespace gnomon::scheduler {
namespace {

using google::protobuf::util::TimeUtil;

constexpr int64_t kDefaultMisfireThresholdMs = 5'000;
constexpr uint32_t kDefaultMaxCatchUp = 10;
// A pre-read pass at least this long is logged.
constexpr absl::Duration kSlowPreread = absl::Milliseconds(100);

v1::TriggerType ScheduledType(const v1::Job& job) {
  switch (job.schedule().kind_case()) {
    case v1::Schedule::kCron:
      return v1::TRIGGER_TYPE_CRON;
    case v1::Schedule::kFixDelay:
      return v1::TRIGGER_TYPE_FIX_DELAY;
    default:
      return v1::TRIGGER_TYPE_FIX_RATE;
  }
}

}  // namespace

void ScheduleLoop::Stop() {
  {
    absl::MutexLock l(&mu_);
    stopped_ = true;
    if (running_) return;  // Run() writes the advances on its way out.
  }
  // No owner thread (nor will one start: stopped_): the caller owns the state.
  absl::MutexLock owner(&owner_mu_);
  ApplyMessages();
  FlushAdvances(clock_->NowMillis()).IgnoreError();  // Logged; the next holder re-reads.
}

void ScheduleLoop::Invalidate(int64_t job_id) {
  absl::MutexLock l(&mu_);
  inbox_.push_back(Message{job_id, nullptr, {}, nullptr});
  ++sent_;
}

void ScheduleLoop::SetOwnership(std::shared_ptr<const Ownership> ownership) {
  absl::MutexLock l(&mu_);
  // Gives partitions up: a flush must come first (drain, then release).
  bool gives_up = everything_sent_;
  for (int p : sent_partitions_) {
    gives_up |= !std::binary_search(ownership->partitions.begin(), ownership->partitions.end(), p);
  }
  sent_partitions_ = ownership->partitions;
  everything_sent_ = false;
  inbox_.push_back(Message{0, std::move(ownership), {}, nullptr});
  const uint64_t mine = ++sent_;
  if (!gives_up) return;
  auto applied = [this, mine]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return applied_ >= mine || !running_; };
  mu_.Await(absl::Condition(&applied));
}

absl::Status ScheduleLoop::Reschedule(std::vector<store::JobAdvance> advances) {
  auto reply = std::make_shared<Reply>();
  {
    absl::MutexLock l(&mu_);
    if (running_) {
      inbox_.push_back(Message{0, nullptr, std::move(advances), reply});
      ++sent_;
      auto answered = [this, &reply]()
                          ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return reply->done || !running_; };
      mu_.Await(absl::Condition(&answered));
      if (reply->done) return reply->status;
      return absl::UnavailableError("the schedule loop stopped before writing the next fires");
    }
  }
  // No owner thread: the caller owns the state, unless a Run() thread took
  // it meanwhile (then this is a message after all).
  absl::ReleasableMutexLock owner(&owner_mu_);
  bool message = false;
  {
    absl::MutexLock l(&mu_);
    message = running_;
  }
  if (message) {
    owner.Release();
    return Reschedule(std::move(advances));
  }
  return ApplyReschedule(advances);
}

absl::Status ScheduleLoop::ApplyReschedule(const std::vector<store::JobAdvance>& advances) {
  for (const store::JobAdvance& a : advances) {
    // A cursor of the loop's own not yet written for the job (a failed
    // write re-read since) is what the store will hold first.
    auto [it, inserted] = pending_advances_.try_emplace(a.job_id, a);
    if (!inserted) {
      it->second.next_fire_ms = a.next_fire_ms;
      it->second.last_fire_ms = a.last_fire_ms;
    }
  }
  absl::Status written = FlushAdvances(clock_->NowMillis());
  if (!written.ok()) return written;
  for (const store::JobAdvance& a : advances) {
    Disarm(a.job_id);
    refresh_.insert(a.job_id);  // Armed by the next pass if due in the window.
  }
  return absl::OkStatus();
}

void ScheduleLoop::ApplyMessages() {
  std::vector<Message> inbox;
  uint64_t sent;
  {
    absl::MutexLock l(&mu_);
    inbox.swap(inbox_);
    sent = sent_;
  }
  std::vector<std::pair<std::shared_ptr<Reply>, absl::Status>> replies;
  for (Message& m : inbox) {
    if (m.ownership) {
      ApplyOwnership(std::move(m.ownership));
    } else if (m.reply) {
      replies.emplace_back(m.reply, ApplyReschedule(m.reschedule));
    } else {
      Disarm(m.invalidate);
      refresh_.insert(m.invalidate);
    }
  }
  absl::MutexLock l(&mu_);
  applied_ = sent;
  for (auto& [reply, status] : replies) {
    reply->status = std::move(status);
    reply->done = true;
  }
}

void ScheduleLoop::Refresh(int64_t now_ms) {
  std::vector<int64_t> ids(refresh_.begin(), refresh_.end());
  refresh_.clear();
  const int64_t until = now_ms + absl::ToInt64Milliseconds(options_.preread_window);
  absl::StatusOr<std::vector<v1::Job>> jobs = store_->GetJobs(ids);
  if (!jobs.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: re-reading " << ids.size()
                        << " jobs failed, will pre-read: " << jobs.status();
    dirty_ = true;
    return;
  }
  for (int64_t id : ids) Disarm(id);  // deleted ones stay disarmed
  for (v1::Job& job : *jobs) {
    // Changed again meanwhile (a later Invalidate), or a cursor of ours not yet written.
    if (refresh_.contains(job.id()) || pending_advances_.contains(job.id())) continue;
    const int64_t cursor = job.has_next_fire_time()
                               ? TimeUtil::TimestampToMilliseconds(job.next_fire_time())
                               : store::kNever;
    // Not due in the window: a pre-read arms it when it is.
    if (job.state() != v1::JOB_STATE_RUNNING || cursor < 0 || cursor > until) continue;
    if (!Holds(job.id())) continue;  // Another replica's.
    Arm(std::move(job), cursor, until);
  }
}

void ScheduleLoop::Arm(std::shared_ptr<const v1::Job> job,
                       std::shared_ptr<const schedule::CompiledCron> cron,
                       std::shared_ptr<const schedule::Calendar> calendar, int64_t cursor,
                       int64_t fires_left) {
  const int64_t id = job->id();
  Disarm(id);
  if (cursor == store::kNever) return;
  if (fires_left < 0 && job->max_fires() > 0) fires_left = job->fires_left();
  int64_t fire_at = cursor;
  if (job->schedule().has_jitter()) {
    fire_at += JitterMs(*job, cursor, SlotAfter(*job, cursor, {cron.get(), calendar.get()}));
  }
  armed_[id] =
      Armed{std::move(job), std::move(cron), std::move(calendar), cursor, fire_at, 0, fires_left};
  timer_.emplace(fire_at, id);
}

void ScheduleLoop::Arm(v1::Job job, int64_t cursor, int64_t until_ms) {
  const int64_t id = job.id();
  auto shared = std::make_shared<const v1::Job>(std::move(job));
  auto cron = CompileJobCron(*shared);
  std::shared_ptr<const schedule::Calendar> calendar;
  if (const std::string& name = shared->schedule().calendar(); !name.empty()) {
    if (!calendars_read_) {  // Once a pass, and only for a job naming one.
      calendars_.Refresh();
      calendars_read_ = true;
    }
    calendar = calendars_.Find(name);
    if (calendar == nullptr) {
      // Not fired, its cursor kept: armed once the calendar is found.
      calendar_missing_.insert(id);
      if (calendar_warned_.insert(id).second) {
        GNOMON_LOG(WARNING) << "scheduler: job " << id << " names calendar '" << name
                            << "', which is not found; it does not fire until it is";
      }
      Disarm(id);
      return;
    }
    calendar_warned_.erase(id);
    const int64_t allowed = AllowedSlot(*shared, cursor, {cron.get(), calendar.get()});
    if (allowed != cursor) {
      // Written before its calendar changed: move it, as a fire would.
      store::JobAdvance a;
      a.job_id = id;
      a.expected_next_fire_ms = cursor;
      a.next_fire_ms = allowed;
      a.last_fire_ms = shared->has_last_fire_time()
                           ? TimeUtil::TimestampToMilliseconds(shared->last_fire_time())
                           : 0;
      pending_advances_.insert_or_assign(id, a);
      advance_now_ = true;
      cursor = allowed;
      if (cursor > until_ms) {  // Including kNever: armed by a later pre-read, if ever.
        Disarm(id);
        return;
      }
    }
  }
  Arm(std::move(shared), std::move(cron), std::move(calendar), cursor);
}

void ScheduleLoop::Disarm(int64_t job_id) {
  auto it = armed_.find(job_id);
  if (it == armed_.end()) return;
  timer_.erase({it->second.fire_at, job_id});
  armed_.erase(it);
}

void ScheduleLoop::Preread(int64_t now_ms) {
  const int64_t until = now_ms + absl::ToInt64Milliseconds(options_.preread_window);
  const absl::Time start = clock_->Now();
  const std::vector<int> partitions = ownership_ ? ownership_->partitions : std::vector<int>{};
  const int limit = options_.preread_limit;
  calendar_missing_.clear();  // Counted afresh by Arm.
  absl::StatusOr<std::vector<store::DueJob>> due = store_->ListDueJobs(until, limit, partitions);
  if (!due.ok()) {
    GNOMON_LOG(WARNING) << "scheduler: pre-read failed, will retry: " << due.status();
    return;
  }
  const absl::Time read = clock_->Now();
  size_t armed = 0;
  absl::flat_hash_set<int64_t> listed;
  for (store::DueJob& d : *due) {
    if (!Holds(d.job.id())) continue;  // The hold lapsed while the read ran.
    listed.insert(d.job.id());
    // A cursor advanced in memory and not yet written is newer than the
    // store's (an admin change meanwhile fails its compare-and-set, which
    // disarms the job for the next pre-read to arm from the store).
    if (pending_advances_.contains(d.job.id())) continue;
    auto it = armed_.find(d.job.id());
    const bool changed =
        it != armed_.end() && (it->second.cursor != d.next_fire_ms ||
                               TimeUtil::TimestampToMilliseconds(it->second.job->update_time()) !=
                                   TimeUtil::TimestampToMilliseconds(d.job.update_time()));
    // New, or changed by an admin call on any replica: take the store's view.
    if (it == armed_.end() || changed) {
      Arm(std::move(d.job), d.next_fire_ms, until);
      ++armed;
    }
  }
  // Armed jobs due within the window that the store no longer lists were
  // stopped or deleted (possibly through another replica) — also those with
  // an advance not yet written: the store's cursor is never ahead of the one
  // in memory, so a running job would still be listed (its pending advance
  // then fails its compare-and-set, harmlessly).
  if (limit <= 0 || static_cast<int>(due->size()) < limit) {
    std::vector<int64_t> gone;
    for (const auto& [id, a] : armed_) {
      if (a.cursor <= until && !listed.contains(id)) gone.push_back(id);
    }
    for (int64_t id : gone) Disarm(id);
  }
  // A slow pass delays every slot due meanwhile: say so, with where it went.
  if (const absl::Duration took = clock_->Now() - start; took >= kSlowPreread) {
    GNOMON_LOG(INFO) << "scheduler: pre-read of " << due->size() << " due jobs (" << armed
                     << " newly armed) took " << absl::ToInt64Milliseconds(took)
                     << " ms (store read " << absl::ToInt64Milliseconds(read - start) << " ms)";
  }
}

void ScheduleLoop::CountFire(Armed& armed, Planned& p) {
  if (armed.fires_left < 0) return;  // No max_fires.
  if (armed.fires_left == 0) {       // Spent (a cursor written before it was): nothing more.
    p.fires = false;
    p.advance.next_fire_ms = store::kNever;
  } else if (p.fires) {
    p.advance.fired = 1;
    if (--armed.fires_left == 0) p.advance.next_fire_ms = store::kNever;  // Its last slot.
  }
  p.fires_left = armed.fires_left;
}

ScheduleLoop::Planned ScheduleLoop::Plan(Armed& armed, int64_t now_ms) {
  const v1::Job& job = *armed.job;
  const SlotRules rules{armed.cron.get(), armed.calendar.get()};
  Planned p;
  p.fire.job = armed.job;
  p.cron = armed.cron;
  p.calendar = armed.calendar;
  p.fire.type = ScheduledType(job);
  p.fire.scheduled_ms = armed.cursor;
  // Recorded ahead, or later by its jitter.
  if (armed.fire_at > now_ms) p.fire.dispatch_at_ms = armed.fire_at;
  p.advance.job_id = job.id();
  p.advance.expected_next_fire_ms = armed.cursor;
  p.advance.last_fire_ms = armed.cursor;

  const int64_t threshold = job.misfire().has_threshold()
                                ? TimeUtil::DurationToMilliseconds(job.misfire().threshold())
                                : kDefaultMisfireThresholdMs;
  const bool late = now_ms - armed.fire_at > threshold;
  if (!late) {
    armed.caught_up = 0;
    p.advance.next_fire_ms = SlotAfter(job, armed.cursor, rules);
    CountFire(armed, p);
    return p;
  }
  // A misfire: the slot was not fired in time (scheduler down, store slow).
  // Every slot it passes over is counted (accounted for: run, or skipped).
  p.fire.type = v1::TRIGGER_TYPE_MISFIRE;
  switch (job.misfire().policy()) {
    case v1::MISFIRE_POLICY_DO_NOTHING:
      p.fires = false;
      p.advance.next_fire_ms = FirstSlotAfterNow(job, armed.cursor, now_ms, rules);
      break;
    case v1::MISFIRE_POLICY_CATCH_UP: {
      const uint32_t max =
          job.misfire().max_catch_up() == 0 ? kDefaultMaxCatchUp : job.misfire().max_catch_up();
      if (armed.caught_up >= max) {
        p.fires = false;
        p.advance.next_fire_ms = FirstSlotAfterNow(job, armed.cursor, now_ms, rules);
        armed.caught_up = 0;
      } else {
        ++armed.caught_up;
        p.advance.next_fire_ms = SlotAfter(job, armed.cursor, rules);
      }
      break;
    }
    default:  // FIRE_ONCE_NOW
      p.advance.next_fire_ms = FirstSlotAfterNow(job, armed.cursor, now_ms, rules);
      break;
  }
  // The slots from this one to the new cursor that will never run.
  const int64_t skipped =
      SlotsBetween(job, armed.cursor, p.advance.next_fire_ms, rules) - (p.fires ? 1 : 0);
  if (!p.fires) {
    if (metrics_ != nullptr) metrics_->Fired(v1::TRIGGER_TYPE_MISFIRE, FireResult::kMisfireSkipped);
  } else {
    misfires_fired_.fetch_add(1, std::memory_order_relaxed);
    ++unlogged_fired_;
  }
  if (skipped > 0) {
    if (metrics_ != nullptr) metrics_->SlotsSkipped(skipped);
    misfires_skipped_.fetch_add(skipped, std::memory_order_relaxed);
    unlogged_skipped_ += skipped;
  }
  example_job_ = job.id();
  example_slot_ms_ = armed.cursor;
  CountFire(armed, p);
  return p;
}

void ScheduleLoop::LogMisfires(int64_t now_ms, bool force) {
  if (unlogged_skipped_ + unlogged_fired_ == 0) return;
  if (!force && now_ms - misfires_logged_ms_ < 10'000) return;
  GNOMON_LOG(INFO) << "scheduler: " << unlogged_skipped_ + unlogged_fired_
                   << " slots missed their misfire threshold (" << unlogged_skipped_
                   << " skipped and " << unlogged_fired_
                   << " fired late by their jobs' policies), the latest job " << example_job_
                   << " slot " << example_slot_ms_;
  unlogged_skipped_ = unlogged_fired_ = 0;
  misfires_logged_ms_ = now_ms;
}

absl::Duration ScheduleLoop::Behind() const {
  const int64_t earliest = earliest_slot_ms_.load(std::memory_order_relaxed);
  const int64_t now = clock_->NowMillis();
  if (earliest == store::kNever || earliest >= now) return absl::ZeroDuration();
  return absl::Milliseconds(now - earliest);
}

void ScheduleLoop::FireDue(int64_t now_ms) {
  std::vector<Planned> plans;
  std::vector<uint32_t> caught_up;
  const int64_t ahead = absl::ToInt64Milliseconds(options_.record_ahead);
  // Nothing until the earliest slot is within its lead; then every slot
  // within `ahead` of it, so each transaction covers about `ahead` worth of
  // slots (and a burst due on one instant goes in one transaction).
  int64_t horizon = now_ms;
  if (ahead > 0 && !timer_.empty() && timer_.begin()->first <= now_ms + RecordLeadMs()) {
    horizon = std::max(now_ms, timer_.begin()->first + ahead);
  }
  if (!timer_.empty() && timer_.begin()->first <= horizon) {
    // Behind() counts from it while the batch records (the recording may
    // wait for the store).
    earliest_slot_ms_.store(timer_.begin()->first, std::memory_order_relaxed);
  }
  while (!timer_.empty() && timer_.begin()->first <= horizon) {
    const int64_t job_id = timer_.begin()->second;
    timer_.erase(timer_.begin());
    Armed& armed = armed_[job_id];
    plans.push_back(Plan(armed, now_ms));
    caught_up.push_back(armed.caught_up);
    armed_.erase(job_id);
  }
  if (plans.empty()) return;

  std::vector<FireSpec> fires;
  for (const Planned& p : plans) {
    if (p.fires) fires.push_back(p.fire);
  }
  // Record (and dispatch) first; the cursors advance only after that.
  bool recorded = true;
  const size_t fire_count = fires.size();
  const absl::Time record_start = clock_->Now();
  if (!fires.empty()) {
    absl::StatusOr<std::vector<FireOutcome>> out = trigger_->Fire(std::move(fires));
    if (!out.ok()) {
      recorded = false;
      GNOMON_LOG(WARNING) << "scheduler: recording " << plans.size()
                          << " fires failed, will retry: " << out.status();
    }
  }

  if (recorded && fire_count >= 100) {
    // Learn from batches big enough to measure, not from lone fires.
    const double us = absl::ToDoubleMicroseconds(clock_->Now() - record_start) / fire_count;
    record_us_per_fire_ = 0.7 * record_us_per_fire_ + 0.3 * us;
  }
  if (!recorded) {
    // Forget everything: the next pre-read starts from the store's cursors,
    // which still point at the unrecorded slots.
    armed_.clear();
    timer_.clear();
    pending_advances_.clear();
    dirty_ = true;
    return;
  }
  // A next slot beyond the pre-read window is left to a pre-read, so only the
  // jobs due soon are held in memory (a million daily jobs that have each
  // fired once are not all armed until tomorrow).
  const int64_t until = now_ms + absl::ToInt64Milliseconds(options_.preread_window);
  for (size_t i = 0; i < plans.size(); ++i) {
    const store::JobAdvance& a = plans[i].advance;
    auto [it, inserted] = pending_advances_.try_emplace(a.job_id, a);
    if (!inserted) {
      it->second.next_fire_ms = a.next_fire_ms;  // Keep the first expected cursor.
      it->second.last_fire_ms = a.last_fire_ms;
      it->second.fired += a.fired;
    }
    // A FIX_DELAY job waits for its run's end, whose follow-up sends the next
    // fire (Reschedule), a compare-and-set from this cursor: written at once.
    if (a.next_fire_ms == store::kNever) advance_now_ = true;
    // An Invalidate sent meanwhile is applied at the next tick and disarms it again.
    if (armed_.contains(a.job_id) || a.next_fire_ms > until) continue;
    Arm(plans[i].fire.job, plans[i].cron, plans[i].calendar, a.next_fire_ms, plans[i].fires_left);
    if (auto armed = armed_.find(a.job_id); armed != armed_.end())
      armed->second.caught_up = caught_up[i];
  }
}

absl::Status ScheduleLoop::FlushAdvances(int64_t now_ms) {
  last_flush_ms_ = now_ms;
  advance_now_ = false;
  if (pending_advances_.empty()) return absl::OkStatus();
  std::vector<store::JobAdvance> all;
  all.reserve(pending_advances_.size());
  for (auto& [id, a] : pending_advances_) all.push_back(a);
  pending_advances_.clear();
  const size_t chunk = std::max<size_t>(1, options_.advance_batch);
  for (size_t begin = 0; begin < all.size(); begin += chunk) {
    const std::vector<store::JobAdvance> advances(
        all.begin() + begin, all.begin() + std::min(all.size(), begin + chunk));
    absl::StatusOr<std::vector<bool>> applied = store_->AdvanceJobs(advances);
    if (!applied.ok()) {
      GNOMON_LOG(WARNING) << "scheduler: advancing cursors failed, will re-read: "
                          << applied.status();
      // The store's cursors are behind; re-reading re-fires those slots, whose
      // keys are taken, so nothing is dispatched twice.
      armed_.clear();
      timer_.clear();
      dirty_ = true;
      return applied.status();
    }
    for (size_t i = 0; i < advances.size(); ++i) {
      if (!(*applied)[i]) Disarm(advances[i].job_id);  // Changed in the store meanwhile.
    }
  }
  return absl::OkStatus();
}

void ScheduleLoop::ApplyOwnership(std::shared_ptr<const Ownership> ownership) {
  const int64_t now = clock_->NowMillis();
  const bool was_valid = ownership_ && now < ownership_->valid_until_ms;
  const bool same = ownership_ && ownership_->partitions == ownership->partitions;
  ownership_ = std::move(ownership);
  if (same) {
    // A renewal after a lapse: resume (pre-reading what changed meanwhile).
    if (!was_valid && now < ownership_->valid_until_ms) dirty_ = true;
    return;
  }
  // Cursors of jobs given up are written before the new holder reads them
  // (a cursor left behind only re-fires a slot whose key is taken).
  FlushAdvances(now).IgnoreError();  // Logged; everything is re-read after a failure.
  std::vector<int64_t> gone;
  for (const auto& [id, a] : armed_) {
    if (!ownership_->HoldsJob(id)) gone.push_back(id);
  }
  for (int64_t id : gone) Disarm(id);
  dirty_ = true;  // Pre-read what was gained.
}

bool ScheduleLoop::Holds(int64_t job_id) const {
  return !ownership_ || ownership_->HoldsJob(job_id);
}

int64_t ScheduleLoop::RecordLeadMs() const {
  const int64_t ahead = absl::ToInt64Milliseconds(options_.record_ahead);
  if (ahead <= 0 || timer_.empty()) return 0;
  const int64_t first = timer_.begin()->first;
  size_t burst = 0;
  for (auto it = timer_.begin(); it != timer_.end() && it->first <= first + ahead; ++it) ++burst;
  // Half again the learnt cost, bounded well inside the pre-read window.
  const int64_t cost_ms = static_cast<int64_t>(1.5 * burst * record_us_per_fire_ / 1000);
  return ahead + std::min(cost_ms, absl::ToInt64Milliseconds(options_.preread_window) / 2);
}

int64_t ScheduleLoop::TickOwned() {
  const absl::Time start = clock_->Now();
  const int64_t wake = Pass();
  armed_count_.store(armed_.size(), std::memory_order_relaxed);
  earliest_slot_ms_.store(timer_.empty() ? store::kNever : timer_.begin()->first,
                          std::memory_order_relaxed);
  LogMisfires(clock_->NowMillis(), /*force=*/false);
  if (metrics_ != nullptr) {
    // What is still due after the pass: none unless the hold lapsed or a
    // write failed (slots held back for the store).
    const int64_t now = clock_->NowMillis();
    size_t due = 0;
    for (auto it = timer_.begin(); it != timer_.end() && it->first <= now; ++it) ++due;
    const absl::Duration oldest =
        due > 0 ? absl::Milliseconds(now - timer_.begin()->first) : absl::ZeroDuration();
    metrics_->LoopPass(clock_->Now() - start, due, oldest);
    metrics_->SetJobsAwaitingCalendar(calendar_missing_.size());
  }
  return wake;
}

int64_t ScheduleLoop::Pass() {
  ApplyMessages();
  calendars_read_ = false;
  const int64_t now = clock_->NowMillis();
  if (ownership_ && (ownership_->partitions.empty() || now >= ownership_->valid_until_ms)) {
    // Nothing held, or the hold could not be renewed in time: fire nothing
    // (another replica may be taking over); the next ownership wakes us.
    dirty_ = false;
    refresh_.clear();
    return now + absl::ToInt64Milliseconds(options_.preread_interval);
  }
  if (dirty_ || now >= next_preread_ms_) {
    dirty_ = false;
    refresh_.clear();
    next_preread_ms_ = now + absl::ToInt64Milliseconds(options_.preread_interval);
    Preread(now);
  } else if (!refresh_.empty()) {
    Refresh(now);
  }
  FireDue(clock_->NowMillis());
  const int64_t after = clock_->NowMillis();
  const int64_t flush_every = absl::ToInt64Milliseconds(options_.advance_flush_interval);
  if (!pending_advances_.empty() && (advance_now_ || after - last_flush_ms_ >= flush_every)) {
    FlushAdvances(after).IgnoreError();  // Logged; dirty_ makes the next pass re-read.
  }
  if (dirty_) return after;  // A failed write: start again from the store now.
  int64_t wake = next_preread_ms_;
  if (!pending_advances_.empty()) wake = std::min(wake, last_flush_ms_ + flush_every);
  if (!timer_.empty()) wake = std::min(wake, timer_.begin()->first - RecordLeadMs());
  return wake;
}

absl::Time ScheduleLoop::Tick() { return absl::FromUnixMillis(TickOwned()); }

void ScheduleLoop::Run() {
  absl::MutexLock owner(&owner_mu_);  // Waits out a caller acting as the owner.
  {
    absl::MutexLock l(&mu_);
    if (stopped_) return;  // Stop() came first and did the owner's part.
    running_ = true;
  }
  while (true) {
    const int64_t wake = TickOwned();
    absl::MutexLock l(&mu_);
    auto woken = [this]()
                     ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopped_ || !inbox_.empty(); };
    clock_->AwaitWithDeadline(&mu_, absl::Condition(&woken), absl::FromUnixMillis(wake));
    if (stopped_) break;
  }
  ApplyMessages();
  FlushAdvances(clock_->NowMillis()).IgnoreError();  // Logged; the next holder re-reads.
  absl::MutexLock l(&mu_);
  running_ = false;  // Releases SetOwnership callers waiting for a hand-over.
}

}  // namespace gnomon::scheduler

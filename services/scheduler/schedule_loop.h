// ScheduleLoop: fires jobs on their schedule with millisecond resolution.
//
// Every `preread_interval` it reads the jobs due within `preread_window` into
// an in-memory timer (a set ordered by slot instant), refreshing jobs changed
// in the store (by any replica) and dropping those no longer due. When a slot
// is due (or, with `record_ahead`, nearly due) it hands the fire to its
// FireSink (Trigger), which records the run under its unique slot key before
// dispatching; the job's cursor advances in memory at once and in the store
// in batches (compare-and-set). A crash before a batch is
// written re-fires nothing: those slots' keys are taken. A slot found later
// than the misfire threshold follows the job's misfire policy. A fired job
// stays in memory only while its next slot is within the window, so what the
// loop holds is the jobs due soon, not every job that has fired.
//
//   ScheduleLoop loop(store, &trigger, &RealClock(), {});
//   std::thread t([&] { loop.Run(); });
//   loop.Invalidate(job_id);   // after an admin change
//   loop.Stop(); t.join();
//
// Thread safety: one owner. The schedule state (armed jobs, timer, pending
// cursors, ownership) belongs to the thread in Run() -- or, in tests, to the
// thread calling Tick() -- and only that thread changes it, with no lock held
// across store calls. Everyone else sends messages (Invalidate,
// SetOwnership, Stop), which the owner applies at the start of its next tick,
// in the order they were sent.
#ifndef GNOMON_SERVICES_SCHEDULER_SCHEDULE_LOOP_H_
#define GNOMON_SERVICES_SCHEDULER_SCHEDULE_LOOP_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/common/schedule/schedule.h"
#include "services/common/store/calendar_store.h"
#include "services/common/store/job_store.h"
#include "services/scheduler/calendar_book.h"
#include "services/scheduler/fire_sink.h"
#include "services/scheduler/partition_lease.h"
#include "services/scheduler/scheduler_metrics.h"

namespace gnomon::scheduler {

struct ScheduleLoopOptions {
  absl::Duration preread_window = absl::Seconds(5);
  absl::Duration preread_interval = absl::Seconds(1);
  // Due jobs read per pass; 0 = all of them (100,000 jobs due on one instant
  // are all armed by one pass, not 5,000 a second).
  int preread_limit = 0;
  // Cursor advances are written once per interval, a job's latest only, in
  // transactions of `advance_batch` jobs. Safe to defer: a slot re-fired
  // after a crash finds its key taken and is not dispatched again. Longer
  // than a second, so a job due every second has its cursor written every
  // other fire, not at each (the job row is then written half as often).
  absl::Duration advance_flush_interval = absl::Seconds(2);
  size_t advance_batch = 1000;
  // Record runs ahead of their slots: once the earliest slot is this close,
  // every slot up to twice this far ahead is recorded in one transaction and
  // handed to the trigger with dispatch_at_ms = its slot (Deliveries
  // sends it at the instant). Zero records each slot at its instant. A crash
  // leaves at most this window of recorded runs unsent; the run reaper fails
  // them ("dispatch never confirmed") and retries follow the job's policy.
  // A burst (thousands of jobs due on one instant) starts recording earlier
  // by the time its runs take to record, learnt from earlier batches, so the
  // last of them is recorded before the instant too.
  absl::Duration record_ahead = absl::ZeroDuration();
};

class ScheduleLoop {
 public:
  // `metrics` may be null (not measured); `calendars` may be null (no
  // calendars: a job naming one is never armed).
  ScheduleLoop(store::JobStore* store, FireSink* sink, Clock* clock, ScheduleLoopOptions options,
               SchedulerMetrics* metrics = nullptr, store::CalendarStore* calendars = nullptr)
      : store_(store),
        trigger_(sink),
        clock_(clock),
        options_(options),
        metrics_(metrics),
        calendars_(calendars, clock),
        last_flush_ms_(clock->NowMillis()) {}

  // The owner: ticks, then waits for the next slot, pre-read or message,
  // until Stop(); writes the pending cursor advances on its way out.
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  // One pass at the clock's current time: applies the messages received,
  // pre-reads if due (or re-reads invalidated jobs) and fires every due slot.
  // Returns when the loop next needs to run. Run() calls it; tests call it
  // directly with a SimulatedClock (the calling thread is then the owner).
  absl::Time Tick() ABSL_LOCKS_EXCLUDED(mu_);
  // Message: stop. Without a Run() thread the caller is the owner and
  // writes the pending cursor advances itself.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);
  // Message: forget what is in memory about a job and re-read that job
  // (only): starting 10,000 jobs one call at a time costs 10,000 job reads,
  // not 10,000 pre-reads of every due job.
  void Invalidate(int64_t job_id) ABSL_LOCKS_EXCLUDED(mu_);
  // Message: fire only the jobs of the partitions this replica holds, and
  // only until ownership->valid_until_ms; partitions given up are disarmed
  // (their pending cursors written first), gained ones pre-read at once.
  // Without a call the loop fires every job (a single replica, tests).
  // A change that gives partitions up returns only once the owner has
  // applied it (drain, then release: the caller may hand them over), or at
  // once when no Run() thread is running; other changes return at once.
  void SetOwnership(std::shared_ptr<const Ownership> ownership) ABSL_LOCKS_EXCLUDED(mu_);
  // Message: the next fires of FIX_DELAY jobs whose runs ended (Followups),
  // each a compare-and-set from the cursor such a job waits with (kNever) to
  // its run's end + delay. The loop is the only writer of job cursors: the
  // owner writes these at once, with its own pending advances, then re-reads
  // those jobs to arm them. Returns once they are written, or the error that
  // kept them from it (the caller tries again later; Unavailable if the loop
  // stopped first). Without a Run() thread the caller is the owner and
  // writes them itself.
  absl::Status Reschedule(std::vector<store::JobAdvance> advances) ABSL_LOCKS_EXCLUDED(mu_);
  // Jobs held in memory after the last tick: those whose next slot was
  // within the pre-read window when they were read or last fired.
  size_t ArmedJobs() const { return armed_count_.load(std::memory_order_relaxed); }
  // How far behind its slots the loop is now: the age of the earliest slot
  // due and not yet recorded (while a batch records too), else zero.
  absl::Duration Behind() const;
  // Slots that missed their misfire threshold, since start: passed over by
  // their job's policy (never run; each slot counted), and fired late by it.
  int64_t misfires_skipped() const { return misfires_skipped_.load(std::memory_order_relaxed); }
  int64_t misfires_fired() const { return misfires_fired_.load(std::memory_order_relaxed); }

 private:
  struct Armed {
    std::shared_ptr<const v1::Job> job;
    // Compiled once per job version (null unless a cron job): no parse per fire.
    std::shared_ptr<const schedule::CompiledCron> cron;
    // The calendar its schedule names (null: none).
    std::shared_ptr<const schedule::Calendar> calendar;
    int64_t cursor = store::kNever;
    // When the slot at `cursor` fires: the cursor, later by its jitter.
    int64_t fire_at = store::kNever;
    uint32_t caught_up = 0;  // Consecutive CATCH_UP fires.
    // With max_fires: the slots it will still fire (this one included);
    // -1 without. Counted here as slots fire, and in the store as their
    // cursors are written (JobAdvance::fired).
    int64_t fires_left = -1;
  };
  struct Planned {
    FireSpec fire;
    std::shared_ptr<const schedule::CompiledCron> cron;
    std::shared_ptr<const schedule::Calendar> calendar;
    bool fires = true;
    store::JobAdvance advance;
    int64_t fires_left = -1;  // Armed::fires_left after this fire.
  };

  // The owner's tick; returns when to tick next (ms).
  int64_t TickOwned() ABSL_LOCKS_EXCLUDED(mu_);
  // The pass proper (TickOwned measures it).
  int64_t Pass() ABSL_LOCKS_EXCLUDED(mu_);
  // Takes the messages received and applies them, oldest first.
  void ApplyMessages() ABSL_LOCKS_EXCLUDED(mu_);
  // The owner's part of Reschedule: queues the advances, writes every
  // pending one and marks those jobs to be re-read.
  absl::Status ApplyReschedule(const std::vector<store::JobAdvance>& advances);
  void ApplyOwnership(std::shared_ptr<const Ownership> ownership);
  // `fires_left`: Armed::fires_left (-1: as the job read says).
  void Arm(std::shared_ptr<const v1::Job> job, std::shared_ptr<const schedule::CompiledCron> cron,
           std::shared_ptr<const schedule::Calendar> calendar, int64_t cursor,
           int64_t fires_left = -1);
  // Arms a job read from the store: shared from here on, its cron compiled
  // once, its calendar found. A cursor its calendar (changed since it was
  // written) does not allow moves to the next slot it does (an advance
  // like a fire's); a job whose calendar is not found is not armed.
  void Arm(v1::Job job, int64_t cursor, int64_t until_ms);
  void Disarm(int64_t job_id);
  // Plans the fire of the job's due slot and its new cursor.
  Planned Plan(Armed& armed, int64_t now_ms);
  // A job with max_fires: counts `p`'s fire off `armed`; after its last
  // slot the new cursor is kNever.
  static void CountFire(Armed& armed, Planned& p);
  void Preread(int64_t now_ms);
  // Re-reads the invalidated jobs one by one and arms those due in the window.
  void Refresh(int64_t now_ms);
  void FireDue(int64_t now_ms);
  // Logs the misfires counted since the last line, at most once per 10 s.
  void LogMisfires(int64_t now_ms, bool force);
  // Writes pending cursor advances; disarms jobs whose cursor changed
  // meanwhile. The store's error if a write failed (then every job is
  // re-read from the store).
  absl::Status FlushAdvances(int64_t now_ms);
  // Whether this replica may fire `job_id` now (its partition held, the hold valid).
  bool Holds(int64_t job_id) const;
  // How long before the earliest slot recording starts: record_ahead plus
  // the learnt recording time of the slots due within record_ahead of it.
  int64_t RecordLeadMs() const;

  store::JobStore* const store_;
  FireSink* const trigger_;
  Clock* const clock_;
  const ScheduleLoopOptions options_;
  SchedulerMetrics* const metrics_;
  // The calendars jobs name, re-read when they change (the owner's): once
  // a pass that arms a job naming one, before it is armed (so a job and its
  // calendar edited together are armed on the new calendar).
  CalendarBook calendars_;
  bool calendars_read_ = false;
  // Jobs due that the last pre-read did not arm for a calendar not found,
  // and those already logged (until it is found).
  absl::flat_hash_set<int64_t> calendar_missing_;
  absl::flat_hash_set<int64_t> calendar_warned_;

  // Held by Run() for its whole life, and by a caller acting as the owner
  // while no Run() thread is (Reschedule, Stop): never two owners at once.
  absl::Mutex owner_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  // The mailbox: messages not yet applied by the owner.
  absl::Mutex mu_;
  // Reschedule's answer, set by the owner under mu_.
  struct Reply {
    bool done = false;
    absl::Status status;
  };
  struct Message {
    int64_t invalidate = 0;                      // A job to re-read, or...
    std::shared_ptr<const Ownership> ownership;  // ...a new ownership, or...
    std::vector<store::JobAdvance> reschedule;   // ...FIX_DELAY next fires,
    std::shared_ptr<Reply> reply;                // answered here.
  };
  std::vector<Message> inbox_ ABSL_GUARDED_BY(mu_);
  // The partitions of the last ownership sent (to tell a give-up).
  std::vector<int> sent_partitions_ ABSL_GUARDED_BY(mu_);
  bool everything_sent_ ABSL_GUARDED_BY(mu_) = true;  // No ownership sent yet.
  uint64_t sent_ ABSL_GUARDED_BY(mu_) = 0;            // Messages sent...
  uint64_t applied_ ABSL_GUARDED_BY(mu_) = 0;         // ...and applied by the owner.
  bool running_ ABSL_GUARDED_BY(mu_) = false;         // A Run() thread owns the state.
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<size_t> armed_count_{0};
  // The earliest slot armed (kNever: none), published for Behind().
  std::atomic<int64_t> earliest_slot_ms_{store::kNever};
  std::atomic<int64_t> misfires_skipped_{0};
  std::atomic<int64_t> misfires_fired_{0};
  // Misfires not yet logged, and when they were last logged (the owner's):
  // one line per interval, not one per slot (a backlog misfires thousands).
  int64_t unlogged_skipped_ = 0;
  int64_t unlogged_fired_ = 0;
  int64_t example_job_ = 0, example_slot_ms_ = 0;
  int64_t misfires_logged_ms_ = 0;

  // The schedule state: the owner's alone (see the class comment).
  absl::flat_hash_map<int64_t, Armed> armed_;
  std::set<std::pair<int64_t, int64_t>> timer_;  // (Armed::fire_at, job id)
  int64_t next_preread_ms_ = 0;
  // Jobs to re-read before the next fire (Invalidate); a pre-read covers them.
  absl::flat_hash_set<int64_t> refresh_;
  // Advances not yet written, one per job (first expected, last next).
  absl::flat_hash_map<int64_t, store::JobAdvance> pending_advances_;
  int64_t last_flush_ms_ = 0;
  bool advance_now_ = false;  // A pending advance must be written this pass.
  // Recording cost per fire (µs), a moving average over recorded batches.
  double record_us_per_fire_ = 20;
  bool dirty_ = true;  // Pre-read at the next tick.
  // Null: every partition, always (no lease in use).
  std::shared_ptr<const Ownership> ownership_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_SCHEDULE_LOOP_H_

// AlarmSender: delivers alarms through a set of channels on its own worker
// thread, so raising an alarm never makes scheduling wait.
//
//   std::vector<std::unique_ptr<AlarmChannel>> channels;
//   channels.push_back(std::make_unique<WebhookChannel>(WebhookOptions{}));
//   AlarmSender sender(std::move(channels), {}, [&](int64_t run_id, const std::string& s) {
//     // s: "sent: webhook", "failed: webhook ...: HTTP 500 after 5 attempts",
//     // or for a summary "sent: webhook (for 57 runs)"
//     (void)runs->RecordAlarmStatus(run_id, s);
//   });
//   sender.Start();
//   sender.Raise({job, run, "retries exhausted"});  // never blocks; folded, not dropped
//   sender.Stop();
//
// Each (alarm, channel) pair is one delivery. Deliveries are attempted in the
// order they became due, one at a time; a failed attempt is rescheduled with
// exponential backoff (full jitter) on the injected clock instead of being
// slept on, so other deliveries go ahead meanwhile, and each attempt is bounded
// by the channel's own timeout. An InvalidArgument error is final at once
// (bad address or URL). When every delivery of an alarm has finished, the
// status callback gets one short line for the run.
//
// Floods are aggregated, never dropped. A job has at most one alarm queued
// (accepted and not finished: waiting, being sent or waiting for a retry).
// An alarm raised while its job has one queued, or while the queue is full
// (`queue_capacity` jobs with an alarm queued), is folded into the job's
// summary: how many runs, since when, and the latest run with its reason. As
// soon as the job has nothing queued and the queue has room, the summary is
// queued as one alarm (Alarm::failed_runs = its count, `run` = the latest);
// summaries waiting only for room go out oldest first. So one outage pages
// each job's targets once, then once per delivery round with the count of the
// runs that failed meanwhile, rather than once per run; sending more alarms of
// a job whose previous alarm has not gone through (its channel is slow or
// failing) would only queue pages behind it.
//
// A job's alarm.silence stretches this: once its alarm of a kind has gone
// out (or failed for good), the alarms of that job and kind raised within
// its silence are folded into the summary, which goes out when the silence
// ends — and starts the next one.
//
// Memory: at most `queue_capacity` queued alarms, at most one per job, plus at
// most one summary per job (one Alarm and a count) — bounded by the number of
// jobs, never by the number of runs.
//
// Status of runs: the run an alarm carries gets one status line, for a summary
// with the count ("sent: webhook (for 57 runs)"). The other runs folded into
// a summary get no status of their own (run.alarm_status stays empty): a write
// per run would turn a flood of failures into a flood of store writes, the very
// load aggregation avoids; the summary's run names how many it stood for, and
// AlarmCounters::aggregated counts them.
//
// Stop() abandons what is still queued and the summaries not yet queued
// (counted in AlarmCounters::abandoned by the runs they stand for, and
// logged); Raise after Stop drops the alarm (counted, logged) — the only drop.
//
// Thread safety: thread-safe. Channels' Send and the status callback run on
// the worker thread; Wants runs on the worker thread under the sender's lock
// and must not call back into the sender; the callback may Raise but must not
// call Stop().
#ifndef GNOMON_SERVICES_SCHEDULER_ALARM_ALARM_SENDER_H_
#define GNOMON_SERVICES_SCHEDULER_ALARM_ALARM_SENDER_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"
#include "services/scheduler/alarm/alarm.h"

namespace gnomon::scheduler::alarm {

struct AlarmSenderOptions {
  // Alarms queued (accepted, not yet finished; one per job at most), at most.
  // Alarms beyond it are folded into their job's summary.
  size_t queue_capacity = 10000;
  // Attempts per (alarm, channel) delivery, the first included.
  int max_attempts = 5;
  // Backoff between attempts of one delivery.
  absl::Duration initial_backoff = absl::Seconds(1);
  absl::Duration max_backoff = absl::Seconds(60);
  // Time source for retry scheduling; nullptr means RealClock().
  Clock* clock = nullptr;
};

// Monotonic counters, for tests and metrics.
struct AlarmCounters {
  // Raise calls, aggregated and dropped ones included.
  int64_t raised = 0;
  // Raise calls folded into their job's summary instead of queued on their own
  // (an alarm of the job was queued, or the queue was full).
  int64_t aggregated = 0;
  // Summaries queued, each as one alarm for the runs folded into it.
  int64_t summaries = 0;
  // Raise calls refused because the sender had stopped.
  int64_t dropped = 0;
  // Deliveries (alarm, channel) that succeeded.
  int64_t sent = 0;
  // Deliveries that failed for good (attempts spent, or a permanent error).
  int64_t failed = 0;
  // Failed attempts rescheduled for later.
  int64_t retries = 0;
  // Alarms whose status callback has returned.
  int64_t finished = 0;
  // Raised alarms not delivered because Stop() came first: those queued (a
  // summary counting every run it stands for) and those folded into summaries
  // not yet queued.
  int64_t abandoned = 0;
  // `sent` and `failed` by channel name.
  std::map<std::string, int64_t> sent_by_channel;
  std::map<std::string, int64_t> failed_by_channel;
};

// What the sender holds now, for tests and logs.
struct AlarmBacklog {
  // Alarms queued (summaries included), at most one per job.
  size_t queued = 0;
  // Jobs with a summary not yet queued, and the runs those summaries hold.
  size_t summaries = 0;
  int64_t summarized_runs = 0;
};

// Called once per finished alarm with the run id and a short status line.
using AlarmStatusCallback = std::function<void(int64_t run_id, const std::string& status)>;

class AlarmSender {
 public:
  AlarmSender(std::vector<std::unique_ptr<AlarmChannel>> channels, AlarmSenderOptions options,
              AlarmStatusCallback on_status);
  ~AlarmSender();

  AlarmSender(const AlarmSender&) = delete;
  AlarmSender& operator=(const AlarmSender&) = delete;

  // Starts the worker thread. Alarms raised before Start wait for it.
  void Start() ABSL_LOCKS_EXCLUDED(mu_);
  // Queues an alarm, or folds it into its job's summary; never blocks on
  // delivery. False only when it was dropped (the sender stopped).
  bool Raise(Alarm alarm) ABSL_LOCKS_EXCLUDED(mu_);
  // Ends the worker (after the attempt in progress, if any) and abandons
  // queued alarms and summaries. Idempotent; later Raise calls are dropped.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

  AlarmCounters counters() const ABSL_LOCKS_EXCLUDED(mu_);
  AlarmBacklog backlog() const ABSL_LOCKS_EXCLUDED(mu_);
  // Waits until `pred(counters())` holds or `timeout` (real time) passes;
  // returns whether it holds. For tests and orderly shutdown.
  bool AwaitCounters(const std::function<bool(const AlarmCounters&)>& pred,
                     absl::Duration timeout) const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  enum class Outcome { kUnwanted, kPending, kSent, kFailed };
  struct Pending {
    Alarm alarm;
    std::vector<Outcome> outcomes;    // Per channel.
    std::vector<std::string> errors;  // Per channel, final error text.
    int remaining = 0;
  };
  // Alarms of one job folded together while it had an alarm queued or the
  // queue was full.
  struct Summary {
    Alarm latest;
    int64_t runs = 0;
    absl::Time since = absl::InfiniteFuture();
  };
  struct Delivery {
    uint64_t alarm_id;
    size_t channel;
    int attempts;  // Attempts made so far.
  };

  void Loop() ABSL_LOCKS_EXCLUDED(mu_);
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Alarms are queued and folded per job and kind: job id * 3 + kind.
  static int64_t KeyOf(const Alarm& alarm);
  // Queues `alarm` (nothing of its job and kind queued, and there is room).
  void Enqueue(Alarm alarm) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Folds `alarm` into its job's summary.
  void Fold(Alarm alarm) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Queues waiting summaries while there is room.
  void QueueSummaries() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Turns new alarms into deliveries and due retries into ready deliveries.
  void ExpandIncoming() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Moves the summaries whose job's silence ended into line.
  void EndSilences() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PromoteDue() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void RecordAttempt(Delivery d, const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void MaybeFinish(uint64_t alarm_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Duration RetryDelay(int attempts) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string StatusLine(const Pending& p) const;

  const std::vector<std::unique_ptr<AlarmChannel>> channels_;
  const AlarmSenderOptions options_;
  Clock* const clock_;
  const AlarmStatusCallback on_status_;

  mutable absl::Mutex mu_;
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  // Accepted alarms not yet finished; std::map keeps element addresses stable
  // while the worker reads one outside the lock.
  std::map<uint64_t, Pending> pending_ ABSL_GUARDED_BY(mu_);
  // Jobs with an alarm in pending_ (one each of a kind), by KeyOf.
  absl::flat_hash_set<int64_t> queued_jobs_ ABSL_GUARDED_BY(mu_);
  // Summaries not yet queued, by KeyOf.
  absl::flat_hash_map<int64_t, Summary> summaries_ ABSL_GUARDED_BY(mu_);
  // Summaries (KeyOf) that wait only for room (nothing of their job and
  // kind queued), oldest first. Not empty only while the queue is full.
  std::deque<int64_t> summaries_ready_ ABSL_GUARDED_BY(mu_);
  // Whether the queue-full edge was logged and its end is still to be.
  bool full_logged_ ABSL_GUARDED_BY(mu_) = false;
  std::deque<uint64_t> incoming_ ABSL_GUARDED_BY(mu_);
  std::deque<Delivery> ready_ ABSL_GUARDED_BY(mu_);
  std::multimap<absl::Time, Delivery> waiting_ ABSL_GUARDED_BY(mu_);
  // Job alarm.silence: KeyOf → when the silence after its last alarm ends
  // (alarms meanwhile are folded), and the same ordered by end.
  absl::flat_hash_map<int64_t, absl::Time> silenced_until_ ABSL_GUARDED_BY(mu_);
  std::multimap<absl::Time, int64_t> silence_ends_ ABSL_GUARDED_BY(mu_);
  // Finished alarms whose callback has not run yet: (run id, status).
  std::vector<std::pair<int64_t, std::string>> to_report_ ABSL_GUARDED_BY(mu_);
  AlarmCounters counters_ ABSL_GUARDED_BY(mu_);
  std::mt19937_64 rng_ ABSL_GUARDED_BY(mu_);
  // Serialises Start and Stop.
  absl::Mutex start_stop_mu_ ABSL_ACQUIRED_BEFORE(mu_);
  std::thread worker_ ABSL_GUARDED_BY(start_stop_mu_);
};

}  // namespace gnomon::scheduler::alarm

#endif  // GNOMON_SERVICES_SCHEDULER_ALARM_ALARM_SENDER_H_

#include "services/executor-sdk/src/run_manager.h"

#include <algorithm>
#include <cstddef>
#include <deque>
#include <exception>
#include <map>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "services/executor-sdk/src/recent_run_ids.h"
#include "services/executor-sdk/src/script_runner.h"

namespace gnomon::executor::internal {
namespace {

DispatchOutcome Reject(v1::RejectKind kind, std::string reason) {
  DispatchOutcome out;
  out.code = v1::HANDLE_CODE_REJECTED;
  out.kind = kind;
  out.reason = std::move(reason);
  return out;
}

// One pool thread. Fields are guarded by Core::mu.
struct WorkerThread {
  absl::CondVar wake;      // signalled when `woken` is set
  bool woken = false;      // handed work (or told to stop) while parked
  bool abandoned = false;  // stuck in a handler past its grace; replaced
};

// The runs of one job on this executor. Fields are guarded by Core::mu.
struct JobQueue {
  explicit JobQueue(int64_t id) : job_id(id) {}
  const int64_t job_id;
  std::deque<std::shared_ptr<RunState>> waiting;
  std::shared_ptr<RunState> current;
  std::shared_ptr<WorkerThread> runner;  // executing `current`
  absl::Time run_deadline = absl::InfiniteFuture();
  absl::Time grace_deadline = absl::InfiniteFuture();  // after a Terminate
  absl::Time idle_since = absl::InfiniteFuture();      // idle with destroy hooks pending
  bool in_ready = false;
  // The watchdog index entry (InfiniteFuture: none).
  absl::Time watched_at = absl::InfiniteFuture();
  absl::flat_hash_set<std::string> inited;  // handlers whose init ran for this job
  std::vector<std::function<void()>> destroys;
  bool busy() const { return current != nullptr || !waiting.empty(); }
  JobLoad load() const { return {current ? 1u : 0u, static_cast<uint32_t>(waiting.size())}; }
};

// Work for a pool thread: a job with a run ready to start, or destroy hooks.
struct Task {
  std::shared_ptr<JobQueue> job;
  std::vector<std::function<void()>> destroys;
};

void RunDestroys(const std::vector<std::function<void()>>& destroys) {
  for (const auto& destroy : destroys) {
    try {
      destroy();
    } catch (...) {
      // A destroy hook has nowhere to report to; it must not take the thread down.
    }
  }
}

}  // namespace

struct RunManager::Core : std::enable_shared_from_this<RunManager::Core> {
  Core(RunManagerOptions o, HandlerMap h, RunSink* s, std::function<void()> cb)
      : options(std::move(o)),
        handlers(std::move(h)),
        sink(s),
        on_busy_changed(std::move(cb)),
        recent(static_cast<size_t>(options.run.remembered_runs)) {
    absl::MutexLock lock(&mu);
    for (int64_t run_id : options.remembered_run_ids) recent.Add(run_id);
  }

  const RunManagerOptions options;
  const HandlerMap handlers;
  RunSink* const sink;
  const std::function<void()> on_busy_changed;
  Clock& clock() const { return *options.clock; }

  mutable absl::Mutex mu;
  absl::flat_hash_map<int64_t, std::shared_ptr<JobQueue>> jobs ABSL_GUARDED_BY(mu);
  absl::flat_hash_map<int64_t, int64_t> run_jobs ABSL_GUARDED_BY(mu);  // run -> job
  RecentRunIds recent ABSL_GUARDED_BY(mu);  // accepted runs, also once ended
  std::deque<Task> ready ABSL_GUARDED_BY(mu);
  std::vector<WorkerThread*> parked ABSL_GUARDED_BY(mu);  // idle threads, most recent last
  int queued ABSL_GUARDED_BY(mu) = 0;                     // runs waiting in job queues
  int running ABSL_GUARDED_BY(mu) = 0;                    // runs taken by a thread
  int live_threads ABSL_GUARDED_BY(mu) = 0;               // pool threads (not abandoned)
  int abandoned_threads ABSL_GUARDED_BY(mu) = 0;          // still inside a handler
  bool accepting ABSL_GUARDED_BY(mu) = true;
  bool stopping ABSL_GUARDED_BY(mu) = false;
  bool watchdog_stop ABSL_GUARDED_BY(mu) = false;
  // Jobs with a deadline (run timeout, cancel grace, idle destroy), earliest
  // first; `watch_version` moves when the earliest entry gets earlier.
  std::map<std::pair<absl::Time, const JobQueue*>, std::shared_ptr<JobQueue>> watched
      ABSL_GUARDED_BY(mu);
  uint64_t watch_version ABSL_GUARDED_BY(mu) = 0;

  // The answer to a run accepted before: where it stands in its job's queue
  // if it waits there, else 0 (running or ended).
  std::optional<DispatchOutcome> Recall(int64_t run_id) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    auto job_id = run_jobs.find(run_id);
    if (job_id == run_jobs.end() && !recent.Contains(run_id)) return std::nullopt;
    DispatchOutcome out;
    out.accepted = true;
    out.already_accepted = true;
    if (job_id == run_jobs.end()) return out;
    auto job = jobs.find(job_id->second);
    if (job == jobs.end()) return out;
    const JobQueue& q = *job->second;
    for (size_t i = 0; i < q.waiting.size(); ++i) {
      if (q.waiting[i]->run_id() != run_id) continue;
      out.queue_position = static_cast<uint32_t>(i) + (q.current ? 1 : 0);
      break;
    }
    return out;
  }

  absl::Duration GraceFor(const RunState& run) const {
    return run.is_script() ? options.run.script_kill_grace + options.run.cancel_grace
                           : options.run.cancel_grace;
  }

  // Puts `job` in (or takes it out of) the watchdog index.
  void Rewatch(const std::shared_ptr<JobQueue>& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    absl::Time want = absl::InfiniteFuture();
    if (job->current) {
      want = std::min(job->run_deadline, job->grace_deadline);
    } else if (!job->busy() && !job->destroys.empty()) {
      want = job->idle_since + options.run.idle_job_ttl;
    }
    if (want == job->watched_at) return;
    if (job->watched_at != absl::InfiniteFuture()) watched.erase({job->watched_at, job.get()});
    job->watched_at = want;
    if (want == absl::InfiniteFuture()) return;
    auto it = watched.emplace(std::make_pair(want, job.get()), job).first;
    if (it == watched.begin()) ++watch_version;
  }

  // Hands a task to a parked thread, or starts a thread while the pool is
  // below its size. (A thread that just finished a run takes the next task
  // itself; it calls Push without Wake.)
  void Wake() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (!parked.empty()) {
      WorkerThread* w = parked.back();
      parked.pop_back();
      w->woken = true;
      w->wake.Signal();
    } else if (live_threads < options.run.max_concurrent_runs) {
      ++live_threads;
      std::thread(&Core::WorkerLoop, shared_from_this(), std::make_shared<WorkerThread>()).detach();
    }
  }

  void MakeReady(const std::shared_ptr<JobQueue>& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (job->in_ready || job->current || job->waiting.empty()) return;
    job->in_ready = true;
    ready.push_back(Task{job, {}});
  }

  // Hands the job's destroy hooks (if any) to a worker; its next run inits again.
  void RetireHooks(JobQueue& job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (job.destroys.empty()) return;
    ready.push_back(Task{nullptr, std::move(job.destroys)});
    job.destroys.clear();
    job.inited.clear();
    Wake();
  }

  // A job without runs: forgotten, or kept until its destroy hooks are due.
  void Settle(const std::shared_ptr<JobQueue>& job, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (job->busy()) return;
    if (job->destroys.empty()) {
      auto it = jobs.find(job->job_id);
      if (it != jobs.end() && it->second == job) jobs.erase(it);
    } else {
      job->idle_since = now;
    }
    Rewatch(job);
  }

  // Ends a queued run without running it.
  void Drop(const std::shared_ptr<RunState>& run, const std::string& why, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    run->Terminate(Termination::kKilled, why);
    run->Finish(now);
    run_jobs.erase(run->run_id());
    --queued;
  }

  void TerminateCurrent(const std::shared_ptr<JobQueue>& job, Termination kind, std::string message,
                        absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (job->current && job->current->Terminate(kind, std::move(message))) {
      job->grace_deadline = now + GraceFor(*job->current);
      Rewatch(job);
    }
  }

  // The handler of job's current run ignored cancellation past the grace:
  // report it now, leave its thread behind and let the job go on.
  void Abandon(const std::shared_ptr<JobQueue>& job, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    std::shared_ptr<RunState> run = std::move(job->current);
    run->Finish(now);
    run_jobs.erase(run->run_id());
    --running;
    job->runner->abandoned = true;
    job->runner = nullptr;
    --live_threads;
    ++abandoned_threads;
    job->run_deadline = job->grace_deadline = absl::InfiniteFuture();
    // The stuck thread ran this job's init hooks and may still be in a
    // handler: hand the destroys to a fresh thread now.
    RetireHooks(*job);
    MakeReady(job);
    if (!ready.empty()) Wake();  // the pool is a thread short until replaced
    Settle(job, now);
    Rewatch(job);
  }

  static void WorkerLoop(std::shared_ptr<Core> core, std::shared_ptr<WorkerThread> self);
  void Execute(const std::shared_ptr<RunState>& run, JobQueue& job) ABSL_LOCKS_EXCLUDED(mu);
  void Watchdog();
  void NotifyBusy() const ABSL_LOCKS_EXCLUDED(mu) {
    if (on_busy_changed) on_busy_changed();
  }
};

void RunManager::Core::Execute(const std::shared_ptr<RunState>& run, JobQueue& job) {
  JobContext ctx(run);
  try {
    if (run->is_script()) {
      ScriptOptions script_options;
      script_options.kill_grace = options.run.script_kill_grace;
      script_options.max_memory_mib = options.run.script_max_memory_mib;
      script_options.max_open_files = options.run.script_max_open_files;
      script_options.max_file_mib = options.run.script_max_file_mib;
      RunScript(ctx, run->request.script(), script_options);
      return;
    }
    auto it = handlers.find(run->request.bean().handler());
    if (it == handlers.end()) {  // checked at dispatch; kept for safety
      ctx.SetResult(kHandleFailure, "no handler named " + run->request.bean().handler());
      return;
    }
    const HandlerEntry& entry = *it->second;
    if (entry.hooks.init) {
      bool need_init;
      {
        absl::MutexLock lock(&mu);
        need_init = !job.inited.contains(entry.name);
      }
      if (need_init) {
        absl::Status status = entry.hooks.init();
        if (!status.ok()) {
          ctx.SetResult(kHandleFailure, "handler init failed: " + std::string(status.ToString()));
          return;
        }
        absl::MutexLock lock(&mu);
        if (job.inited.insert(entry.name).second && entry.hooks.destroy) {
          job.destroys.push_back(entry.hooks.destroy);
        }
      }
    }
    entry.handler(ctx);
  } catch (const std::exception& e) {
    ctx.SetResult(kHandleFailure, std::string("handler threw: ") + e.what());
  } catch (...) {
    ctx.SetResult(kHandleFailure, "handler threw a non-standard exception");
  }
}

void RunManager::Core::WorkerLoop(std::shared_ptr<Core> core, std::shared_ptr<WorkerThread> self) {
  Core& c = *core;
  absl::MutexLock lock(&c.mu);
  for (;;) {
    if (c.ready.empty()) {
      if (c.stopping) break;
      // Parked on its own CondVar: an unlock of mu evaluates no conditions,
      // and Wake() wakes exactly one thread.
      self->woken = false;
      c.parked.push_back(self.get());
      while (!self->woken) self->wake.Wait(&c.mu);
      continue;
    }
    Task task = std::move(c.ready.front());
    c.ready.pop_front();
    if (task.job == nullptr) {
      c.mu.Unlock();
      RunDestroys(task.destroys);
      c.mu.Lock();
      continue;
    }
    std::shared_ptr<JobQueue> job = std::move(task.job);
    job->in_ready = false;
    if (job->current || job->waiting.empty()) continue;  // its runs were killed meanwhile
    std::shared_ptr<RunState> run = std::move(job->waiting.front());
    job->waiting.pop_front();
    --c.queued;
    ++c.running;
    job->current = run;
    job->runner = self;

    c.mu.Unlock();
    const absl::Time deadline = run->MarkStarted(c.clock().Now());
    if (deadline != absl::InfiniteFuture() && deadline != absl::InfinitePast()) {
      // Only a run with a timeout concerns the watchdog.
      absl::MutexLock relock(&c.mu);
      if (job->current == run) {
        job->run_deadline = deadline;
        c.Rewatch(job);
      }
    }
    if (deadline != absl::InfinitePast()) c.Execute(run, *job);
    c.mu.Lock();

    if (self->abandoned) {
      // The watchdog reported the run and replaced this thread, which must
      // touch nothing else now: the application may be gone (its clock too).
      --c.abandoned_threads;
      return;
    }
    const absl::Time end = c.clock().Now();
    c.run_jobs.erase(run->run_id());
    --c.running;
    job->current = nullptr;
    job->runner = nullptr;
    job->run_deadline = job->grace_deadline = absl::InfiniteFuture();
    c.MakeReady(job);  // taken by this thread's next turn, or another's
    c.Settle(job, end);
    c.Rewatch(job);
    c.mu.Unlock();
    // Reported once the job is free here, so whoever sees the result (and
    // dispatches the job again, e.g. DISCARD_LATER) finds it idle. A no-op if
    // a kill or the watchdog finished it already.
    run->Finish(end);
    c.NotifyBusy();
    c.mu.Lock();
  }
  --c.live_threads;
}

void RunManager::Core::Watchdog() {
  absl::MutexLock lock(&mu);
  while (!watchdog_stop) {
    const absl::Time next = watched.empty() ? absl::InfiniteFuture() : watched.begin()->first.first;
    const uint64_t seen = watch_version;
    auto changed = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return watchdog_stop || watch_version != seen;
    };
    if (clock().AwaitWithDeadline(&mu, absl::Condition(&changed), next)) continue;
    const absl::Time now = clock().Now();
    bool busy_changed = false;
    while (!watched.empty() && watched.begin()->first.first <= now) {
      std::shared_ptr<JobQueue> job = watched.begin()->second;
      watched.erase(watched.begin());
      job->watched_at = absl::InfiniteFuture();
      if (job->current) {
        if (job->run_deadline <= now) {
          job->run_deadline = absl::InfiniteFuture();
          const auto& t = job->current->request.timeout();
          absl::Duration timeout = absl::Seconds(t.seconds()) + absl::Nanoseconds(t.nanos());
          TerminateCurrent(job, Termination::kTimedOut,
                           absl::StrCat("timed out after ", absl::FormatDuration(timeout)), now);
        }
        if (job->grace_deadline <= now) {
          Abandon(job, now);
          busy_changed = true;
        }
      } else if (!job->busy() && !job->destroys.empty() &&
                 job->idle_since + options.run.idle_job_ttl <= now) {
        RetireHooks(*job);
        auto it = jobs.find(job->job_id);
        if (it != jobs.end() && it->second == job) jobs.erase(it);
      }
      Rewatch(job);
    }
    if (busy_changed) {
      mu.Unlock();
      NotifyBusy();
      mu.Lock();
    }
  }
}

RunManager::RunManager(RunManagerOptions options, HandlerMap handlers, RunSink* sink,
                       std::function<void()> on_busy_changed)
    : core_(std::make_shared<Core>(std::move(options), std::move(handlers), sink,
                                   std::move(on_busy_changed))) {
  watchdog_ = std::thread([core = core_] { core->Watchdog(); });
}

RunManager::~RunManager() { Shutdown(core_->clock().Now()); }

DispatchOutcome RunManager::Submit(const v1::RunRequest& request) {
  DispatchOutcome out;
  {
    Core& c = *core_;
    absl::MutexLock lock(&c.mu);
    const RunOptions& opt = c.options.run;
    // First, even while shutting down: refusing a run accepted before would
    // send it to another executor, to run twice.
    if (std::optional<DispatchOutcome> known = c.Recall(request.run_id())) return *known;
    if (!c.accepting) return Reject(v1::REJECT_KIND_SHUTTING_DOWN, "executor is shutting down");
    if (request.has_bean()) {
      if (!c.handlers.contains(request.bean().handler())) {
        return Reject(v1::REJECT_KIND_UNSUPPORTED,
                      absl::StrCat("no handler named \"", request.bean().handler(),
                                   "\" is registered on this executor"));
      }
    } else if (request.has_script()) {
      if (!opt.allow_scripts) {
        return Reject(v1::REJECT_KIND_UNSUPPORTED,
                      "script runs are not allowed on this executor (start it with allow-scripts)");
      }
      if (!IsScriptLanguage(request.script().language())) {
        return Reject(v1::REJECT_KIND_UNSUPPORTED, "unsupported script language");
      }
    } else {
      return Reject(v1::REJECT_KIND_UNSUPPORTED,
                    "the run request names neither a handler nor a script");
    }
    auto found = c.jobs.find(request.job_id());
    const JobLoad load = found == c.jobs.end() ? JobLoad{} : found->second->load();
    const absl::Time now = c.clock().Now();
    Admission admission =
        BlockStrategyFor(request.block_strategy()).Admit(request.job_id(), request.run_id(), load);
    if (admission.verdict == Admission::kReject) {
      return Reject(v1::REJECT_KIND_BLOCK_STRATEGY, std::move(admission.reason));
    }
    if (admission.verdict == Admission::kCoverThenQueue) {
      std::shared_ptr<JobQueue>& job = found->second;
      c.TerminateCurrent(job, Termination::kKilled, admission.reason, now);
      for (auto& queued : job->waiting) c.Drop(queued, admission.reason, now);
      job->waiting.clear();
      out.covered = true;
    } else if (load.running + load.queued > static_cast<uint32_t>(opt.max_queued_runs_per_job)) {
      // It would wait behind more than the limit of the job's own runs.
      return Reject(v1::REJECT_KIND_QUEUE_FULL,
                    absl::StrCat("job ", request.job_id(), " already has ", load.queued,
                                 " runs queued on this executor (its queue is full)"));
    }
    if (c.queued >= opt.max_queued_runs) {
      return Reject(
          v1::REJECT_KIND_QUEUE_FULL,
          absl::StrCat("executor is at capacity: ", c.queued, " runs are waiting for its ",
                       opt.max_concurrent_runs, " workers (its queue is full)"));
    }
    std::shared_ptr<JobQueue>& job = c.jobs[request.job_id()];
    if (!job) job = std::make_shared<JobQueue>(request.job_id());
    out.accepted = true;
    out.queue_position = static_cast<uint32_t>(job->waiting.size()) + (job->current ? 1 : 0);
    job->waiting.push_back(
        std::make_shared<RunState>(request, c.sink, int64_t{opt.max_log_mib_per_run} << 20));
    job->idle_since = absl::InfiniteFuture();
    ++c.queued;
    c.run_jobs[request.run_id()] = request.job_id();
    c.recent.Add(request.run_id());
    c.Rewatch(job);
    c.MakeReady(job);
    if (job->in_ready) c.Wake();
  }
  core_->NotifyBusy();
  return out;
}

bool RunManager::Kill(int64_t run_id, const std::string& reason) {
  {
    Core& c = *core_;
    absl::MutexLock lock(&c.mu);
    auto job_id = c.run_jobs.find(run_id);
    if (job_id == c.run_jobs.end()) return false;
    auto found = c.jobs.find(job_id->second);
    if (found == c.jobs.end()) return false;
    std::shared_ptr<JobQueue> job = found->second;
    std::string why = reason.empty() ? "killed" : "killed: " + reason;
    const absl::Time now = c.clock().Now();
    if (job->current && job->current->run_id() == run_id) {
      c.TerminateCurrent(job, Termination::kKilled, why, now);
      return true;
    }
    for (auto it = job->waiting.begin(); it != job->waiting.end(); ++it) {
      if ((*it)->run_id() != run_id) continue;
      c.Drop(*it, why + " (before it started)", now);
      job->waiting.erase(it);
      c.Settle(job, now);
      break;
    }
  }
  core_->NotifyBusy();
  return true;
}

std::optional<DispatchOutcome> RunManager::Recall(int64_t run_id) const {
  absl::MutexLock lock(&core_->mu);
  return core_->Recall(run_id);
}

JobLoad RunManager::Load(int64_t job_id) const {
  absl::MutexLock lock(&core_->mu);
  auto it = core_->jobs.find(job_id);
  return it == core_->jobs.end() ? JobLoad{} : it->second->load();
}

v1::Beat RunManager::BeatState() const {
  struct Busy {
    int64_t job_id;
    uint32_t running;
    uint32_t queued;
    uint64_t load() const { return uint64_t{running} + queued; }
  };
  std::vector<Busy> busy;
  v1::Beat beat;
  {
    absl::MutexLock lock(&core_->mu);
    for (const auto& [job_id, job] : core_->jobs) {
      if (!job->busy()) continue;
      busy.push_back({job_id, job->current ? 1u : 0u, static_cast<uint32_t>(job->waiting.size())});
    }
    beat.set_running_runs(static_cast<uint32_t>(core_->running));
    beat.set_queued_runs(static_cast<uint32_t>(core_->queued));
  }
  beat.set_busy_job_count(static_cast<uint32_t>(busy.size()));
  // The most loaded first, ties by job id: the same state makes the same
  // beat, and the jobs a router most needs to avoid here are the ones listed.
  const auto listed =
      static_cast<std::ptrdiff_t>(std::min(busy.size(), static_cast<size_t>(kBeatBusyJobs)));
  std::partial_sort(busy.begin(), busy.begin() + listed, busy.end(),
                    [](const Busy& a, const Busy& b) {
                      return a.load() != b.load() ? a.load() > b.load() : a.job_id < b.job_id;
                    });
  beat.mutable_busy_jobs()->Reserve(static_cast<int>(listed));
  for (std::ptrdiff_t i = 0; i < listed; ++i) {
    v1::JobBusy* b = beat.add_busy_jobs();
    b->set_job_id(busy[i].job_id);
    b->set_running(busy[i].running);
    b->set_queued(busy[i].queued);
  }
  return beat;
}

uint32_t RunManager::running_runs() const {
  absl::MutexLock lock(&core_->mu);
  return static_cast<uint32_t>(core_->running);
}

std::map<v1::BlockStrategy, int> RunManager::QueuedByStrategy() const {
  absl::MutexLock lock(&core_->mu);
  std::map<v1::BlockStrategy, int> out;
  for (const auto& [job_id, job] : core_->jobs) {
    for (const auto& run : job->waiting) {
      const v1::BlockStrategy s = run->request.block_strategy();
      ++out[s == v1::BLOCK_STRATEGY_DISCARD_LATER || s == v1::BLOCK_STRATEGY_COVER_EARLY
                ? s
                : v1::BLOCK_STRATEGY_SERIAL_EXECUTION];
    }
  }
  return out;
}

int RunManager::capacity() const { return core_->options.run.max_concurrent_runs; }

int RunManager::threads() const {
  absl::MutexLock lock(&core_->mu);
  return core_->live_threads + core_->abandoned_threads;
}

void RunManager::StopAccepting() {
  absl::MutexLock lock(&core_->mu);
  core_->accepting = false;
}

void RunManager::Shutdown(absl::Time deadline) {
  if (shut_down_) return;
  shut_down_ = true;
  Core& c = *core_;
  {
    absl::MutexLock lock(&c.mu);
    c.accepting = false;
    auto no_runs = [&c]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) { return c.run_jobs.empty(); };
    if (!c.clock().AwaitWithDeadline(&c.mu, absl::Condition(&no_runs), deadline)) {
      const absl::Time now = c.clock().Now();
      for (auto& [job_id, job] : c.jobs) {
        c.TerminateCurrent(job, Termination::kKilled, "killed: the executor is shutting down", now);
        for (auto& queued : job->waiting) {
          c.Drop(queued, "killed: the executor shut down before the run started", now);
        }
        job->waiting.clear();
      }
      // The watchdog finishes handlers that ignore cancellation after the grace.
      c.mu.Await(absl::Condition(&no_runs));
    }
    for (auto& [job_id, job] : c.jobs) c.RetireHooks(*job);
    c.stopping = true;
    for (WorkerThread* w : c.parked) {
      w->woken = true;
      w->wake.Signal();
    }
    c.parked.clear();
    auto no_threads = [&c]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(c.mu) { return c.live_threads == 0; };
    c.mu.Await(absl::Condition(&no_threads));
    c.watchdog_stop = true;
  }
  watchdog_.join();
}

}  // namespace gnomon::executor::internal

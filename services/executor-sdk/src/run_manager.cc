#include "services/executor-sdk/src/run_manager.h"

#include <deque>
#include <exception>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "services/executor-sdk/src/script_runner.h"

namespace gnomon::executor::internal {
namespace {

DispatchOutcome Reject(std::string reason) {
  DispatchOutcome out;
  out.code = 506;
  out.reason = std::move(reason);
  return out;
}

}  // namespace

struct Worker {
  explicit Worker(int64_t id) : job_id(id) {}
  const int64_t job_id;
  std::deque<std::shared_ptr<RunState>> queue;
  std::shared_ptr<RunState> current;
  uint64_t generation = 0;       // the thread generation allowed to serve
  bool thread_alive = false;     // a thread of `generation` exists
  bool holds_slot = false;       // counts against max_concurrent_runs
  absl::Time run_deadline = absl::InfiniteFuture();
  absl::Time grace_deadline = absl::InfiniteFuture();  // after a Terminate
  bool busy() const { return current != nullptr || !queue.empty(); }
  // Signalled (under Core::mu) when queue, generation or stopping change.
  absl::CondVar wake;
};

struct RunManager::Core : std::enable_shared_from_this<RunManager::Core> {
  Core(RunManagerOptions o, HandlerMap h, RunSink* s, std::function<void()> cb)
      : options(std::move(o)), handlers(std::move(h)), sink(s), on_busy_changed(std::move(cb)) {}

  const RunManagerOptions options;
  const HandlerMap handlers;
  RunSink* const sink;
  const std::function<void()> on_busy_changed;

  mutable absl::Mutex mu;
  absl::flat_hash_map<int64_t, std::shared_ptr<Worker>> workers ABSL_GUARDED_BY(mu);
  absl::flat_hash_map<int64_t, int64_t> run_jobs ABSL_GUARDED_BY(mu);  // run -> job
  int slots_used ABSL_GUARDED_BY(mu) = 0;
  int live_threads ABSL_GUARDED_BY(mu) = 0;  // non-abandoned worker threads
  bool accepting ABSL_GUARDED_BY(mu) = true;
  bool stopping ABSL_GUARDED_BY(mu) = false;
  bool watchdog_stop ABSL_GUARDED_BY(mu) = false;
  uint64_t deadline_version ABSL_GUARDED_BY(mu) = 0;  // wakes the watchdog

  absl::Duration GraceFor(const RunState& run) const {
    return run.is_script() ? options.script_kill_grace + options.cancel_grace
                           : options.cancel_grace;
  }

  void ReleaseSlotIfIdle(Worker& w) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (w.holds_slot && !w.busy()) {
      w.holds_slot = false;
      --slots_used;
    }
  }

  void SpawnThread(const std::shared_ptr<Core>& self, const std::shared_ptr<Worker>& w)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    uint64_t gen = ++w->generation;
    w->thread_alive = true;
    ++live_threads;
    std::thread(&Core::WorkerLoop, self, w, gen).detach();
  }

  // Terminates the running run of `w` and sets its grace deadline.
  void TerminateCurrent(Worker& w, Termination kind, std::string message, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    if (w.current && w.current->Terminate(kind, std::move(message))) {
      w.grace_deadline = now + GraceFor(*w.current);
      ++deadline_version;
    }
  }

  static void WorkerLoop(std::shared_ptr<Core> core, std::shared_ptr<Worker> w, uint64_t gen);
  void Execute(const std::shared_ptr<RunState>& run, absl::flat_hash_set<std::string>& inited,
               std::vector<std::function<void()>>& destroys);
  void Watchdog();
  void NotifyBusy() const ABSL_LOCKS_EXCLUDED(mu) {
    if (on_busy_changed) on_busy_changed();
  }
};

void RunManager::Core::Execute(const std::shared_ptr<RunState>& run,
                               absl::flat_hash_set<std::string>& inited,
                               std::vector<std::function<void()>>& destroys) {
  JobContext ctx(run);
  try {
    if (run->is_script()) {
      ScriptOptions script_options;
      script_options.kill_grace = options.script_kill_grace;
      RunScript(ctx, run->request.script(), script_options);
      return;
    }
    auto it = handlers.find(run->request.bean().handler());
    if (it == handlers.end()) {  // checked at dispatch; kept for safety
      ctx.SetResult(500, "no handler named " + run->request.bean().handler());
      return;
    }
    const HandlerEntry& entry = *it->second;
    if (entry.hooks.init && !inited.contains(entry.name)) {
      absl::Status status = entry.hooks.init();
      if (!status.ok()) {
        ctx.SetResult(500, "handler init failed: " + std::string(status.ToString()));
        return;
      }
      inited.insert(entry.name);
      if (entry.hooks.destroy) destroys.push_back(entry.hooks.destroy);
    }
    entry.handler(ctx);
  } catch (const std::exception& e) {
    ctx.SetResult(500, std::string("handler threw: ") + e.what());
  } catch (...) {
    ctx.SetResult(500, "handler threw a non-standard exception");
  }
}

void RunManager::Core::WorkerLoop(std::shared_ptr<Core> core, std::shared_ptr<Worker> w,
                                  uint64_t gen) {
  absl::flat_hash_set<std::string> inited;
  std::vector<std::function<void()>> destroys;
  bool abandoned = false;
  for (;;) {
    std::shared_ptr<RunState> run;
    {
      absl::MutexLock lock(&core->mu);
      // A condition variable per worker, not a Mutex::Await condition: with
      // hundreds of idle workers, every unlock of core->mu would evaluate
      // every waiter's condition.
      const absl::Time retire_at = absl::Now() + core->options.idle_worker_ttl;
      while (w->generation == gen && w->queue.empty() && !core->stopping &&
             !w->wake.WaitWithDeadline(&core->mu, retire_at)) {
      }
      if (w->generation != gen) {
        abandoned = true;  // the watchdog replaced this thread and uncounted it
        break;
      }
      if (w->queue.empty()) {
        // Idle for the TTL, or stopping: retire. The map entry goes too, so
        // the next Submit for this job makes a new worker.
        w->thread_alive = false;
        auto it = core->workers.find(w->job_id);
        if (it != core->workers.end() && it->second == w) core->workers.erase(it);
        break;
      }
      run = std::move(w->queue.front());
      w->queue.pop_front();
      w->current = run;
    }
    absl::Time deadline = run->MarkStarted(absl::Now());
    {
      absl::MutexLock lock(&core->mu);
      // Only a run with a timeout concerns the watchdog; waking it for every
      // run would cost a thread switch per run.
      if (w->generation == gen && w->current == run && deadline != absl::InfiniteFuture()) {
        w->run_deadline = deadline;
        ++core->deadline_version;
      }
    }
    if (deadline != absl::InfinitePast()) core->Execute(run, inited, destroys);
    bool stale;
    {
      absl::MutexLock lock(&core->mu);
      run->Finish(absl::Now());  // no-op if the watchdog or a kill finished it
      stale = w->generation != gen;
      if (!stale) {
        core->run_jobs.erase(run->run_id());
        w->current = nullptr;
        w->run_deadline = absl::InfiniteFuture();
        w->grace_deadline = absl::InfiniteFuture();
        core->ReleaseSlotIfIdle(*w);
      }
    }
    if (stale) {
      abandoned = true;
      break;
    }
    core->NotifyBusy();
  }
  for (auto& destroy : destroys) {
    try {
      destroy();
    } catch (...) {
      // A destroy hook has nowhere to report to; it must not take the thread down.
    }
  }
  if (!abandoned) {
    absl::MutexLock lock(&core->mu);
    --core->live_threads;
  }
}

void RunManager::Core::Watchdog() {
  absl::MutexLock lock(&mu);
  while (!watchdog_stop) {
    absl::Time next = absl::InfiniteFuture();
    for (auto& [job, w] : workers) {
      if (!w->current) continue;
      next = std::min({next, w->run_deadline, w->grace_deadline});
    }
    uint64_t seen = deadline_version;
    auto changed = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
      return watchdog_stop || deadline_version != seen;
    };
    if (mu.AwaitWithDeadline(absl::Condition(&changed), next)) continue;
    absl::Time now = absl::Now();
    bool busy_changed = false;
    std::vector<std::shared_ptr<Worker>> snapshot;
    for (auto& [job, w] : workers) snapshot.push_back(w);
    for (auto& w : snapshot) {
      if (!w->current) continue;
      if (w->run_deadline <= now) {
        w->run_deadline = absl::InfiniteFuture();
        absl::Duration timeout = absl::Seconds(w->current->request.timeout().seconds()) +
                                 absl::Nanoseconds(w->current->request.timeout().nanos());
        TerminateCurrent(*w, Termination::kTimedOut,
                         absl::StrCat("timed out after ", absl::FormatDuration(timeout)), now);
      }
      if (w->grace_deadline <= now) {
        // The handler ignored cancellation: report it now and replace the
        // thread so the job's queue is not stuck behind it.
        std::shared_ptr<RunState> run = std::move(w->current);
        run->Finish(now);
        run_jobs.erase(run->run_id());
        w->run_deadline = absl::InfiniteFuture();
        w->grace_deadline = absl::InfiniteFuture();
        if (w->thread_alive) --live_threads;  // the old thread is abandoned
        ++w->generation;
        w->wake.Signal();
        w->thread_alive = false;
        if (!w->queue.empty()) {
          SpawnThread(shared_from_this(), w);
        } else {
          ReleaseSlotIfIdle(*w);
          workers.erase(w->job_id);
        }
        busy_changed = true;
      }
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

RunManager::~RunManager() { Shutdown(absl::Now()); }

DispatchOutcome RunManager::Submit(const v1::RunRequest& request) {
  DispatchOutcome out;
  {
    absl::MutexLock lock(&core_->mu);
    const RunManagerOptions& opt = core_->options;
    if (!core_->accepting) return Reject("executor is shutting down");
    if (request.has_bean()) {
      if (!core_->handlers.contains(request.bean().handler())) {
        return Reject(absl::StrCat("no handler named \"", request.bean().handler(),
                                   "\" is registered on this executor"));
      }
    } else if (request.has_script()) {
      if (!opt.allow_scripts) {
        return Reject("script runs are not allowed on this executor (start it with allow-scripts)");
      }
      if (request.script().language() != v1::SCRIPT_LANGUAGE_SHELL &&
          request.script().language() != v1::SCRIPT_LANGUAGE_PYTHON) {
        return Reject("unsupported script language");
      }
    } else {
      return Reject("the run request names neither a handler nor a script");
    }
    auto existing = core_->run_jobs.find(request.run_id());
    if (existing != core_->run_jobs.end()) {
      out.accepted = true;  // a re-sent dispatch of a run already here
      return out;
    }
    std::shared_ptr<Worker>& slot = core_->workers[request.job_id()];
    if (!slot) slot = std::make_shared<Worker>(request.job_id());
    std::shared_ptr<Worker> w = slot;
    absl::Time now = absl::Now();
    switch (request.block_strategy()) {
      case v1::BLOCK_STRATEGY_DISCARD_LATER:
        if (w->busy()) {
          return Reject(absl::StrCat("job ", request.job_id(),
                                     " is running and the block strategy is DISCARD_LATER"));
        }
        break;
      case v1::BLOCK_STRATEGY_COVER_EARLY:
        if (w->busy()) {
          std::string why = absl::StrCat("covered by run ", request.run_id(),
                                         " (block strategy COVER_EARLY)");
          core_->TerminateCurrent(*w, Termination::kKilled, why, now);
          for (auto& queued : w->queue) {
            queued->Terminate(Termination::kKilled, why);
            queued->Finish(now);
            core_->run_jobs.erase(queued->run_id());
          }
          w->queue.clear();
        }
        break;
      default:
        if (static_cast<int>(w->queue.size()) >= opt.max_queued_runs_per_job) {
          return Reject(absl::StrCat("job ", request.job_id(), " already has ", w->queue.size(),
                                     " runs queued on this executor"));
        }
        break;
    }
    if (!w->holds_slot) {
      if (core_->slots_used >= opt.max_concurrent_runs) {
        if (!w->busy() && !w->thread_alive) core_->workers.erase(w->job_id);
        return Reject(absl::StrCat("executor is at capacity (", opt.max_concurrent_runs,
                                   " runs executing)"));
      }
      w->holds_slot = true;
      ++core_->slots_used;
    }
    out.accepted = true;
    out.queue_position = static_cast<uint32_t>(w->queue.size()) + (w->current ? 1 : 0);
    w->queue.push_back(std::make_shared<RunState>(request, core_->sink));
    w->wake.Signal();
    core_->run_jobs[request.run_id()] = request.job_id();
    if (!w->thread_alive) core_->SpawnThread(core_, w);
  }
  core_->NotifyBusy();
  return out;
}

bool RunManager::Kill(int64_t run_id, const std::string& reason) {
  {
    absl::MutexLock lock(&core_->mu);
    auto job = core_->run_jobs.find(run_id);
    if (job == core_->run_jobs.end()) return false;
    auto wit = core_->workers.find(job->second);
    if (wit == core_->workers.end()) return false;
    Worker& w = *wit->second;
    std::string why = reason.empty() ? "killed" : "killed: " + reason;
    absl::Time now = absl::Now();
    if (w.current && w.current->run_id() == run_id) {
      core_->TerminateCurrent(w, Termination::kKilled, why, now);
      return true;
    }
    for (auto it = w.queue.begin(); it != w.queue.end(); ++it) {
      if ((*it)->run_id() != run_id) continue;
      (*it)->Terminate(Termination::kKilled, why + " (before it started)");
      (*it)->Finish(now);
      w.queue.erase(it);
      core_->run_jobs.erase(run_id);
      core_->ReleaseSlotIfIdle(w);
      break;
    }
  }
  core_->NotifyBusy();
  return true;
}

JobLoad RunManager::Load(int64_t job_id) const {
  absl::MutexLock lock(&core_->mu);
  JobLoad load;
  auto it = core_->workers.find(job_id);
  if (it == core_->workers.end()) return load;
  load.running = it->second->current ? 1 : 0;
  load.queued = static_cast<uint32_t>(it->second->queue.size());
  return load;
}

v1::Beat RunManager::BeatState() const {
  absl::MutexLock lock(&core_->mu);
  v1::Beat beat;
  uint32_t running = 0;
  for (const auto& [job, w] : core_->workers) {
    if (!w->busy()) continue;
    v1::JobBusy* busy = beat.add_busy_jobs();
    busy->set_job_id(job);
    busy->set_running(w->current ? 1 : 0);
    busy->set_queued(static_cast<uint32_t>(w->queue.size()));
    if (w->current) ++running;
  }
  beat.set_running_runs(running);
  return beat;
}

uint32_t RunManager::running_runs() const { return BeatState().running_runs(); }

int RunManager::capacity() const { return core_->options.max_concurrent_runs; }

void RunManager::StopAccepting() {
  absl::MutexLock lock(&core_->mu);
  core_->accepting = false;
}

void RunManager::Shutdown(absl::Time deadline) {
  if (shut_down_) return;
  shut_down_ = true;
  {
    absl::MutexLock lock(&core_->mu);
    core_->accepting = false;
    auto no_runs = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(core_->mu) {
      return core_->run_jobs.empty();
    };
    if (!core_->mu.AwaitWithDeadline(absl::Condition(&no_runs), deadline)) {
      absl::Time now = absl::Now();
      for (auto& [job, w] : core_->workers) {
        core_->TerminateCurrent(*w, Termination::kKilled, "killed: the executor is shutting down",
                                now);
        for (auto& queued : w->queue) {
          queued->Terminate(Termination::kKilled,
                            "killed: the executor shut down before the run started");
          queued->Finish(now);
          core_->run_jobs.erase(queued->run_id());
        }
        w->queue.clear();
      }
      // The watchdog finishes handlers that ignore cancellation after the grace.
      core_->mu.Await(absl::Condition(&no_runs));
    }
    core_->stopping = true;
    for (auto& [job, w] : core_->workers) w->wake.Signal();
    auto no_threads = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(core_->mu) {
      return core_->live_threads == 0;
    };
    core_->mu.Await(absl::Condition(&no_threads));
    core_->watchdog_stop = true;
  }
  watchdog_.join();
}

}  // namespace gnomon::executor::internal

// TriggerPools: the fast and the slow dispatch pool (XXL-JOB's fast/slow
// trigger pools, with back-pressure instead of dropping).
//
// A job whose dispatch (submit -> executor's answer) took longer than
// `slow_threshold` more than `slow_count` times in the current minute is
// served by the slow pool for the rest of that minute, so one slow job
// cannot hold up the others. A full pool makes Submit wait (and counts it):
// a trigger is never dropped.
//
// Tasks of one job run one at a time, in Submit order (a strand per job): a
// job's runs reach the executor links in fire order even though several
// threads serve the pools. A job's later tasks wait beside the pools, not in
// them, and count against the pool's queue while they wait.
//
//   TriggerPools pools(&RealClock(), {});
//   pools.Submit(job_id, [&] { Dispatch(run); });
//   pools.RecordDispatch(job_id, took);
//
// Thread safety: thread-safe.
#ifndef GNOMON_SERVICES_SCHEDULER_TRIGGER_POOLS_H_
#define GNOMON_SERVICES_SCHEDULER_TRIGGER_POOLS_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/client/clock.h"

namespace gnomon::scheduler {

struct TriggerPoolOptions {
  int fast_threads = 4;
  int slow_threads = 2;
  size_t fast_queue = 10000;
  size_t slow_queue = 2000;
  absl::Duration slow_threshold = absl::Milliseconds(500);
  int slow_count = 10;
};

class TriggerPools {
 public:
  struct Stats {
    uint64_t submitted = 0;
    uint64_t to_slow_pool = 0;
    uint64_t backpressure_waits = 0;  // Submits that waited for room.
    // Tasks waiting now (queued, or behind their job's earlier task) per pool.
    size_t fast_queued = 0;
    size_t slow_queued = 0;
  };

  TriggerPools(Clock* clock, TriggerPoolOptions options);
  ~TriggerPools();

  // Runs `task` on the job's pool after the job's earlier tasks; waits while
  // that pool's queue is full.
  void Submit(int64_t job_id, std::function<void()> task) ABSL_LOCKS_EXCLUDED(mu_);
  void RecordDispatch(int64_t job_id, absl::Duration took) ABSL_LOCKS_EXCLUDED(mu_);
  bool IsSlow(int64_t job_id) ABSL_LOCKS_EXCLUDED(mu_);
  Stats stats() const ABSL_LOCKS_EXCLUDED(mu_);
  // Runs what is queued, then stops the threads.
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Item {
    int64_t job_id;
    std::function<void()> task;
  };
  struct Pool {
    size_t capacity;
    std::deque<Item> queue;
    size_t held = 0;  // tasks of this pool waiting in strands
    size_t load() const { return queue.size() + held; }
  };
  // A job with a task queued or running: the job's later tasks, in order,
  // each with the pool it was counted against.
  using Strand = std::deque<std::pair<Pool*, std::function<void()>>>;
  struct SlowCount {
    int64_t minute = 0;
    int count = 0;
  };
  void Work(Pool* pool) ABSL_LOCKS_EXCLUDED(mu_);
  bool IsSlowLocked(int64_t job_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Clock* const clock_;
  const TriggerPoolOptions options_;
  mutable absl::Mutex mu_;
  Pool fast_ ABSL_GUARDED_BY(mu_);
  Pool slow_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int64_t, SlowCount> slow_counts_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<int64_t, Strand> strands_ ABSL_GUARDED_BY(mu_);
  Stats stats_ ABSL_GUARDED_BY(mu_);
  bool stopped_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace gnomon::scheduler

#endif  // GNOMON_SERVICES_SCHEDULER_TRIGGER_POOLS_H_

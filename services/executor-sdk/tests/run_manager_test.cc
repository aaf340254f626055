// RunManager without servers: a recording sink, a simulated clock, and the
// pool's guarantees — a bounded number of threads for any number of jobs, one
// run per job at a time in arrival order, bursts queued rather than refused,
// a full queue refused as QUEUE_FULL, timeouts and abandonment on the
// injected clock, and handler hooks per job.
#include "services/executor-sdk/src/run_manager.h"

#include <atomic>
#include <map>
#include <set>
#include <thread>
#include <vector>

#include "absl/synchronization/blocking_counter.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "services/executor-sdk/tests/run_manager_fakes.h"

namespace gnomon::executor::internal {
namespace {

// Counts handlers inside at once, overall and per job.
struct Concurrency {
  absl::Mutex mu;
  int now ABSL_GUARDED_BY(mu) = 0;
  int peak ABSL_GUARDED_BY(mu) = 0;
  std::map<int64_t, int> per_job ABSL_GUARDED_BY(mu);
  bool job_overlap ABSL_GUARDED_BY(mu) = false;
  std::map<int64_t, std::vector<int64_t>> order ABSL_GUARDED_BY(mu);
  std::set<std::thread::id> threads ABSL_GUARDED_BY(mu);
  void Enter(const JobContext& ctx) {
    absl::MutexLock l(&mu);
    peak = std::max(peak, ++now);
    if (++per_job[ctx.job_id()] > 1) job_overlap = true;
    order[ctx.job_id()].push_back(ctx.run_id());
    threads.insert(std::this_thread::get_id());
  }
  void Leave(const JobContext& ctx) {
    absl::MutexLock l(&mu);
    --now;
    --per_job[ctx.job_id()];
  }
};

TEST(RunManagerTest, ThousandsOfDistinctJobsRunOnABoundedPool) {
  RecordingSink sink;
  Concurrency seen;
  RunManagerOptions options;
  options.run.max_concurrent_runs = 4;
  RunManager manager(options,
                     Handlers({{"noop",
                                [&](JobContext& ctx) {
                                  seen.Enter(ctx);
                                  seen.Leave(ctx);
                                }}}),
                     &sink, nullptr);
  constexpr int kJobs = 5000;
  for (int i = 1; i <= kJobs; ++i) {
    DispatchOutcome out = manager.Submit(Req(i, 100000 + i, "noop"));
    ASSERT_TRUE(out.accepted) << i << ": " << out.reason;
  }
  ASSERT_TRUE(sink.WaitForResults(kJobs));
  for (int i = 1; i <= kJobs; i += 499) EXPECT_EQ(sink.Result(i)->handle_code(), 200) << i;
  EXPECT_LE(manager.threads(), 4);
  absl::MutexLock l(&seen.mu);
  EXPECT_LE(seen.peak, 4);
  EXPECT_LE(seen.threads.size(), 4u);
  EXPECT_EQ(seen.order.size(), static_cast<size_t>(kJobs));
}

TEST(RunManagerTest, RunsOfOneJobRunOneAtATimeInArrivalOrder) {
  RecordingSink sink;
  Concurrency seen;
  RunManagerOptions options;
  options.run.max_concurrent_runs = 8;
  RunManager manager(options,
                     Handlers({{"work",
                                [&](JobContext& ctx) {
                                  seen.Enter(ctx);
                                  std::this_thread::yield();
                                  seen.Leave(ctx);
                                }}}),
                     &sink, nullptr);
  // Three jobs interleaved, 60 runs each, all submitted before any can finish.
  std::map<int64_t, std::vector<int64_t>> submitted;
  int64_t run_id = 0;
  for (int round = 0; round < 60; ++round) {
    for (int64_t job : {7, 8, 9}) {
      ASSERT_TRUE(manager.Submit(Req(++run_id, job, "work")).accepted);
      submitted[job].push_back(run_id);
    }
  }
  ASSERT_TRUE(sink.WaitForResults(run_id));
  absl::MutexLock l(&seen.mu);
  EXPECT_FALSE(seen.job_overlap);
  EXPECT_EQ(seen.order, submitted);
}

TEST(RunManagerTest, ABurstBeyondThePoolWaitsInsteadOfBeingRefused) {
  RecordingSink sink;
  Gate gate;
  RunManagerOptions options;
  options.run.max_concurrent_runs = 2;
  RunManager manager(options, Handlers({{"gate", gate.handler()}}), &sink, nullptr);
  for (int i = 1; i <= 10; ++i) {
    DispatchOutcome out = manager.Submit(Req(i, i, "gate"));
    ASSERT_TRUE(out.accepted) << out.reason;
  }
  ASSERT_TRUE(sink.WaitForStarted(2));
  EXPECT_EQ(manager.running_runs(), 2u);
  EXPECT_EQ(manager.BeatState().busy_jobs_size(), 10);
  gate.release.Notify();
  ASSERT_TRUE(sink.WaitForResults(10));
  for (int i = 1; i <= 10; ++i) EXPECT_EQ(sink.Result(i)->handle_code(), 200);
  EXPECT_LE(manager.threads(), 2);
}

// A top-of-the-hour burst: 25,000 distinct jobs with runs here. The beat
// stays bounded — kBeatBusyJobs jobs listed, the most loaded first and ties
// by job id — and its totals count every busy job and every queued run.
TEST(RunManagerTest, ABeatDuringABurstListsTheMostLoadedJobsAndCountsThemAll) {
  RecordingSink sink;
  Gate gate;
  RunManagerOptions options;
  options.run.max_concurrent_runs = 2;
  RunManager manager(options, Handlers({{"gate", gate.handler()}}), &sink, nullptr);
  constexpr int kJobs = 25000;
  int64_t run_id = 0;
  for (int job = 1; job <= kJobs; ++job) {
    ASSERT_TRUE(manager.Submit(Req(++run_id, job, "gate")).accepted) << job;
  }
  // Three jobs late in the burst have more runs queued: 4, 2 and 2 in all.
  for (int64_t job : {20001, 20001, 20001, 20002, 20003}) {
    ASSERT_TRUE(manager.Submit(Req(++run_id, job, "gate")).accepted) << job;
  }
  ASSERT_TRUE(sink.WaitForStarted(2));

  const v1::Beat beat = manager.BeatState();
  EXPECT_EQ(beat.busy_job_count(), static_cast<uint32_t>(kJobs));
  EXPECT_EQ(beat.running_runs(), 2u);
  EXPECT_EQ(beat.queued_runs(), static_cast<uint32_t>(run_id - 2));
  ASSERT_EQ(beat.busy_jobs_size(), kBeatBusyJobs);
  EXPECT_LT(kBeatBusyJobs, 10000);  // The registry's protocol maximum.
  EXPECT_EQ(beat.busy_jobs(0).job_id(), 20001);
  EXPECT_EQ(beat.busy_jobs(0).queued(), 4u);
  EXPECT_EQ(beat.busy_jobs(1).job_id(), 20002);
  EXPECT_EQ(beat.busy_jobs(2).job_id(), 20003);
  // Then every other job has one run (running or queued): by job id.
  for (int i = 3; i < beat.busy_jobs_size(); ++i) {
    const v1::JobBusy& b = beat.busy_jobs(i);
    ASSERT_EQ(b.job_id(), i - 2) << i;
    EXPECT_EQ(b.running() + b.queued(), 1u) << i;
  }
  // The same state makes the same beat.
  EXPECT_EQ(manager.BeatState().SerializeAsString(), beat.SerializeAsString());

  gate.release.Notify();
  ASSERT_TRUE(sink.WaitForResults(static_cast<size_t>(run_id)));
  const v1::Beat idle = manager.BeatState();
  EXPECT_EQ(idle.busy_job_count(), 0u);
  EXPECT_EQ(idle.queued_runs(), 0u);
  EXPECT_EQ(idle.busy_jobs_size(), 0);
}

TEST(RunManagerTest, AFullQueueIsRefusedAsQueueFull) {
  RecordingSink sink;
  Gate gate;
  RunManagerOptions options;
  options.run.max_concurrent_runs = 1;
  options.run.max_queued_runs = 3;
  options.run.max_queued_runs_per_job = 2;
  RunManager manager(options, Handlers({{"gate", gate.handler()}}), &sink, nullptr);
  ASSERT_TRUE(manager.Submit(Req(1, 1, "gate")).accepted);
  ASSERT_TRUE(sink.WaitForStarted(1));
  // The job's own queue: two may wait behind its running run.
  ASSERT_TRUE(manager.Submit(Req(2, 1, "gate")).accepted);
  EXPECT_EQ(manager.Submit(Req(3, 1, "gate")).queue_position, 2u);
  DispatchOutcome job_full = manager.Submit(Req(4, 1, "gate"));
  ASSERT_FALSE(job_full.accepted);
  EXPECT_EQ(job_full.code, v1::HANDLE_CODE_REJECTED);
  EXPECT_EQ(job_full.kind, v1::REJECT_KIND_QUEUE_FULL);
  EXPECT_NE(job_full.reason.find("job 1 already has 2 runs queued"), std::string::npos)
      << job_full.reason;
  // The executor's queue: three wait in all.
  ASSERT_TRUE(manager.Submit(Req(5, 2, "gate")).accepted);
  DispatchOutcome full = manager.Submit(Req(6, 3, "gate"));
  ASSERT_FALSE(full.accepted);
  EXPECT_EQ(full.kind, v1::REJECT_KIND_QUEUE_FULL);
  EXPECT_NE(full.reason.find("at capacity: 3 runs are waiting for its 1 workers"),
            std::string::npos)
      << full.reason;
  gate.release.Notify();
  ASSERT_TRUE(sink.WaitForResults(4));
  // Room again once the queue drained.
  EXPECT_TRUE(manager.Submit(Req(7, 3, "gate")).accepted);
  ASSERT_TRUE(sink.Result(7));
}

TEST(RunManagerTest, RefusalsSayWhetherAnotherExecutorMayTakeTheRun) {
  RecordingSink sink;
  Gate gate;
  RunManager manager(RunManagerOptions{}, Handlers({{"gate", gate.handler()}}), &sink, nullptr);
  DispatchOutcome unknown = manager.Submit(Req(1, 1, "nope"));
  EXPECT_EQ(unknown.kind, v1::REJECT_KIND_UNSUPPORTED);
  ASSERT_TRUE(manager.Submit(Req(2, 1, "gate", v1::BLOCK_STRATEGY_DISCARD_LATER)).accepted);
  DispatchOutcome discarded = manager.Submit(Req(3, 1, "gate", v1::BLOCK_STRATEGY_DISCARD_LATER));
  EXPECT_FALSE(discarded.accepted);
  EXPECT_EQ(discarded.kind, v1::REJECT_KIND_BLOCK_STRATEGY);
  // A re-sent dispatch of a run already here is accepted and not run twice.
  EXPECT_TRUE(manager.Submit(Req(2, 1, "gate", v1::BLOCK_STRATEGY_DISCARD_LATER)).accepted);
  manager.StopAccepting();
  EXPECT_EQ(manager.Submit(Req(4, 2, "gate")).kind, v1::REJECT_KIND_SHUTTING_DOWN);
  gate.release.Notify();
  ASSERT_TRUE(sink.Result(2));
  manager.Shutdown(absl::Now() + kWait);
  EXPECT_EQ(sink.finishes(2), 1);
  EXPECT_EQ(sink.started(), 1u);
}

TEST(RunManagerTest, CoverEarlyKillsTheRunningAndQueuedRuns) {
  RecordingSink sink;
  Gate gate;
  RunManager manager(RunManagerOptions{}, Handlers({{"gate", gate.handler()}}), &sink, nullptr);
  ASSERT_TRUE(manager.Submit(Req(1, 1, "gate")).accepted);
  ASSERT_TRUE(sink.WaitForStarted(1));
  ASSERT_TRUE(manager.Submit(Req(2, 1, "gate")).accepted);
  EXPECT_EQ(manager.QueuedByStrategy(),
            (std::map<v1::BlockStrategy, int>{{v1::BLOCK_STRATEGY_SERIAL_EXECUTION, 1}}));
  DispatchOutcome cover = manager.Submit(Req(3, 1, "gate", v1::BLOCK_STRATEGY_COVER_EARLY));
  ASSERT_TRUE(cover.accepted);
  EXPECT_TRUE(cover.covered);
  for (int64_t covered : {1, 2}) {
    auto r = sink.Result(covered);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->handle_code(), 503);
    EXPECT_NE(r->handle_message().find("covered by run 3"), std::string::npos);
  }
  gate.release.Notify();
  EXPECT_EQ(sink.Result(3)->handle_code(), 200);
}

TEST(RunManagerTest, TimeoutsFollowTheInjectedClock) {
  RecordingSink sink;
  SimulatedClock clock(absl::FromUnixSeconds(1'000'000));
  absl::Notification entered;
  RunManagerOptions options;
  options.clock = &clock;
  RunManager manager(options,
                     Handlers({{"wait",
                                [&](JobContext& ctx) {
                                  EXPECT_EQ(ctx.deadline(),
                                            absl::FromUnixSeconds(1'000'000 + 3600));
                                  entered.Notify();
                                  ctx.cancellation().WaitForCancellation(absl::InfiniteDuration());
                                }}}),
                     &sink, nullptr);
  ASSERT_TRUE(manager.Submit(Req(1, 1, "wait", v1::BLOCK_STRATEGY_SERIAL_EXECUTION, absl::Hours(1)))
                  .accepted);
  entered.WaitForNotification();
  clock.Advance(absl::Minutes(59));
  clock.Advance(absl::Minutes(1));  // an hour of simulated time, no real wait
  auto result = sink.Result(1);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->handle_code(), 502);
  EXPECT_NE(result->handle_message().find("timed out after 1h"), std::string::npos);
  // Ended by the watchdog, it is still known: a resent dispatch does not run
  // it again (run_once_test.cc).
  EXPECT_TRUE(manager.Submit(Req(1, 1, "wait", v1::BLOCK_STRATEGY_SERIAL_EXECUTION, absl::Hours(1)))
                  .already_accepted);
  manager.Shutdown(clock.Now());
  EXPECT_EQ(sink.started(), 1u);
  EXPECT_EQ(sink.finishes(1), 1);
}

TEST(RunManagerTest, AHandlerIgnoringCancellationIsAbandonedAndThePoolRefilled) {
  RecordingSink sink;
  SimulatedClock clock(absl::FromUnixSeconds(1'000'000));
  // Shared with the handler: the abandoned thread may return after the test.
  auto cancel_seen = std::make_shared<absl::Notification>();
  auto unblock = std::make_shared<absl::Notification>();
  RunManagerOptions options;
  options.clock = &clock;
  options.run.max_concurrent_runs = 1;
  options.run.cancel_grace = absl::Seconds(2);
  RunManager manager(options,
                     Handlers({{"stuck",
                                [cancel_seen, unblock](JobContext& ctx) {
                                  ctx.cancellation().WaitForCancellation(absl::InfiniteDuration());
                                  cancel_seen->Notify();
                                  unblock->WaitForNotification();
                                }},
                               {"noop", [](JobContext&) {}}}),
                     &sink, nullptr);
  ASSERT_TRUE(
      manager.Submit(Req(1, 1, "stuck", v1::BLOCK_STRATEGY_SERIAL_EXECUTION, absl::Seconds(5)))
          .accepted);
  ASSERT_TRUE(sink.WaitForStarted(1));
  ASSERT_TRUE(manager.Submit(Req(2, 2, "noop")).accepted);  // waits: the one worker is stuck
  clock.Advance(absl::Seconds(5));
  cancel_seen->WaitForNotification();
  EXPECT_EQ(sink.started(), 1u);
  clock.Advance(absl::Seconds(2));  // the grace
  auto stuck = sink.Result(1);
  ASSERT_TRUE(stuck);
  EXPECT_EQ(stuck->handle_code(), 502);
  auto next = sink.Result(2);  // on the thread that replaced the stuck one
  ASSERT_TRUE(next);
  EXPECT_EQ(next->handle_code(), 200);
  EXPECT_EQ(manager.threads(), 2);  // the replacement and the abandoned one
  unblock->Notify();                // the abandoned thread returns; its late result is dropped
  manager.Shutdown(clock.Now());
  EXPECT_EQ(sink.finishes(1), 1);
}

TEST(RunManagerTest, HandlerHooksRunPerJobAndDestroyAfterTheIdleTtl) {
  RecordingSink sink;
  SimulatedClock clock(absl::FromUnixSeconds(1'000'000));
  std::atomic<int> inits{0}, destroys{0};
  absl::BlockingCounter destroyed(2);
  HandlerHooks hooks;
  hooks.init = [&] {
    ++inits;
    return absl::OkStatus();
  };
  hooks.destroy = [&] {
    ++destroys;
    destroyed.DecrementCount();
  };
  RunManagerOptions options;
  options.clock = &clock;
  options.run.idle_job_ttl = absl::Seconds(60);
  RunManager manager(options, Handlers({{"hooked", [](JobContext&) {}}}, {{"hooked", hooks}}),
                     &sink, nullptr);
  ASSERT_TRUE(manager.Submit(Req(1, 1, "hooked")).accepted);
  ASSERT_TRUE(sink.Result(1));
  ASSERT_TRUE(manager.Submit(Req(2, 1, "hooked")).accepted);
  ASSERT_TRUE(sink.Result(2));
  ASSERT_TRUE(manager.Submit(Req(3, 2, "hooked")).accepted);  // another job: its own init
  ASSERT_TRUE(sink.Result(3));
  EXPECT_EQ(inits.load(), 2);
  EXPECT_EQ(destroys.load(), 0);
  clock.Advance(absl::Seconds(61));
  destroyed.Wait();  // both jobs' destroys ran, before any shutdown
  manager.Shutdown(clock.Now());
  EXPECT_EQ(destroys.load(), 2);
  EXPECT_EQ(manager.threads(), 0);
}

TEST(RunManagerTest, ShutdownCancelsWhatIsLeftAndStopsEveryThread) {
  RecordingSink sink;
  SimulatedClock clock(absl::FromUnixSeconds(1'000'000));
  Gate gate;
  RunManagerOptions options;
  options.clock = &clock;
  options.run.max_concurrent_runs = 2;
  RunManager manager(options, Handlers({{"gate", gate.handler()}}), &sink, nullptr);
  for (int i = 1; i <= 5; ++i) ASSERT_TRUE(manager.Submit(Req(i, i % 2, "gate")).accepted);
  ASSERT_TRUE(sink.WaitForStarted(2));
  manager.Shutdown(clock.Now());
  ASSERT_TRUE(sink.WaitForResults(5));
  for (int i = 1; i <= 5; ++i) EXPECT_EQ(sink.Result(i)->handle_code(), 503) << i;
  EXPECT_EQ(manager.threads(), 0);
}

}  // namespace
}  // namespace gnomon::executor::internal

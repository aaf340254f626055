// Fire lateness of the schedule loop: how long after a slot's instant its run
// is recorded, routed and handed to its executor's stream (send instant -
// scheduled instant), at 1,000 and 10,000 fires/s, with the real loop,
// deliveries and trigger pools, the real clock and a real SQLite store; plus
// store transactions per run (its recording and its accepted outcome).
// Executors are an in-process stand-in that accepts at once (see
// burst_bench for the whole path).
//
//   fire_lateness_bench [seconds per rate, default 10]
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "bench/call_counter.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/status/status_macros.h"
#include "services/scheduler/deliveries.h"
#include "services/scheduler/route_plan.h"
#include "services/scheduler/run_recorder.h"
#include "services/scheduler/schedule_loop.h"
#include "services/scheduler/testing/fake_executors.h"

namespace gnomon::bench {
namespace {

using google::protobuf::util::TimeUtil;

// An executor that notes how late each run reaches its stream and accepts it.
class NotingExecutor final : public scheduler::testing::SendOnlyExecutors {
 public:
  void Send(const std::string&, const std::string&, v1::RunRequest run,
            scheduler::DispatchCallback cb) override {
    const absl::Time sent = absl::Now();
    {
      absl::MutexLock l(&mu_);
      lateness_us_.push_back(absl::ToInt64Microseconds(
          sent - absl::FromUnixMillis(TimeUtil::TimestampToMilliseconds(run.scheduled_time()))));
    }
    v1::RunAnswer accepted;
    accepted.mutable_accepted();
    cb(accepted);
  }
  std::vector<int64_t> Take() {
    absl::MutexLock l(&mu_);
    return std::move(lateness_us_);
  }

 private:
  absl::Mutex mu_;
  std::vector<int64_t> lateness_us_ ABSL_GUARDED_BY(mu_);
};

// Records each fire's runs with the scheduler's RunRecorder and hands them
// to Deliveries (as Trigger does), all to one executor.
class RecordingSink final : public scheduler::FireSink {
 public:
  RecordingSink(store::Store* store, scheduler::Deliveries* deliveries)
      : recorder_(store, &RealClock()), deliveries_(deliveries) {
    targets_.group.set_app_name("bench");
    auto one = std::make_shared<std::vector<v1::ExecutorInfo>>(1);
    one->front().set_app_name("bench");
    one->front().set_address("bench:1");
    targets_.executors = std::move(one);
  }
  absl::StatusOr<std::vector<scheduler::FireOutcome>> Fire(
      std::vector<scheduler::FireSpec> fires) override {
    std::vector<scheduler::RoutePlan> plans;
    plans.reserve(fires.size());
    for (const auto& f : fires) plans.push_back(scheduler::PlanRoute(f, *targets_.executors));
    ASSIGN_OR_RETURN(scheduler::RecordedFires recorded, recorder_.Record(fires, plans));
    for (scheduler::RecordedRun& r : recorded.runs) {
      const scheduler::FireSpec& f = fires[r.fire];
      deliveries_->Send(std::move(r.run), f.job, plans[r.fire].runs[r.planned], targets_,
                        f.dispatch_at_ms);
    }
    return std::move(recorded.outcomes);
  }

 private:
  scheduler::RunRecorder recorder_;
  scheduler::Deliveries* const deliveries_;
  scheduler::DispatchTargets targets_;
};

void RunRate(int fires_per_second, int seconds) {
  const std::string dir =
      std::filesystem::temp_directory_path() /
      ("gnomon-lateness-" + std::to_string(getpid()) + "-" + std::to_string(fires_per_second));
  std::filesystem::create_directories(dir);
  auto real = store::OpenStore("sqlite:" + dir + "/bench.db", {});
  if (!real.ok()) {
    std::fprintf(stderr, "store: %s\n", real.status().ToString().c_str());
    return;
  }
  CallCounter counter;
  store::ObservedStore store(real->get(), &counter);
  v1::Group g;
  g.set_app_name("bench");
  g.set_access_token("x");
  const int64_t group = (*real)->CreateGroup(g, 0)->id();
  constexpr int64_t kPeriodMs = 100;
  const int jobs = fires_per_second * kPeriodMs / 1000;
  const int64_t start = absl::ToUnixMillis(absl::Now()) + 1500;
  for (int i = 0; i < jobs; ++i) {
    v1::Job j;
    j.set_group_id(group);
    j.mutable_bean()->set_handler("noop");
    *j.mutable_schedule()->mutable_fix_rate() = TimeUtil::MillisecondsToDuration(kPeriodMs);
    // Spread the jobs over the period so fires arrive evenly.
    (*real)->CreateJob(j, v1::JOB_STATE_RUNNING, start + i * kPeriodMs / jobs, 0).IgnoreError();
  }
  NotingExecutor executor;
  scheduler::Membership membership("bench", &RealClock());
  scheduler::GroupTargets targets(&store, &membership, &RealClock());
  scheduler::DispatchRecorder outcomes(&store, &RealClock());
  scheduler::TriggerPools pools(&RealClock(), {});
  scheduler::Deliveries deliveries({.executors = &executor,
                                    .outcomes = &outcomes,
                                    .targets = &targets,
                                    .clock = &RealClock(),
                                    .partition_count = store.partition_count(),
                                    .pools = &pools});
  RecordingSink sink(&store, &deliveries);
  scheduler::ScheduleLoopOptions options;
  options.record_ahead = absl::Milliseconds(50);  // gnomond's default.
  scheduler::ScheduleLoop loop(&store, &sink, &RealClock(), options);
  const uint64_t writes_before = counter.writes();
  deliveries.Start();
  std::thread outcomes_thread([&] { outcomes.Run(); });
  std::thread t([&] { loop.Run(); });
  absl::SleepFor(absl::Seconds(1.5 + seconds));  // A benchmark's run time, not synchronisation.
  loop.Stop();
  loop.Invalidate(0);  // Wakes the loop so it sees Stop.
  t.join();
  deliveries.Flush();
  pools.Stop();
  deliveries.Stop();
  outcomes.Stop();
  outcomes_thread.join();
  std::vector<int64_t> lat = executor.Take();
  const uint64_t writes = counter.writes() - writes_before;
  std::sort(lat.begin(), lat.end());
  auto pct = [&](double p) {
    return lat.empty() ? 0 : lat[std::min(lat.size() - 1, size_t(p * lat.size()))];
  };
  std::printf(
      "%6d fires/s target: %zu fires in %d s (%.0f/s); lateness p50 %.3f ms, p99 %.3f ms, max %.3f "
      "ms; "
      "store transactions per run %.3f\n",
      fires_per_second, lat.size(), seconds, lat.size() / double(seconds + 0.0), pct(0.5) / 1000.0,
      pct(0.99) / 1000.0, lat.empty() ? 0 : lat.back() / 1000.0,
      lat.empty() ? 0 : double(writes) / lat.size());
  real->reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gnomon::bench

int main(int argc, char** argv) {
  int seconds = 10;
  if (argc > 1 && !absl::SimpleAtoi(argv[1], &seconds)) return 2;
  for (int rate : {1000, 10000}) gnomon::bench::RunRate(rate, seconds);
}

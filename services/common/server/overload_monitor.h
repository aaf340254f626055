// OverloadMonitor: tells when this process is behind the work offered to it,
// and when it is on time again — once, at each edge, not once per run.
//
// Each stage of the pipeline (the schedule loop, the dispatch outcomes, the
// results from executors) reports its backlog when sampled: a figure and
// whether that figure means "behind". The process is behind once some stage
// has been behind for `enter_samples` samples in a row, and on time again
// once no stage has been for `leave_samples` in a row (hysteresis, so a
// store that is slow for a second does not flap). Counters (slots misfired)
// are reported as what they counted while behind.
//
// It logs one line when it falls behind (which stages, their figures) and
// one when it is on time again (how long, the worst figures, the counters'
// increase); sets gauges `gnomon_overloaded` (0/1) and
// `gnomon_overload_backlog{stage}`, and counts episodes
// (`gnomon_overload_episodes_total`); and Status() says where it stands,
// for the health service's detail (HealthMonitor::AddDetail).
//
//   OverloadMonitor overload(&RealClock(), metrics.get(), {});
//   overload.AddStage("schedule_loop_seconds", [&] {
//     const double s = loop.behind_seconds();
//     return OverloadMonitor::Sample{s, s >= 2};
//   });
//   overload.AddCounter("slots_misfired", [&] { return loop.misfired_slots(); });
//   overload.Start();   // samples every second
//
// Thread safety: Add* before Start; Status() from any thread.
#ifndef GNOMON_SERVICES_COMMON_SERVER_OVERLOAD_MONITOR_H_
#define GNOMON_SERVICES_COMMON_SERVER_OVERLOAD_MONITOR_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "services/common/client/clock.h"
#include "services/common/client/periodic_worker.h"
#include "services/common/metrics/metrics_registry.h"

namespace gnomon {

struct OverloadMonitorOptions {
  absl::Duration interval = absl::Seconds(1);
  // Samples in a row with a stage behind before the process is behind.
  int enter_samples = 2;
  // Samples in a row with no stage behind before it is on time again.
  int leave_samples = 5;
};

class OverloadMonitor {
 public:
  struct Sample {
    double value = 0;     // The stage's backlog, in its unit (named by the stage).
    bool behind = false;  // Whether that is behind.
  };
  using Stage = std::function<Sample()>;

  // `metrics` may be null (not measured).
  OverloadMonitor(Clock* clock, metrics::MetricsRegistry* metrics, OverloadMonitorOptions options);
  ~OverloadMonitor() { Stop(); }

  // `name` says what the value measures, with its unit ("results_queued").
  void AddStage(std::string name, Stage stage);
  void AddCounter(std::string name, std::function<int64_t()> count);

  // One sample (the worker calls it every interval; tests step it).
  void SampleNow() ABSL_LOCKS_EXCLUDED(mu_);
  void Start() {
    worker_.Start(options_.interval, [this] { SampleNow(); });
  }
  void Stop() { worker_.Stop(); }

  // OK while on time; Unavailable("behind since ...: <stages>") while behind.
  absl::Status Status() const ABSL_LOCKS_EXCLUDED(mu_);
  bool behind() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct StageEntry {
    std::string name;
    Stage sample;
    prometheus::Gauge* gauge = nullptr;
    double last = 0;
    bool last_behind = false;
    double worst = 0;  // While behind.
  };
  struct CounterEntry {
    std::string name;
    std::function<int64_t()> count;
    int64_t at_enter = 0;
  };
  std::string Describe(bool worst) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  Clock* const clock_;
  const OverloadMonitorOptions options_;
  prometheus::Gauge* overloaded_ = nullptr;
  prometheus::Counter* episodes_ = nullptr;
  metrics::MetricsRegistry* const metrics_;
  mutable absl::Mutex mu_;
  std::vector<StageEntry> stages_ ABSL_GUARDED_BY(mu_);
  std::vector<CounterEntry> counters_ ABSL_GUARDED_BY(mu_);
  int behind_run_ ABSL_GUARDED_BY(mu_) = 0;   // Samples in a row with a stage behind.
  int on_time_run_ ABSL_GUARDED_BY(mu_) = 0;  // Samples in a row with none.
  bool behind_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time since_ ABSL_GUARDED_BY(mu_);
  PeriodicWorker worker_;
};

}  // namespace gnomon

#endif  // GNOMON_SERVICES_COMMON_SERVER_OVERLOAD_MONITOR_H_

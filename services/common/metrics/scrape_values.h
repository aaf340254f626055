// Values that are read at scrape time (in a MetricsRegistry::OnScrape hook)
// rather than counted where they happen: counts another object already keeps,
// and gauges over sets whose members come and go.
//
//   MirrorCount(waits_counter, pools.stats().backpressure_waits);
//   executors.Set({{{"app", "billing"}}, 3}, {{{"app", "mail"}}, 1}});
//
// Thread safety: MirrorCount must not race with itself on one counter (hooks
// run one at a time); GaugeSnapshot is thread-safe.
#ifndef GNOMON_SERVICES_COMMON_METRICS_SCRAPE_VALUES_H_
#define GNOMON_SERVICES_COMMON_METRICS_SCRAPE_VALUES_H_

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/labels.h"

namespace gnomon::metrics {

// Brings `counter` up to `total`, a cumulative count kept elsewhere (a
// prometheus counter cannot be set). A total below the counter (its keeper
// was reset) leaves the counter alone: counters never go down.
void MirrorCount(prometheus::Counter& counter, uint64_t total);

// A gauge family whose children are all set by each refresh. A child a
// refresh leaves out is set to 0, not removed: an app's executors that all
// left read 0 rather than vanishing (label values are operator-defined
// names, so the set stays small).
class GaugeSnapshot {
 public:
  explicit GaugeSnapshot(prometheus::Family<prometheus::Gauge>& family) : family_(family) {}
  void Set(const std::vector<std::pair<prometheus::Labels, double>>& values)
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  prometheus::Family<prometheus::Gauge>& family_;
  absl::Mutex mu_;
  std::map<prometheus::Labels, prometheus::Gauge*> seen_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gnomon::metrics

#endif  // GNOMON_SERVICES_COMMON_METRICS_SCRAPE_VALUES_H_

// MetricsScraper: GETs /metrics endpoints on a fixed interval from its own
// thread, as a Prometheus server would, so a benchmark with metrics on pays
// for the scrapes too.
//
//   MetricsScraper scraper(deployment.metrics_urls(), absl::Seconds(1));
//   ... the measured window ...
//   MetricsScraper::Totals t = scraper.Stop();
//
// Thread safety: construct, Stop and destroy on one thread.
#ifndef GNOMON_BENCH_METRICS_SCRAPER_H_
#define GNOMON_BENCH_METRICS_SCRAPER_H_

#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace gnomon::bench {

class MetricsScraper {
 public:
  struct Totals {
    int64_t scrapes = 0;
    int64_t failures = 0;
    int64_t bytes = 0;
  };

  MetricsScraper(std::vector<std::string> urls, absl::Duration every);
  ~MetricsScraper();
  Totals Stop();

 private:
  const std::vector<std::string> urls_;
  const absl::Duration every_;
  absl::Notification stop_;
  Totals totals_;  // Written by the thread until Stop joins it.
  std::thread thread_;
};

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_METRICS_SCRAPER_H_

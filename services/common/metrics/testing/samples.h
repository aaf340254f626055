// Test helpers: what a MetricsRegistry would serve, and one series' value.
//
//   EXPECT_EQ(SampleOf(registry,
//   "gnomon_runs_total{handle_code=\"success\",status=\"succeeded\"}"), 1);
//
// Thread safety: as MetricsRegistry::Collect.
#ifndef GNOMON_SERVICES_COMMON_METRICS_TESTING_SAMPLES_H_
#define GNOMON_SERVICES_COMMON_METRICS_TESTING_SAMPLES_H_

#include <optional>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "prometheus/text_serializer.h"
#include "services/common/metrics/metrics_registry.h"

namespace gnomon::metrics::testing {

inline std::string Exposition(const MetricsRegistry& m) {
  return prometheus::TextSerializer().Serialize(m.Collect());
}

// The value of `series` (its name and labels as served, labels sorted by
// name), or nullopt when it is not served.
inline std::optional<double> SampleOf(const MetricsRegistry& m, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(Exposition(m), '\n')) {
    if (line.size() <= series.size() || line.substr(0, series.size()) != series ||
        line[series.size()] != ' ') {
      continue;
    }
    double v = 0;
    if (absl::SimpleAtod(line.substr(series.size() + 1), &v)) return v;
  }
  return std::nullopt;
}

}  // namespace gnomon::metrics::testing

#endif  // GNOMON_SERVICES_COMMON_METRICS_TESTING_SAMPLES_H_

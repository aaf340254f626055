#include "services/common/metrics/build_info.h"

namespace gnomon::metrics {

const char* Version() { return GNOMON_VERSION; }

void AddBuildInfo(MetricsRegistry& metrics, const std::string& program) {
  metrics
      .Gauge("gnomon_build_info", "Always 1; the labels say which gnomon program and version this is.",
             {{"program", program}, {"version", Version()}})
      .Set(1);
}

}  // namespace gnomon::metrics

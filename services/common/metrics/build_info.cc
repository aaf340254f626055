#include "services/common/metrics/build_info.h"

#include "services/common/client/version.h"

namespace gnomon::metrics {

void AddBuildInfo(MetricsRegistry& metrics, const std::string& program) {
  metrics
      .Gauge(
          "gnomon_build_info",
          "Always 1; the labels say which gnomon program, version and git revision this is.",
          {{"program", program}, {"version", gnomon::Version()}, {"revision", gnomon::Revision()}})
      .Set(1);
}

}  // namespace gnomon::metrics

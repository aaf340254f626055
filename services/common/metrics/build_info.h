// gnomon_build_info: the conventional always-1 gauge whose labels say what
// is running, so dashboards can join on it and show versions across a fleet.
//
//   AddBuildInfo(*metrics, "gnomond");
//   // gnomon_build_info{program="gnomond",revision="c93f5ab0d1e2",version="0.1.0"} 1
//
// Thread safety: as MetricsRegistry.
#ifndef GNOMON_SERVICES_COMMON_METRICS_BUILD_INFO_H_
#define GNOMON_SERVICES_COMMON_METRICS_BUILD_INFO_H_

#include <string>

#include "services/common/metrics/metrics_registry.h"

namespace gnomon::metrics {

// gnomon's version (the CMake project version) and git revision.
void AddBuildInfo(MetricsRegistry& metrics, const std::string& program);

}  // namespace gnomon::metrics

#endif  // GNOMON_SERVICES_COMMON_METRICS_BUILD_INFO_H_

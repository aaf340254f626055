// Histogram bucket boundaries shared by gnomon's metrics, in seconds (base
// units). Fixed boundaries: prometheus-cpp has no native histograms.
//
//   BuildHistogram().Name("gnomon_x_seconds")...Register(r).Add({}, LatenessBuckets());
//
// Thread safety: the returned vectors are immutable and live forever.
#ifndef GNOMON_SERVICES_COMMON_METRICS_BUCKETS_H_
#define GNOMON_SERVICES_COMMON_METRICS_BUCKETS_H_

#include "prometheus/histogram.h"

namespace gnomon::metrics {

// Trigger lateness: 1 ms to 15 min (a misfire a quarter of an hour late
// still lands in a bucket, not only in +Inf).
const prometheus::Histogram::BucketBoundaries& LatenessBuckets();
// Round trips and store calls: 100 µs to 10 s.
const prometheus::Histogram::BucketBoundaries& LatencyBuckets();
// How long handlers run: 1 ms to 6 h.
const prometheus::Histogram::BucketBoundaries& RunDurationBuckets();

}  // namespace gnomon::metrics

#endif  // GNOMON_SERVICES_COMMON_METRICS_BUCKETS_H_

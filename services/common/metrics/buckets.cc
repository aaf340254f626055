#include "services/common/metrics/buckets.h"

namespace gnomon::metrics {

using Buckets = prometheus::Histogram::BucketBoundaries;

const Buckets& LatenessBuckets() {
  static const Buckets* b = new Buckets{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                        2.5,   5,      10,    30,   60,    120,  300, 600,  900};
  return *b;
}

const Buckets& LatencyBuckets() {
  static const Buckets* b = new Buckets{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                        0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,    10};
  return *b;
}

const Buckets& RunDurationBuckets() {
  static const Buckets* b =
      new Buckets{0.001, 0.01, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 1800, 3600, 7200, 21600};
  return *b;
}

}  // namespace gnomon::metrics

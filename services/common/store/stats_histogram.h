// Run-duration histogram of the daily statistics: fixed log-linear buckets, so
// per-(day, job) counts can be added up in SQL and percentiles estimated
// without keeping every duration.
//
// Buckets: durations 0, 1, 2 and 3 ms have a bucket each (exact). Above that,
// every power of two [2^e, 2^(e+1)) is split into 4 equal buckets, so a bucket
// is never wider than a quarter of its lower bound. Durations of 2^45 ms
// (about 1100 years) and more share the last bucket.
//
// Estimates: EstimatePercentile finds the bucket holding the nearest-rank
// percentile (the ceil(q * n)-th smallest duration) and returns the bucket's
// midpoint, so the estimate is within 12.5% of the true percentile (exact
// below 4 ms).
//
// Example:
//   std::vector<int64_t> counts(kDurationBuckets);
//   ++counts[DurationBucket(1234)];
//   int64_t p99 = EstimatePercentile(counts, 99);
//
// Thread safety: pure functions.
#ifndef GNOMON_SERVICES_COMMON_STORE_STATS_HISTOGRAM_H_
#define GNOMON_SERVICES_COMMON_STORE_STATS_HISTOGRAM_H_

#include <cstdint>
#include <vector>

namespace gnomon::store::internal {

inline constexpr int kMaxDurationExponent = 45;
inline constexpr int kDurationBuckets = 4 + (kMaxDurationExponent - 2) * 4;

// The bucket of a duration in milliseconds (negative counts as 0).
int DurationBucket(int64_t duration_ms);
// The bucket's range [lower, upper) in milliseconds.
int64_t BucketLowerMs(int bucket);
int64_t BucketUpperMs(int bucket);
// The nearest-rank `percent` percentile (1..100) of the durations counted in
// `counts` (indexed by bucket), as the midpoint of its bucket; 0 if empty.
int64_t EstimatePercentile(const std::vector<int64_t>& counts, int percent);

}  // namespace gnomon::store::internal

#endif  // GNOMON_SERVICES_COMMON_STORE_STATS_HISTOGRAM_H_

#include "services/common/store/stats_histogram.h"

#include <algorithm>

namespace gnomon::store::internal {
namespace {

// Index of the highest set bit of v > 0.
int HighBit(int64_t v) { return 63 - __builtin_clzll(static_cast<uint64_t>(v)); }

}  // namespace

int DurationBucket(int64_t duration_ms) {
  if (duration_ms < 4) return static_cast<int>(std::max<int64_t>(duration_ms, 0));
  const int e = HighBit(duration_ms);
  if (e >= kMaxDurationExponent) return kDurationBuckets - 1;
  // Two bits below the leading one pick the quarter of [2^e, 2^(e+1)).
  const int quarter = static_cast<int>((duration_ms >> (e - 2)) & 3);
  return 4 + (e - 2) * 4 + quarter;
}

int64_t BucketLowerMs(int bucket) {
  if (bucket < 4) return std::max(bucket, 0);
  const int e = 2 + (bucket - 4) / 4;
  const int64_t quarter = (bucket - 4) % 4;
  return (int64_t{4} + quarter) << (e - 2);
}

int64_t BucketUpperMs(int bucket) {
  if (bucket < 4) return std::max(bucket, 0) + 1;
  const int e = 2 + (bucket - 4) / 4;
  return BucketLowerMs(bucket) + (int64_t{1} << (e - 2));
}

int64_t EstimatePercentile(const std::vector<int64_t>& counts, int percent) {
  int64_t total = 0;
  for (int64_t n : counts) total += std::max<int64_t>(n, 0);
  if (total == 0) return 0;
  // Nearest rank: the ceil(percent/100 * total)-th smallest duration.
  const int64_t rank = std::max<int64_t>(1, (total * percent + 99) / 100);
  int64_t seen = 0;
  for (size_t b = 0; b < counts.size(); ++b) {
    seen += std::max<int64_t>(counts[b], 0);
    if (seen >= rank) {
      const int bucket = static_cast<int>(b);
      if (bucket < 4) return bucket;
      return BucketLowerMs(bucket) + (BucketUpperMs(bucket) - BucketLowerMs(bucket)) / 2;
    }
  }
  return 0;
}

}  // namespace gnomon::store::internal

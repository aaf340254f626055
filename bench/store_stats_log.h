// gnomond's --store-stats-interval lines, read back by the benchmarks:
//   "gnomond: store stats: N write transactions committed, M statements
//    executed by T (unix ms)"
// (cumulative counts; older builds print no statements). Differencing the
// first and last line inside a window gives its commits and statements.
//
//   StoreStatsDelta d = ParseStoreStats(gnomond->Output(), t0_ms, t1_ms);
//
// Thread safety: pure function.
#ifndef GNOMON_BENCH_STORE_STATS_LOG_H_
#define GNOMON_BENCH_STORE_STATS_LOG_H_

#include <cstdint>
#include <optional>
#include <string>

namespace gnomon::bench {

struct StoreStatsDelta {
  int64_t transactions = 0;
  std::optional<int64_t> statements;  // Only when the build logs them.
  int64_t span_ms = 0;                // 0: fewer than two lines in the window.
};
StoreStatsDelta ParseStoreStats(const std::string& output, int64_t from_ms, int64_t to_ms);

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_STORE_STATS_LOG_H_

// Per-process figures read from /proc for benchmarks: CPU time, peak resident
// memory and thread count of a child process.
//
//   const double cpu0 = CpuSeconds(pid);
//   ...
//   std::printf("%.1f s CPU, %lld KiB peak\n", CpuSeconds(pid) - cpu0, PeakRssKib(pid));
//
// Each call reads /proc afresh; -1 when the process (or field) is gone.
// Thread safety: thread-safe (no state).
#ifndef GNOMON_BENCH_PROC_STATS_H_
#define GNOMON_BENCH_PROC_STATS_H_

#include <sys/types.h>

#include <cstdint>

namespace gnomon::bench {

// utime + stime of `pid` (all its threads), in seconds.
double CpuSeconds(pid_t pid);
// VmHWM: the peak resident set size, in KiB.
int64_t PeakRssKib(pid_t pid);
// Threads: the current number of threads.
int64_t ThreadCount(pid_t pid);

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_PROC_STATS_H_

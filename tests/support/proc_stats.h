// Per-process figures read from /proc for benchmarks and tests: CPU time, resident and
// peak resident memory and thread count of a child process.
//
//   const double cpu0 = CpuSeconds(pid);
//   ...
//   std::printf("%.1f s CPU, %lld KiB peak\n", CpuSeconds(pid) - cpu0, PeakRssKib(pid));
//
// Each call reads /proc afresh; -1 when the process (or field) is gone.
// ResetPeakRss starts a new peak (VmHWM) from the current resident set, so a
// phase's peak can be told from an earlier one's.
// Thread safety: thread-safe (no state).
#ifndef GNOMON_TESTS_SUPPORT_PROC_STATS_H_
#define GNOMON_TESTS_SUPPORT_PROC_STATS_H_

#include <sys/types.h>

#include <cstdint>

namespace gnomon::testing {

// utime + stime of `pid` (all its threads), in seconds.
double CpuSeconds(pid_t pid);
// The resident set now, in KiB: VmRSS = RssAnon (heap, stacks) + RssFile
// (mapped files, such as a memory-mapped SQLite database: page cache the
// kernel can take back) + RssShmem.
struct ResidentKib {
  int64_t total = -1, anon = -1, file = -1;
};
ResidentKib Resident(pid_t pid);
// VmHWM: the peak resident set size, in KiB.
int64_t PeakRssKib(pid_t pid);
// Writes 5 to /proc/PID/clear_refs (Linux 4.0+; needs the right to trace the
// process): VmHWM restarts from VmRSS. False when refused.
bool ResetPeakRss(pid_t pid);
// Threads: the current number of threads.
int64_t ThreadCount(pid_t pid);

}  // namespace gnomon::testing

#endif  // GNOMON_TESTS_SUPPORT_PROC_STATS_H_

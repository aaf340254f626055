// What the processes of a benchmark deployment cost over an interval of
// wall-clock time: CPU seconds, peak resident memory and thread count per
// process, and, with a MariaDB store, the server's counters differenced over
// the interval and divided by the runs recorded in it.
//
//   WindowSampler s({{"gnomond-1", gnomond_pid}, {"mariadbd", mariadb_pid}}, socket);
//   ... the interval (SampleThreads() now and then) ...
//   WindowFigures w = s.Finish();
//   std::printf("CPU s %s\n", w.CpuCells().c_str());
//   ServerPerRun per_run = PrintServerPerRun(*reader, w);  // MariaDB only.
//
// Thread safety: a sampler belongs to one thread; the rest holds no state.
#ifndef GNOMON_BENCH_WINDOW_FIGURES_H_
#define GNOMON_BENCH_WINDOW_FIGURES_H_

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bench/store_reader.h"

namespace gnomon::bench {

// One process of the deployment; the figures are filled by Finish().
struct ProcessFigures {
  std::string name;  // "gnomond-1", "executor-2", "mariadbd"
  pid_t pid = -1;
  double cpu_s = 0;
  int64_t peak_rss_kib = -1;
  int64_t max_threads = 0;
};

struct WindowFigures {
  std::vector<ProcessFigures> processes;
  int64_t sample0_ms = 0, sample1_ms = 0;           // When the interval was sampled (unix ms).
  std::map<std::string, int64_t> status0, status1;  // MariaDB's counters; empty without it.
  // The peak RSS is the process's peak since it started: the reset was refused.
  bool peak_since_start = false;

  // A counter's change over the interval, if the server reported it twice.
  std::optional<int64_t> StatusDelta(const std::string& name) const;
  // "gnomond-1 2.5, mariadbd 10.1": CPU seconds per process.
  std::string CpuCells() const;
  // "gnomond-1 221, mariadbd 668": peak RSS in MiB per process.
  std::string PeakRssCells() const;
};

class WindowSampler {
 public:
  // Starts the interval: samples each process's CPU time and, when
  // `mariadb_socket` is not empty, the server's counters. With `reset_peak`,
  // each process's peak RSS restarts here (see ResetPeakRss), so it is the
  // interval's peak rather than the peak since the process started.
  WindowSampler(std::vector<ProcessFigures> processes, std::string mariadb_socket,
                bool reset_peak = false);
  // Samples the thread counts (Finish keeps each process's maximum).
  void SampleThreads();
  // Ends the interval: the figures between the two samples.
  WindowFigures Finish();

 private:
  std::string mariadb_socket_;
  std::vector<double> cpu0_;
  WindowFigures w_;
};

// The MariaDB server's costs per run recorded (any kind, by trigger_ms)
// between a window's two samples; "n/a" where they could not be read.
struct ServerPerRun {
  std::optional<std::string> statements;  // Questions per run.
  std::string mariadbd_cpu_per_1000 = "n/a";
};
// Reads the runs recorded between the samples and prints two lines:
// "mariadbd CPU s per 1,000 runs recorded: X" and the counters per run.
ServerPerRun PrintServerPerRun(StoreReader& reader, const WindowFigures& w);

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_WINDOW_FIGURES_H_

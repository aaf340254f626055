// burst_bench --shape=minute: the top of the hour. J distinct jobs with cron
// "0 * * * * ?" are all due at second 0 of every minute, the way
// "0 0 * * * ?" schedules are all due at the top of the hour; the minute
// between two instants is otherwise idle. After the jobs are created and
// started, two (or more) consecutive instants are watched:
//
//   instant k:  M_k = M_1 + (k - 1) min, M_1 the first whole minute at least
//               `lead` after the jobs were started;
//   processes:  CPU seconds and peak RSS per process (the peak restarted at
//               the interval's start) over [M_k - 10 s, M_k + 50 s): the
//               pre-read (5 s before) and the burst, one interval per minute;
//   then:       until every slot of every instant has started, or the count
//               of started slots has not moved for 20 s, at most `drain_max`.
//
// Then, per instant, from the run table: jobs due, runs recorded before the
// instant (trigger_ms < M_k) and in all, slots started, runs failed (and
// why), lateness at handler start (start_ms - M_k), when the last slot
// started and how many never did; and mariadbd CPU s per 1,000 runs recorded
// in the interval. Figures are printed, never asserted.
//
//   MinuteBurstTarget t{reader.get(), processes, mariadb_socket, /*due=*/jobs, "2000", "sqlite"};
//   WatchedBursts w = WatchMinuteBursts(t, {});
//   deployment.Stop();
//   std::vector<MinuteBurstRow> rows = ReportMinuteBursts(t, w);
//   PrintMinuteBurstTable(rows);
//
// Thread safety: no shared state; the calls block (the watch lasts minutes).
#ifndef GNOMON_BENCH_BURST_MINUTE_H_
#define GNOMON_BENCH_BURST_MINUTE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "bench/store_reader.h"
#include "bench/window_figures.h"

namespace gnomon::bench {

// The jobs' cron: due at second 0 of every minute.
inline constexpr char kMinuteCron[] = "0 * * * * ?";

struct MinuteBurstOptions {
  int bursts = 2;  // Consecutive instants watched.
  // The first instant is the first whole minute at least this long after now
  // (so the jobs are armed, and the admin pass's load is over, well before).
  absl::Duration lead = absl::Seconds(30);
  // After the last interval, waiting for the last slots to start.
  absl::Duration drain_max = absl::Seconds(600);
};

// What is watched: a deployment whose `due` jobs are all started.
struct MinuteBurstTarget {
  StoreReader* reader = nullptr;
  std::vector<ProcessFigures> processes;  // mariadbd included on MariaDB.
  std::string mariadb_socket;             // Empty on SQLite.
  int64_t due = 0;
  std::string jobs, store;  // The rows' first cells.
};

struct WatchedBursts {
  std::vector<int64_t> instants_ms;
  std::vector<WindowFigures> windows;  // One per instant.
  int64_t drained_ms = 0;              // When the watch ended.
};

// One printed row per instant; every cell is already text.
struct MinuteBurstRow {
  std::string jobs, store, burst, due, recorded_before, recorded, started, failed, start_lateness,
      all_started, cpu, rss, mariadbd_cpu_per_1000;
};

// Waits for the instants, samples the processes around each, then drains.
WatchedBursts WatchMinuteBursts(const MinuteBurstTarget& t, const MinuteBurstOptions& o);
// Reads each instant's runs back (after the deployment stopped, so reading
// competes with nothing), prints its figures and returns its row.
std::vector<MinuteBurstRow> ReportMinuteBursts(const MinuteBurstTarget& t, const WatchedBursts& w);
void PrintMinuteBurstTable(const std::vector<MinuteBurstRow>& rows);

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_BURST_MINUTE_H_

// What burst_bench reads back after a measurement window: the fate of every
// expected slot (job, whole second) in the window, taken from the run table,
// and the store's commit counts, taken from gnomond's --store-stats-interval
// lines. Reading and arithmetic (Drain polls); no processes.
//
//   Drain(*reader, t0_ms, t1_ms, /*late_ms=*/5000, absl::Seconds(60));
//   absl::StatusOr<SlotOutcomes> o = ReadSlotOutcomes(*reader, t0_ms, t1_ms, /*late_ms=*/5000);
//   std::printf("%s\n", Percentiles(o->start_lateness_ms).c_str());
//
// Thread safety: no shared state.
#ifndef GNOMON_BENCH_BURST_FIGURES_H_
#define GNOMON_BENCH_BURST_FIGURES_H_

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bench/store_reader.h"
#include "bench/store_stats_log.h"

namespace gnomon::bench {

// The jobs whose slots are read: ids in [min_id, max_id] (all by default).
struct JobIds {
  int64_t min_id = 0;
  int64_t max_id = std::numeric_limits<int64_t>::max();
};

// Schedule runs (cron and fixed-rate slots, and slots fired late by the misfire policy) whose
// scheduled instant lies in [from_ms, to_ms).
struct SlotOutcomes {
  int64_t recorded_slots = 0;   // Slots with at least one run record.
  int64_t started_slots = 0;    // Slots with a run that started (any time).
  int64_t late_slots = 0;       // Started, but more than late_ms after the instant.
  int64_t duplicate_slots = 0;  // (job, scheduled_ms, shard) with more than one run.
  int64_t runs = 0;             // Run records.
  int64_t misfire_runs = 0;     // Of which fired late under the misfire policy.
  // Per run, milliseconds after the scheduled instant.
  std::vector<int64_t> record_lateness_ms;    // trigger_ms: the slot recorded
  std::vector<int64_t> dispatch_lateness_ms;  // dispatch_ms: sent to an executor
  std::vector<int64_t> start_lateness_ms;     // start_ms: the handler started
  std::vector<int64_t> end_lateness_ms;       // end_ms: the handler ended
  // Runs that did not succeed (yet), by "status trigger_code/handle_code: message".
  std::map<std::string, int64_t> unsuccessful;
  int64_t failed_runs = 0;  // Of which RUN_STATUS_FAILED.
};

absl::StatusOr<SlotOutcomes> ReadSlotOutcomes(StoreReader& db, int64_t from_ms, int64_t to_ms,
                                              int64_t late_ms, JobIds jobs = {});
// Slots of the window with a started run (cheap enough to poll while draining).
absl::StatusOr<int64_t> CountStartedSlots(StoreReader& db, int64_t from_ms, int64_t to_ms,
                                          JobIds jobs = {});
// Waits until slots of the window can no longer start in time (late_ms after
// to_ms), then until the count of started slots stops moving, at most `max`.
void Drain(StoreReader& db, int64_t from_ms, int64_t to_ms, int64_t late_ms, absl::Duration max,
           JobIds jobs = {});
// Polls the count of started slots of the window every 2 s until it reaches
// `expected`, or has not moved for `quiet`, or `deadline` passes; returns the
// last count (-1 if none was read).
int64_t WaitForStartedSlots(StoreReader& db, int64_t from_ms, int64_t to_ms, int64_t expected,
                            absl::Duration quiet, absl::Time deadline, JobIds jobs = {});
// Runs of any kind recorded (trigger_ms) in [from_ms, to_ms).
absl::StatusOr<int64_t> CountRunsRecorded(StoreReader& db, int64_t from_ms, int64_t to_ms);

// Prints a Markdown table after a blank line: the header row, then each row
// (cells are text, one per header cell).
void PrintMarkdownTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows);

// "p50 / p99 / max" in ms (nearest rank), or "-" without samples.
std::string Percentiles(std::vector<int64_t> v);
// The nearest-rank `p` quantile (0..1) of ascending `sorted`, which is not empty.
int64_t Quantile(const std::vector<int64_t>& sorted, double p);

}  // namespace gnomon::bench

#endif  // GNOMON_BENCH_BURST_FIGURES_H_

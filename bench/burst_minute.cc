#include "bench/burst_minute.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "bench/burst_figures.h"

namespace gnomon::bench {
namespace {

constexpr int64_t kMinuteMs = 60'000;
// Each instant's process interval: [M - kBeforeMs, M + kMinuteMs - kBeforeMs).
// 10 s before takes in the pre-read (5 s before) and recording ahead.
constexpr int64_t kBeforeMs = 10'000;
// The drain ends once the count of started slots has not moved for this long.
constexpr absl::Duration kQuiet = absl::Seconds(20);
// Started later than this after the instant: counted as late.
constexpr int64_t kLateMs = 5000;

// "[M-10 s, M+50 s)": each instant's process interval.
std::string Interval() {
  return absl::StrCat("[M-", kBeforeMs / 1000, " s, M+", (kMinuteMs - kBeforeMs) / 1000, " s)");
}

void SleepUntilMs(int64_t ms) { absl::SleepFor(absl::FromUnixMillis(ms) - absl::Now()); }

std::string Utc(int64_t ms, const char* format = "%H:%M:%S") {
  return absl::FormatTime(format, absl::FromUnixMillis(ms), absl::UTCTimeZone());
}

// The cell saying when the instant's last slot started, and how many never did.
std::string AllStarted(const SlotOutcomes& out, int64_t due, int64_t instant_ms,
                       int64_t drained_ms) {
  const std::string last =
      out.start_lateness_ms.empty()
          ? "none started"
          : absl::StrCat(
                "+", *std::max_element(out.start_lateness_ms.begin(), out.start_lateness_ms.end()),
                " ms");
  if (out.started_slots >= due) return absl::StrCat(last, " (all)");
  return absl::StrFormat("%s; %d never started (drain ended at +%.0f s)", last,
                         due - out.started_slots, (drained_ms - instant_ms) / 1000.0);
}

}  // namespace

WatchedBursts WatchMinuteBursts(const MinuteBurstTarget& t, const MinuteBurstOptions& o) {
  WatchedBursts w;
  const int64_t earliest = absl::ToUnixMillis(absl::Now() + o.lead);
  const int64_t first = (earliest + kMinuteMs - 1) / kMinuteMs * kMinuteMs;
  for (int k = 0; k < o.bursts; ++k) w.instants_ms.push_back(first + k * kMinuteMs);
  std::printf(
      "instants: %d from %s (the first whole minute %.0f s or more after the jobs were started); "
      "process figures over %s\n",
      o.bursts, Utc(first, "%Y-%m-%d %H:%M:%S UTC").c_str(), absl::ToDoubleSeconds(o.lead),
      Interval().c_str());
  for (int64_t instant : w.instants_ms) {
    SleepUntilMs(instant - kBeforeMs);
    WindowSampler sampler(t.processes, t.mariadb_socket, /*reset_peak=*/true);
    SleepUntilMs(instant + kMinuteMs - kBeforeMs);
    w.windows.push_back(sampler.Finish());
  }
  // Every slot of every instant (the crons fire at second 0 only).
  const int64_t expected = t.due * o.bursts;
  const int64_t started = WaitForStartedSlots(*t.reader, first, w.instants_ms.back() + 1000,
                                              expected, kQuiet, absl::Now() + o.drain_max);
  w.drained_ms = absl::ToUnixMillis(absl::Now());
  std::printf("drain: %lld/%lld slots started %.0f s after the last instant\n",
              static_cast<long long>(started), static_cast<long long>(expected),
              (w.drained_ms - w.instants_ms.back()) / 1000.0);
  return w;
}

std::vector<MinuteBurstRow> ReportMinuteBursts(const MinuteBurstTarget& t, const WatchedBursts& w) {
  std::vector<MinuteBurstRow> rows;
  for (size_t k = 0; k < w.instants_ms.size(); ++k) {
    const int64_t instant = w.instants_ms[k];
    const WindowFigures& window = w.windows[k];
    MinuteBurstRow row;
    row.jobs = t.jobs;
    row.store = t.store;
    row.burst = absl::StrCat(k + 1, " (", Utc(instant), ")");
    absl::StatusOr<SlotOutcomes> out =
        ReadSlotOutcomes(*t.reader, instant, instant + 1000, kLateMs);
    if (!out.ok()) {
      std::printf("FAILED J=%s %s burst %s: reading the run table: %s\n", t.jobs.c_str(),
                  t.store.c_str(), row.burst.c_str(), out.status().ToString().c_str());
      continue;
    }
    const int64_t before =
        std::count_if(out->record_lateness_ms.begin(), out->record_lateness_ms.end(),
                      [](int64_t ms) { return ms < 0; });
    row.due = absl::StrCat(t.due);
    row.recorded_before = absl::StrCat(before);
    row.recorded = absl::StrCat(out->runs);
    row.started = absl::StrCat(out->started_slots);
    row.failed = absl::StrCat(out->failed_runs);
    row.start_lateness = Percentiles(out->start_lateness_ms);
    row.all_started = AllStarted(*out, t.due, instant, w.drained_ms);
    row.cpu = window.CpuCells();
    row.rss = window.PeakRssCells();
    std::printf(
        "burst %s: jobs due %lld; runs recorded before the instant %lld, in all %lld (slots %lld, "
        "no run %lld, duplicate slots %lld, misfire-policy runs %lld); started %lld (later than "
        "%lld ms: %lld); failed %lld\n",
        row.burst.c_str(), static_cast<long long>(t.due), static_cast<long long>(before),
        static_cast<long long>(out->runs), static_cast<long long>(out->recorded_slots),
        static_cast<long long>(t.due - out->recorded_slots),
        static_cast<long long>(out->duplicate_slots), static_cast<long long>(out->misfire_runs),
        static_cast<long long>(out->started_slots), static_cast<long long>(kLateMs),
        static_cast<long long>(out->late_slots), static_cast<long long>(out->failed_runs));
    for (const auto& [why, n] : out->unsuccessful) {
      std::printf("    not succeeded: %lld x %s\n", static_cast<long long>(n), why.c_str());
    }
    std::printf(
        "    ms after the instant p50/p99/max: recorded %s, dispatched %s, handler started %s; "
        "last started: %s\n",
        Percentiles(out->record_lateness_ms).c_str(),
        Percentiles(out->dispatch_lateness_ms).c_str(), row.start_lateness.c_str(),
        row.all_started.c_str());
    std::printf("    %s to %s: CPU s %s | peak RSS MiB %s%s\n", Utc(window.sample0_ms).c_str(),
                Utc(window.sample1_ms).c_str(), row.cpu.c_str(), row.rss.c_str(),
                window.peak_since_start ? " (since each process started)" : "");
    row.mariadbd_cpu_per_1000 = t.mariadb_socket.empty()
                                    ? "n/a"
                                    : PrintServerPerRun(*t.reader, window).mariadbd_cpu_per_1000;
    std::printf(
        "RESULT J=%s %s burst %s: due %s | recorded before the instant %s, in all %s | started %s "
        "| failed %s | lateness at start ms p50/p99/max %s | last started %s | CPU s %s | peak RSS "
        "MiB %s | mariadbd CPU s per 1,000 runs %s\n",
        row.jobs.c_str(), row.store.c_str(), row.burst.c_str(), row.due.c_str(),
        row.recorded_before.c_str(), row.recorded.c_str(), row.started.c_str(), row.failed.c_str(),
        row.start_lateness.c_str(), row.all_started.c_str(), row.cpu.c_str(), row.rss.c_str(),
        row.mariadbd_cpu_per_1000.c_str());
    rows.push_back(std::move(row));
  }
  return rows;
}

void PrintMinuteBurstTable(const std::vector<MinuteBurstRow>& rows) {
  std::vector<std::vector<std::string>> cells;
  for (const MinuteBurstRow& r : rows) {
    cells.push_back({r.jobs, r.store, r.burst, r.due, r.recorded_before, r.recorded, r.started,
                     r.failed, r.start_lateness, r.all_started, r.cpu, r.rss,
                     r.mariadbd_cpu_per_1000});
  }
  PrintMarkdownTable(
      {"J", "store", "burst (instant, UTC)", "jobs due", "runs recorded before the instant",
       "runs recorded", "started", "failed", "lateness at handler start ms p50/p99/max",
       "last start - instant", absl::StrCat("CPU s per process over ", Interval()),
       "peak RSS MiB per process", "mariadbd CPU s per 1,000 runs"},
      cells);
}

}  // namespace gnomon::bench

#include "bench/burst_figures.h"

#include <algorithm>
#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "services/common/status/status_macros.h"

namespace gnomon::bench {
namespace {

// TRIGGER_TYPE_CRON and TRIGGER_TYPE_MISFIRE (gnomon/v1/common.proto).
constexpr int kCron = 1;
constexpr int kFixRate = 2;
constexpr int kMisfire = 8;
// RUN_STATUS_SUCCEEDED and RUN_STATUS_FAILED.
constexpr int kSucceeded = 3;
constexpr int kFailed = 4;

// The window's schedule runs. The trigger_ms bound only lets both backends use
// the run_trigger index: a slot is never recorded a minute before its instant.
std::string WindowWhere(int64_t from_ms, int64_t to_ms, JobIds jobs) {
  std::string where =
      absl::StrCat(" WHERE trigger_type IN (", kCron, ", ", kFixRate, ", ", kMisfire,
                   ") AND scheduled_ms >= ", from_ms, " AND scheduled_ms < ", to_ms,
                   " AND trigger_ms >= ", from_ms - 60000, " ");
  if (jobs.min_id > 0) absl::StrAppend(&where, "AND job_id >= ", jobs.min_id, " ");
  if (jobs.max_id < JobIds().max_id) absl::StrAppend(&where, "AND job_id <= ", jobs.max_id, " ");
  return where;
}

}  // namespace

absl::StatusOr<SlotOutcomes> ReadSlotOutcomes(StoreReader& db, int64_t from_ms, int64_t to_ms,
                                              int64_t late_ms, JobIds jobs) {
  SlotOutcomes out;
  const std::string where = WindowWhere(from_ms, to_ms, jobs);
  RETURN_IF_ERROR(
      db.ForEachRow(absl::StrCat("SELECT count(*), sum(CASE WHEN n > 1 THEN 1 ELSE 0 END), "
                                 "sum(CASE WHEN s IS NOT NULL THEN 1 ELSE 0 END), "
                                 "sum(CASE WHEN s IS NOT NULL AND s - scheduled_ms > ",
                                 late_ms,
                                 " THEN 1 ELSE 0 END), "
                                 "sum(n), sum(m) FROM (SELECT job_id, scheduled_ms, shard_index, "
                                 "count(*) AS n, "
                                 "sum(CASE WHEN trigger_type = ",
                                 kMisfire,
                                 " THEN 1 ELSE 0 END) AS m, "
                                 "min(CASE WHEN start_ms > 0 THEN start_ms END) AS s FROM run",
                                 where, "GROUP BY job_id, scheduled_ms, shard_index) AS slots"),
                    [&](absl::Span<const absl::string_view> row) {
                      if (row.size() < 6) return;
                      out.recorded_slots = AsInt(row[0]);
                      out.duplicate_slots = AsInt(row[1]);
                      out.started_slots = AsInt(row[2]);
                      out.late_slots = AsInt(row[3]);
                      out.runs = AsInt(row[4]);
                      out.misfire_runs = AsInt(row[5]);
                    }));
  RETURN_IF_ERROR(
      db.ForEachRow(absl::StrCat("SELECT trigger_ms - scheduled_ms, "
                                 "CASE WHEN dispatch_ms > 0 THEN dispatch_ms - scheduled_ms END, "
                                 "CASE WHEN start_ms > 0 THEN start_ms - scheduled_ms END, "
                                 "CASE WHEN end_ms > 0 THEN end_ms - scheduled_ms END FROM run",
                                 where),
                    [&](absl::Span<const absl::string_view> row) {
                      if (row.size() < 4) return;
                      out.record_lateness_ms.push_back(AsInt(row[0]));
                      if (row[1] != "NULL") out.dispatch_lateness_ms.push_back(AsInt(row[1]));
                      if (row[2] != "NULL") out.start_lateness_ms.push_back(AsInt(row[2]));
                      if (row[3] != "NULL") out.end_lateness_ms.push_back(AsInt(row[3]));
                    }));
  RETURN_IF_ERROR(db.ForEachRow(
      absl::StrCat("SELECT status, trigger_code, handle_code, "
                   "substr(coalesce(nullif(handle_message, ''), trigger_message), 1, 70), "
                   "count(*) FROM run",
                   where, "AND status <> ", kSucceeded, " GROUP BY 1, 2, 3, 4"),
      [&](absl::Span<const absl::string_view> row) {
        if (row.size() < 5) return;
        out.unsuccessful[absl::StrCat("status ", row[0], " ", row[1], "/", row[2], ": ", row[3])] +=
            AsInt(row[4]);
        if (AsInt(row[0]) == kFailed) out.failed_runs += AsInt(row[4]);
      }));
  return out;
}

absl::StatusOr<int64_t> CountStartedSlots(StoreReader& db, int64_t from_ms, int64_t to_ms,
                                          JobIds jobs) {
  return db.QueryInt(absl::StrCat(
      "SELECT count(*) FROM (SELECT DISTINCT job_id, scheduled_ms, shard_index FROM run",
      WindowWhere(from_ms, to_ms, jobs), "AND start_ms > 0) AS started"));
}

void Drain(StoreReader& db, int64_t from_ms, int64_t to_ms, int64_t late_ms, absl::Duration max,
           JobIds jobs) {
  absl::SleepFor(absl::FromUnixMillis(to_ms + late_ms + 2000) - absl::Now());
  WaitForStartedSlots(db, from_ms, to_ms, std::numeric_limits<int64_t>::max(), absl::Seconds(2),
                      absl::Now() + max, jobs);
}

int64_t WaitForStartedSlots(StoreReader& db, int64_t from_ms, int64_t to_ms, int64_t expected,
                            absl::Duration quiet, absl::Time deadline, JobIds jobs) {
  int64_t started = -1;
  absl::Time moved = absl::Now();
  while (absl::Now() < deadline) {
    absl::StatusOr<int64_t> n = CountStartedSlots(db, from_ms, to_ms, jobs);
    if (!n.ok() || *n >= expected) return n.ok() ? *n : started;
    if (*n != started) {
      started = *n;
      moved = absl::Now();
    } else if (absl::Now() - moved >= quiet) {
      break;
    }
    absl::SleepFor(absl::Seconds(2));  // Polling the run table.
  }
  return started;
}

absl::StatusOr<int64_t> CountRunsRecorded(StoreReader& db, int64_t from_ms, int64_t to_ms) {
  return db.QueryInt(absl::StrCat("SELECT count(*) FROM run WHERE trigger_ms >= ", from_ms,
                                  " AND trigger_ms < ", to_ms));
}

void PrintMarkdownTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows) {
  std::printf("\n| %s |\n|%s\n", absl::StrJoin(header, " | ").c_str(),
              absl::StrJoin(std::vector<std::string>(header.size(), "---|"), "").c_str());
  for (const std::vector<std::string>& row : rows)
    std::printf("| %s |\n", absl::StrJoin(row, " | ").c_str());
}

int64_t Quantile(const std::vector<int64_t>& sorted, double p) {
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * sorted.size()))];
}

std::string Percentiles(std::vector<int64_t> v) {
  if (v.empty()) return "-";
  std::sort(v.begin(), v.end());
  return absl::StrCat(Quantile(v, 0.5), " / ", Quantile(v, 0.99), " / ", v.back());
}

}  // namespace gnomon::bench

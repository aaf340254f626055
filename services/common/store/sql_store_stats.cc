// SqlStore: daily statistics, read from the counters and the duration and lateness histograms
// that the run transactions maintain (see stats_deltas.h).
#include <array>
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "services/common/client/log.h"
#include "services/common/status/status_macros.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"
#include "services/common/store/stats_histogram.h"

namespace gnomon::store::internal {
namespace {

using Histograms = std::map<int64_t, std::vector<int64_t>>;  // Bucket counts by day.

// Adds rows of (day_ms, bucket, runs) to the histograms by day in `out`.
absl::Status ReadHistograms(SqlConn& c, const std::string& sql, const std::vector<SqlValue>& args,
                            Histograms& out) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows, c.Query(sql, args));
  for (const SqlRow& row : rows) {
    const int bucket = static_cast<int>(ColInt(row, 1));
    if (bucket < 0 || bucket >= kDurationBuckets) continue;
    std::vector<int64_t>& h = out[ColInt(row, 0)];
    h.resize(kDurationBuckets);
    h[bucket] += ColInt(row, 2);
  }
  return absl::OkStatus();
}

// Statistics by day: counters (running, succeeded, failed) and histograms.
struct Days {
  std::map<int64_t, std::array<int64_t, 3>> counts;
  Histograms durations;
  Histograms lateness;
};

// Adds what `tables` hold for the range to `days`.
absl::Status AddTables(SqlConn& c, const StatsTables& tables, bool total,
                       const std::vector<SqlValue>& args, Days& days) {
  ASSIGN_OR_RETURN(std::vector<SqlRow> rows,
                   c.Query(total ? tables.select_days_total : tables.select_days_of_job, args));
  for (const SqlRow& row : rows) {
    std::array<int64_t, 3>& n = days.counts[ColInt(row, 0)];
    for (int i = 0; i < 3; ++i) n[i] += ColInt(row, i + 1);
  }
  RETURN_IF_ERROR(
      ReadHistograms(c, total ? tables.select_durations_total : tables.select_durations_of_job,
                     args, days.durations));
  return ReadHistograms(c, total ? tables.select_lateness_total : tables.select_lateness_of_job,
                        args, days.lateness);
}

}  // namespace

absl::StatusOr<std::vector<v1::StatsRow>> SqlStore::GetStats(int64_t from_day_ms, int64_t to_day_ms,
                                                             int64_t job_id) {
  std::vector<v1::StatsRow> out;
  if (to_day_ms <= from_day_ms) return out;
  const bool total = job_id == 0;
  std::vector<SqlValue> args;
  if (!total) args.push_back(SqlInt(job_id));
  args.push_back(SqlInt(from_day_ms));
  args.push_back(SqlInt(to_day_ms));
  // What this process counted is read back too (other replicas' within
  // their flush interval); the read goes on if the write fails.
  if (absl::Status s = stats_->Flush(); !s.ok()) {
    GNOMON_LOG(WARNING) << "store: daily statistics not written before a read: " << s;
  }
  RETURN_IF_ERROR(db_->Read([&](SqlConn& c) -> absl::Status {
    // Rows of releases before migration 13 are in the report_* tables.
    Days days;
    for (const StatsTables* tables : {&sql_.stats, &sql_.legacy_stats}) {
      RETURN_IF_ERROR(AddTables(c, *tables, total, args, days));
    }
    out.clear();
    out.reserve(days.counts.size());
    for (const auto& [day, n] : days.counts) {
      v1::StatsRow r;
      SetMs(day, r.mutable_day());  // Present even for the epoch's day.
      r.set_job_id(job_id);
      r.set_running(n[0]);
      r.set_succeeded(n[1]);
      r.set_failed(n[2]);
      if (auto it = days.durations.find(day); it != days.durations.end()) {
        r.set_duration_p50_ms(EstimatePercentile(it->second, 50));
        r.set_duration_p99_ms(EstimatePercentile(it->second, 99));
      }
      if (auto it = days.lateness.find(day); it != days.lateness.end()) {
        r.set_lateness_p50_ms(EstimatePercentile(it->second, 50));
        r.set_lateness_p99_ms(EstimatePercentile(it->second, 99));
      }
      out.push_back(std::move(r));
    }
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace gnomon::store::internal

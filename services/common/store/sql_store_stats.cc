// SqlStore: daily reports, read from the counters and the duration and lateness histograms
// that the run transactions maintain (see report_deltas.h).
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "services/common/store/report_histogram.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {
namespace {

using Histograms = std::map<int64_t, std::vector<int64_t>>;  // Bucket counts by day.

// Rows of (day_ms, bucket, runs) as histograms by day.
absl::StatusOr<Histograms> ReadHistograms(SqlConn& c, const std::string& sql,
                                          const std::vector<SqlValue>& args) {
  absl::StatusOr<std::vector<SqlRow>> rows = c.Query(sql, args);
  if (!rows.ok()) return rows.status();
  Histograms out;
  for (const SqlRow& row : *rows) {
    const int bucket = static_cast<int>(ColInt(row, 1));
    if (bucket < 0 || bucket >= kDurationBuckets) continue;
    std::vector<int64_t>& h = out[ColInt(row, 0)];
    h.resize(kDurationBuckets);
    h[bucket] += ColInt(row, 2);
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<v1::ReportRow>> SqlStore::GetReport(int64_t from_day_ms,
                                                               int64_t to_day_ms, int64_t job_id) {
  std::vector<v1::ReportRow> out;
  if (to_day_ms <= from_day_ms) return out;
  const bool total = job_id == 0;
  std::vector<SqlValue> args;
  if (!total) args.push_back(SqlInt(job_id));
  args.push_back(SqlInt(from_day_ms));
  args.push_back(SqlInt(to_day_ms));
  absl::Status s = db_->Read([&](SqlConn& c) -> absl::Status {
    absl::StatusOr<std::vector<SqlRow>> days =
        c.Query(total ? sql_.select_report_days_total : sql_.select_report_days_of_job, args);
    if (!days.ok()) return days.status();
    absl::StatusOr<Histograms> durations = ReadHistograms(
        c, total ? sql_.select_report_durations_total : sql_.select_report_durations_of_job, args);
    if (!durations.ok()) return durations.status();
    absl::StatusOr<Histograms> lateness = ReadHistograms(
        c, total ? sql_.select_report_lateness_total : sql_.select_report_lateness_of_job, args);
    if (!lateness.ok()) return lateness.status();
    out.clear();
    out.reserve(days->size());
    for (const SqlRow& row : *days) {
      v1::ReportRow r;
      const int64_t day = ColInt(row, 0);
      SetMs(day, r.mutable_day());  // Present even for the epoch's day.
      r.set_job_id(job_id);
      r.set_running(ColInt(row, 1));
      r.set_succeeded(ColInt(row, 2));
      r.set_failed(ColInt(row, 3));
      if (auto it = durations->find(day); it != durations->end()) {
        r.set_duration_p50_ms(EstimatePercentile(it->second, 50));
        r.set_duration_p99_ms(EstimatePercentile(it->second, 99));
      }
      if (auto it = lateness->find(day); it != lateness->end()) {
        r.set_lateness_p50_ms(EstimatePercentile(it->second, 50));
        r.set_lateness_p99_ms(EstimatePercentile(it->second, 99));
      }
      out.push_back(std::move(r));
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace gnomon::store::internal

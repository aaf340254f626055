// SqlStore: daily reports, read from the counters and duration histograms
// that the run transactions maintain (see report_deltas.h).
#include <map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "services/common/store/report_histogram.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/sql_store.h"

namespace gnomon::store::internal {

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
    absl::StatusOr<std::vector<SqlRow>> buckets = c.Query(
        total ? sql_.select_report_durations_total : sql_.select_report_durations_of_job, args);
    if (!buckets.ok()) return buckets.status();
    std::map<int64_t, std::vector<int64_t>> histograms;  // By day.
    for (const SqlRow& row : *buckets) {
      const int bucket = static_cast<int>(ColInt(row, 1));
      if (bucket < 0 || bucket >= kDurationBuckets) continue;
      std::vector<int64_t>& h = histograms[ColInt(row, 0)];
      h.resize(kDurationBuckets);
      h[bucket] += ColInt(row, 2);
    }
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
      if (auto it = histograms.find(day); it != histograms.end()) {
        r.set_duration_p50_ms(EstimatePercentile(it->second, 50));
        r.set_duration_p99_ms(EstimatePercentile(it->second, 99));
      }
      out.push_back(std::move(r));
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace gnomon::store::internal

#include "services/common/store/report_deltas.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "services/common/store/report_histogram.h"

namespace gnomon::store::internal {

absl::StatusOr<RunFacts> ReadRunFacts(SqlConn& c, const Statements& sql, int64_t run_id) {
  absl::StatusOr<std::vector<SqlRow>> rows = c.Query(sql.select_run_facts, {SqlInt(run_id)});
  if (!rows.ok()) return rows.status();
  if (rows->empty()) return absl::NotFoundError(absl::StrCat("run ", run_id, " does not exist"));
  const SqlRow& row = rows->front();
  RunFacts f;
  f.job_id = ColInt(row, 0);
  f.trigger_ms = ColInt(row, 1);
  f.start_ms = ColInt(row, 2);
  f.end_ms = ColInt(row, 3);
  f.status = static_cast<v1::RunStatus>(ColInt(row, 4));
  return f;
}

void ReportDeltas::Inserted(int64_t job_id, int64_t trigger_ms) {
  ++days_[{DayOf(trigger_ms), job_id}].running;
}

void ReportDeltas::Ended(const RunFacts& f, bool was_active) {
  const int64_t day = DayOf(f.trigger_ms);
  Counters& c = days_[{day, f.job_id}];
  if (was_active) --c.running;
  if (f.status == v1::RUN_STATUS_SUCCEEDED) ++c.succeeded;
  if (f.status == v1::RUN_STATUS_FAILED) ++c.failed;
  if (f.start_ms > 0) {
    const int64_t duration = std::max<int64_t>(0, f.end_ms - f.start_ms);
    ++buckets_[{day, f.job_id, DurationBucket(duration)}];
  }
}

absl::Status ReportDeltas::Apply(SqlConn& c, const Statements& sql) const {
  for (const auto& [key, n] : days_) {
    if (n.running == 0 && n.succeeded == 0 && n.failed == 0) continue;
    absl::StatusOr<ExecResult> r =
        c.Exec(sql.upsert_report_day, {SqlInt(key.first), SqlInt(key.second), SqlInt(n.running),
                                       SqlInt(n.succeeded), SqlInt(n.failed)});
    if (!r.ok()) return r.status();
  }
  for (const auto& [key, n] : buckets_) {
    absl::StatusOr<ExecResult> r = c.Exec(
        sql.upsert_report_duration,
        {SqlInt(std::get<0>(key)), SqlInt(std::get<1>(key)), SqlInt(std::get<2>(key)), SqlInt(n)});
    if (!r.ok()) return r.status();
  }
  return absl::OkStatus();
}

}  // namespace gnomon::store::internal

#include "services/common/store/stats_deltas.h"

#include <algorithm>

#include "services/common/status/status_macros.h"
#include "services/common/store/batch_sql.h"
#include "services/common/store/row_codec.h"
#include "services/common/store/stats_histogram.h"

namespace gnomon::store::internal {

void StatsDeltas::Inserted(int64_t job_id, int64_t trigger_ms) {
  ++days_[{DayOf(trigger_ms), job_id}].running;
}

void StatsDeltas::Ended(const RunFacts& f, bool was_active) {
  if (was_active) --days_[{DayOf(f.trigger_ms), f.job_id}].running;
  CountEnd(f, 1);
}

bool LatenessCounted(v1::TriggerType type) {
  return IsSlotType(type) && type != v1::TRIGGER_TYPE_BACKFILL;
}

void StatsDeltas::Dispatched(int64_t job_id, int64_t trigger_ms, v1::TriggerType type,
                             int64_t scheduled_ms, int64_t dispatch_ms) {
  if (!LatenessCounted(type) || scheduled_ms <= 0 || dispatch_ms <= 0) return;
  ++lateness_[{DayOf(trigger_ms), job_id, DurationBucket(dispatch_ms - scheduled_ms)}];
}

void StatsDeltas::Add(const StatsDeltas& other) {
  for (const auto& [key, n] : other.days_) {
    Counters& c = days_[key];
    c.running += n.running;
    c.succeeded += n.succeeded;
    c.failed += n.failed;
  }
  for (const auto& [key, n] : other.buckets_) buckets_[key] += n;
  for (const auto& [key, n] : other.lateness_) lateness_[key] += n;
}

void StatsDeltas::Retracted(const RunFacts& f) { CountEnd(f, -1); }

void StatsDeltas::CountEnd(const RunFacts& f, int sign) {
  const int64_t day = DayOf(f.trigger_ms);
  Counters& c = days_[{day, f.job_id}];
  if (f.status == v1::RUN_STATUS_SUCCEEDED) c.succeeded += sign;
  if (f.status == v1::RUN_STATUS_FAILED) c.failed += sign;
  if (f.start_ms > 0) {
    const int64_t duration = std::max<int64_t>(0, f.end_ms - f.start_ms);
    buckets_[{day, f.job_id, DurationBucket(duration)}] += sign;
  }
}

absl::Status StatsDeltas::Apply(SqlConn& c, const Statements& sql) const {
  std::vector<SqlRow> days;
  for (const auto& [key, n] : days_) {
    if (n.running == 0 && n.succeeded == 0 && n.failed == 0) continue;
    days.push_back({SqlInt(key.first), SqlInt(key.second), SqlInt(n.running), SqlInt(n.succeeded),
                    SqlInt(n.failed)});
  }
  if (!days.empty()) {
    // Padding adds nothing to a row the statement writes anyway.
    const SqlRow pad = {days.back()[0], days.back()[1], SqlInt(0), SqlInt(0), SqlInt(0)};
    RETURN_IF_ERROR(ExecPadded(c, sql.upsert_stats_days, days, &pad));
  }
  RETURN_IF_ERROR(ApplyHistogram(c, sql.upsert_stats_durations, buckets_));
  return ApplyHistogram(c, sql.upsert_stats_lateness, lateness_);
}

absl::Status StatsDeltas::ApplyHistogram(SqlConn& c, const BatchSql& upsert, const Histogram& h) {
  std::vector<SqlRow> buckets;
  for (const auto& [key, n] : h) {
    if (n == 0) continue;  // Retracted and counted again in the same bucket.
    buckets.push_back(
        {SqlInt(std::get<0>(key)), SqlInt(std::get<1>(key)), SqlInt(std::get<2>(key)), SqlInt(n)});
  }
  if (buckets.empty()) return absl::OkStatus();
  const SqlRow pad = {buckets.back()[0], buckets.back()[1], buckets.back()[2], SqlInt(0)};
  return ExecPadded(c, upsert, buckets, &pad);
}

}  // namespace gnomon::store::internal
